import RealmQuery

/// Checking Realm Query Language text on its own, without a realm or a schema.
///
/// Tools that test the language (the query fuzzer in `RealmTestSupport`) need to tell "not valid
/// RQL" apart from every other failure before any schema is involved; `Results.filter` cannot,
/// because it also resolves key paths and arguments.
public enum QuerySyntax {
    /// Tokenizes and parses `query`.
    ///
    /// - Throws: `RealmError(.query, …)` naming the column of the offending token when the text is
    ///   not valid RQL. Any other error is a bug of the parser.
    public static func check(_ query: String) throws {
        do {
            _ = try QueryParser.parse(query)
        } catch let error as QuerySyntaxError {
            throw RealmError(.query, error.described(in: query))
        }
    }
}
