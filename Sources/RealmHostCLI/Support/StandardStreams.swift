#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Unbuffered writes to standard output and error: what a script prints and what the REPL prints
/// come out in the order they happen, whatever the streams are connected to.
enum StandardStreams {
    static func out(_ text: String) { write(fd: 1, text) }
    static func err(_ text: String) { write(fd: 2, text) }

    /// `text` followed by a newline on standard output.
    static func line(_ text: String) { out(text + "\n") }
    /// `text` followed by a newline on standard error.
    static func errorLine(_ text: String) { err(text + "\n") }

    private static func write(fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            guard var p = buffer.baseAddress else { return }
            var left = buffer.count
            while left > 0 {
                let n = systemWrite(fd, p, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    return
                }
                p += n
                left -= n
            }
        }
    }

    private static func systemWrite(_ fd: Int32, _ p: UnsafePointer<UInt8>, _ count: Int) -> Int {
        #if canImport(Glibc)
            return Glibc.write(fd, p, count)
        #else
            return Darwin.write(fd, p, count)
        #endif
    }
}
