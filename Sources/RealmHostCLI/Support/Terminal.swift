import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the process is connected to.
enum Terminal {
    static var inputIsTerminal: Bool { isatty(0) == 1 }
    static var outputIsTerminal: Bool { isatty(1) == 1 }
    static var errorIsTerminal: Bool { isatty(2) == 1 }

    /// Colour on a terminal, unless `NO_COLOR` is set or `TERM` is `dumb`.
    static func colourAllowed(onTerminal: Bool) -> Bool {
        guard onTerminal else { return false }
        let env = ProcessInfo.processInfo.environment
        if let noColor = env["NO_COLOR"], !noColor.isEmpty { return false }
        return env["TERM"] != "dumb"
    }

    /// The width of the terminal on standard output (or error), 100 when unknown.
    static var width: Int {
        var size = winsize()
        for fd: Int32 in [1, 2] where ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return 100
    }
}

/// ANSI colours, or nothing when colour is off.
struct Style: Sendable {
    let enabled: Bool

    static let plain = Style(enabled: false)

    private func wrap(_ code: String, _ text: String) -> String {
        enabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
    func bold(_ text: String) -> String { wrap("1", text) }
    func dim(_ text: String) -> String { wrap("2", text) }
    func red(_ text: String) -> String { wrap("31", text) }
    func green(_ text: String) -> String { wrap("32", text) }
    func yellow(_ text: String) -> String { wrap("33", text) }
    func cyan(_ text: String) -> String { wrap("36", text) }
}
