import Foundation
import RealmDatabase

#if canImport(Glibc)
    import Glibc
#endif

/// A plain HTTP/1.1 client over a TCP socket to 127.0.0.1, as any app's client speaks to the host:
/// one request per connection (`Connection: close`), a 10 s receive timeout, the body read by its
/// Content-Length. Raw on purpose: the malformed-input tests send what no library would.
public struct HTTPTestClient: Sendable {
    public let port: Int

    public init(port: Int) { self.port = port }

    public struct Response: Sendable, CustomStringConvertible {
        public let status: Int
        public let headers: [String: String]
        public let body: Data

        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: JSONValue? { try? JSONValue.parse(body) }
        /// `error.code` of an error body.
        public var errorCode: String? {
            if case .string(let code)? = json?[field: "error"]?[field: "code"] { return code }
            return nil
        }
        public var description: String { "\(status) \(text)" }
    }

    public func request(
        _ method: String, _ path: String, token: String? = nil, body: String? = nil, headers: [String: String] = [:]
    ) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let bodyBytes = Array((body ?? "").utf8)
        if body != nil { head += "Content-Type: application/json\r\nContent-Length: \(bodyBytes.count)\r\n" }
        head += "\r\n"
        return try exchange(Array(head.utf8) + bodyBytes)
    }

    /// Sends `bytes` as they are and reads one response.
    public func exchange(_ bytes: [UInt8]) throws -> Response {
        let socket = try connect()
        defer { close(socket) }
        try send(socket, bytes)
        return try readResponse(socket)
    }

    public func connect() throws -> Int32 {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw TestFailure("connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return fd
    }

    public func send(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestFailure("send: errno \(errno)") }
            offset += n
        }
    }

    /// Reads until the headers end and the body's Content-Length is in (or the peer closes).
    public func readResponse(_ fd: Int32) throws -> Response {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            if let end = headerEnd, data.count >= end + contentLength { break }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            guard n > 0 else { throw TestFailure("no answer from 127.0.0.1:\(port) (errno \(errno))") }
            data += buffer[0..<n]
            if headerEnd == nil, let range = findHeaderEnd(data) {
                headerEnd = range
                let head = String(decoding: data[0..<range], as: UTF8.self).lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) {
                    contentLength =
                        Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        guard let end = headerEnd else {
            throw TestFailure("no HTTP response: \(String(decoding: data, as: UTF8.self))")
        }
        let lines = String(decoding: data[0..<end], as: UTF8.self).split(separator: "\r\n")
        let statusLine = lines.first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw TestFailure("bad status line '\(statusLine)'") }
        var headers = [String: String]()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: Data(data[end..<min(data.count, end + contentLength)]))
    }

    private func findHeaderEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for i in 0...(data.count - 4) where data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10
        {
            return i + 4
        }
        return nil
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One keep-alive HTTP/1.1 connection to 127.0.0.1: requests one after another on the same socket,
/// as a load generator's connection sends them. Used by one thread at a time.
public final class KeepAliveConnection {
    private let client: HTTPTestClient
    private var fd: Int32

    public init(port: Int) throws {
        client = HTTPTestClient(port: port)
        fd = try client.connect()
    }

    deinit { close(fd) }

    /// Sends a request and reads its response (reconnecting once if the server closed the socket).
    public func request(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) throws
        -> HTTPTestClient.Response
    {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(client.port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let bodyBytes = Array((body ?? "").utf8)
        head += "Content-Type: application/json\r\nContent-Length: \(bodyBytes.count)\r\n\r\n"
        let bytes = Array(head.utf8) + bodyBytes
        do {
            try client.send(fd, bytes)
            return try client.readResponse(fd)
        } catch {
            close(fd)
            fd = try client.connect()
            try client.send(fd, bytes)
            return try client.readResponse(fd)
        }
    }
}
