import Foundation
import RealmDatabase
import RealmHost

#if canImport(Glibc)
    import Glibc
#endif

/// The console socket of a serving host: `DATA/.console.sock`, a Unix socket only its owner may
/// open (mode 0600), where `realm-host repl --connect` and `run --connect` attach. Each connection
/// gets a thread of its own running `handler` (a console runs Lua synchronously, as the REPL does);
/// the messages are JSON, one per line (`ConsoleConnection`).
public final class ConsoleSocket: @unchecked Sendable {
    public static let fileName = ".console.sock"
    public let path: String
    private let fd: Int32
    private let stopped = NSLock()
    private var isStopped = false

    /// Binds the socket (a stale file from a host that died is replaced: the data folder's
    /// `ServeLock` says no other host runs) and starts accepting.
    public init(dataFolder: URL, handler: @escaping @Sendable (ConsoleConnection) -> Void) throws {
        path = dataFolder.appendingPathComponent(Self.fileName).path
        var address = try Self.address(path)
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HostError.io("Cannot make the console socket: \(String(cString: strerror(errno)))") }
        // Created 0600 from the start (the umask), then chmod'ed: never reachable by others.
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        umask(previous)
        guard bound == 0, chmod(path, 0o600) == 0, listen(fd, 16) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            throw HostError.io("Cannot listen on the console socket \(path): \(why)")
        }
        let listener = fd
        let thread = Thread { [weak self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                guard let self, !self.stopping else {
                    Glibc.close(client)
                    return
                }
                let connection = ConsoleConnection(fd: client)
                let worker = Thread {
                    handler(connection)
                    connection.close()
                }
                worker.stackSize = 8 << 20
                worker.name = "realm-host console"
                worker.start()
            }
        }
        thread.name = "realm-host console listener"
        thread.start()
    }

    private var stopping: Bool { stopped.withLock { isStopped } }

    /// Stops accepting and removes the socket file (attached consoles end with their connections).
    public func stop() {
        let first = stopped.withLock {
            defer { isStopped = true }
            return !isStopped
        }
        guard first else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
        unlink(path)
    }

    deinit { stop() }

    /// The socket address of `path`; refused, naming it, when it is longer than a Unix socket allows.
    private static func address(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw HostError.configuration(
                "The console socket's path \(path) is longer than a Unix socket allows (\(capacity - 1) bytes): "
                    + "use a data folder with a shorter path")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// Connects to the console socket of a serving host's data folder.
    public static func connect(dataFolder: URL) throws -> ConsoleConnection {
        let path = dataFolder.appendingPathComponent(fileName).path
        var address = try address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HostError.io("Cannot make a socket: \(String(cString: strerror(errno)))") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            throw HostError.configuration(
                "No realm-host serve answers on \(path) (\(why)): start `realm-host serve --data \(dataFolder.path)`, "
                    + "or drop --connect to open the data folder directly")
        }
        return ConsoleConnection(fd: fd)
    }
}

/// One console connection: JSON messages, one per line, both ways. `send` may be called from any
/// thread; `receive` from one reader at a time.
public final class ConsoleConnection: @unchecked Sendable {
    private let fd: Int32
    private let writeLock = NSLock()
    private var buffer = [UInt8]()
    private let closeLock = NSLock()
    private var closed = false
    /// The longest message accepted (a script sent by `run --connect` included).
    public static let maxMessageBytes = 16 << 20

    init(fd: Int32) { self.fd = fd }

    public enum Received {
        case message(JSONValue)
        case timedOut
        case closed
    }

    /// Sends one message; false once the peer is gone.
    @discardableResult
    public func send(_ message: JSONValue) -> Bool {
        let bytes = Array((message.text() + "\n").utf8)
        return writeLock.withLock {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
    }

    /// The next message; `.timedOut` when none came within `timeout` (nil: wait as long as it
    /// takes), `.closed` at the end of the connection or on a line that is not a JSON object.
    public func receive(timeout: Duration? = nil) -> Received {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                guard let message = try? JSONValue.parse(Data(line)), case .object = message else { return .closed }
                return .message(message)
            }
            guard buffer.count <= Self.maxMessageBytes else { return .closed }
            var wait: Int32 = -1
            if let deadline {
                // At least one look at the socket, even when the time is up (timeout zero: what waits).
                let left = max(.zero, deadline - ContinuousClock.now)
                let (seconds, attoseconds) = left.components
                wait = left == .zero ? 0 : Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, wait)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 {
                if let deadline, ContinuousClock.now >= deadline { return .timedOut }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return .closed }
            buffer += chunk[0..<n]
        }
    }

    public func close() {
        let first = closeLock.withLock {
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }

    deinit { close() }
}
