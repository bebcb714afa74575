import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of a server on 127.0.0.1: each connection it accepts is relayed
/// both ways, and, while cutting is on, ended after a random number of bytes from the server (both
/// sockets shut down mid-stream, wherever in a WebSocket frame that falls). Blocking sockets, a
/// thread per direction: a test tool, not a server.
final class CuttingProxy: @unchecked Sendable {
    private let listener: Int32
    private let upstreamPort: UInt16
    let port: UInt16
    private let lock = NSLock()
    private var cutRange: ClosedRange<Int>?
    private var live: Set<Int32> = []
    private var cutCount = 0
    private var stopped = false

    init(upstreamPort: Int) throws {
        guard let upstream = UInt16(exactly: upstreamPort) else { throw POSIXError(.EINVAL) }
        self.upstreamPort = upstream
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit { stop() }

    var url: String { "ws://127.0.0.1:\(port)/sync" }

    /// The connections cut so far.
    var cuts: Int { lock.withLock { cutCount } }

    /// From now on every connection (those open included) ends after a number of bytes from the
    /// server drawn from `range`; nil: relay everything.
    func cut(after range: ClosedRange<Int>?) {
        lock.withLock { cutRange = range }
    }

    /// Ends every open connection now.
    func dropAll() {
        let open = lock.withLock { live }
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    func stop() {
        let wasStopped = lock.withLock {
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        dropAll()
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard server >= 0, connected == 0 else {
                close(client)
                if server >= 0 { close(server) }
                continue
            }
            relay(client: client, server: server)
        }
    }

    /// Two pumps; the sockets are closed once both ended.
    private func relay(client: Int32, server: Int32) {
        lock.withLock {
            live.insert(client)
            live.insert(server)
        }
        let group = DispatchGroup()
        for (from, to, counted) in [(client, server, false), (server, client, true)] {
            group.enter()
            Thread.detachNewThread { [self] in
                pump(from: from, to: to, counted: counted)
                group.leave()
            }
        }
        group.notify(queue: .global()) { [self] in
            lock.withLock {
                live.remove(client)
                live.remove(server)
            }
            close(client)
            close(server)
        }
    }

    /// Copies `from` to `to` until either ends; from the server (`counted`), cuts both once the budget
    /// drawn when cutting is on is spent.
    private func pump(from: Int32, to: Int32, counted: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var budget: Int?
        while true {
            if counted, budget == nil { budget = lock.withLock { cutRange.map { Int.random(in: $0) } } }
            let limit = min(buffer.count, budget ?? buffer.count)
            let n = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, limit) }
            guard n > 0 else { break }
            guard writeAll(buffer, count: n, to: to) else { break }
            if let left = budget {
                budget = left - n
                if left - n <= 0 {
                    lock.withLock { cutCount += 1 }
                    break
                }
            }
        }
        shutdown(from, Int32(SHUT_RDWR))
        shutdown(to, Int32(SHUT_RDWR))
    }

    private func writeAll(_ buffer: [UInt8], count: Int, to fd: Int32) -> Bool {
        var offset = 0
        while offset < count {
            let n = buffer.withUnsafeBytes {
                send(fd, $0.baseAddress.map { $0 + offset }, count - offset, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }
}
