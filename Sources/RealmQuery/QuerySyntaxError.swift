/// A syntax error found while tokenizing or parsing, with the byte offset of the offending text.
package struct QuerySyntaxError: Error {
    package var offset: Int
    package var message: String
    /// Two values of types that can't be compared: an error between single values, no match
    /// for an element of a list literal or list argument (realm-core's lists hold mixed values).
    package var isTypeMismatch = false
}

extension QuerySyntaxError {
    package init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }
}

extension QuerySyntaxError {
    /// The error as a user reads it: `Invalid query '<query>' at column N: <message>`.
    package func described(in query: String) -> String {
        var shown = query
        if shown.count > 200 { shown = String(shown.prefix(200)) + "…" }
        return "Invalid query '\(shown)' at column \(Self.column(of: offset, in: query)): \(message)"
    }

    /// The 1-based column (in Unicode scalars) of a UTF-8 byte offset.
    static func column(of offset: Int, in query: String) -> Int {
        var column = 1
        var bytes = 0
        for scalar in query.unicodeScalars {
            if bytes >= offset { break }
            bytes += String(scalar).utf8.count
            column += 1
        }
        return column
    }
}
