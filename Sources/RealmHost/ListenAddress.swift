/// `--listen HOST:PORT`: where a server (the sync server, `serve`'s listeners) binds. An IPv6
/// address is written in brackets (`[::1]:7800`); port 0 asks the system for a free port.
public struct ListenAddress: Equatable, Sendable {
    public static let defaultText = "127.0.0.1:7800"

    public let host: String
    public let port: Int

    /// Parses `text`, or throws a message naming `what` (the flag or field) and what is wrong with it.
    public init(parsing text: String, what: String = "--listen", example: String = defaultText) throws {
        let (host, portText) = try Self.split(text, what, example)
        guard !host.isEmpty else { throw Self.failure(text, "the host is missing", what, example) }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw Self.failure(text, "the port must be a number from 0 to 65535, not '\(portText)'", what, example)
        }
        self.host = host
        self.port = port
    }

    /// The address as a URL names it: `127.0.0.1:7800`, `[::1]:7800`.
    public func authority(port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The host and the port's text: after the closing bracket of an IPv6 address, else after the
    /// only colon.
    private static func split(_ text: String, _ what: String, _ example: String) throws -> (
        host: String, port: Substring
    ) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[close...].hasPrefix("]:") else {
                throw failure(text, "an IPv6 address is written [ADDRESS]:PORT", what, example)
            }
            let host = text[text.index(after: text.startIndex)..<close]
            return (String(host), text[text.index(close, offsetBy: 2)...])
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw failure(
                text, parts.count < 2 ? "the port is missing" : "write an IPv6 address in brackets", what, example)
        }
        return (String(parts[0]), parts[1])
    }

    private static func failure(_ text: String, _ why: String, _ what: String, _ example: String) -> HostError {
        .configuration("\(what) '\(text)': \(why) (expected HOST:PORT, e.g. \(example))")
    }
}
