import RealmDatabase
import RealmQuery

/// Compiles the RQL text of a subscription or a permission rule for one class into a
/// `ViewPredicate`, with RealmDatabase's own parser, so the syntax and its errors are the local
/// query language's. Only the subset sync evaluates is accepted (docs/SYNC.md "Rules in the
/// plugin"); anything else is refused naming the part, at its column.
public enum ViewQueryCompiler {
    /// `queryable` are the fields usable beside the class's primary key; `allowsUser` permits
    /// `$user` (rules; a subscription saying it is refused). Throws `SyncError(.badQuery, …)`.
    public static func compile(
        _ query: String, className: String, schema: Schema, queryable: Set<String>, allowsUser: Bool
    ) throws -> ViewPredicate {
        guard let objectSchema = schema[className] else {
            throw SyncError(.badQuery, "unknown class '\(className)'")
        }
        do {
            let parsed = try QueryParser.parse(query)
            let compilation = ViewQueryCompilation(
                objectSchema: objectSchema, queryable: queryable, allowsUser: allowsUser)
            if let clause = parsed.clauses.first { throw compilation.refusedClause(clause) }
            return try compilation.predicate(parsed.predicate)
        } catch let error as QuerySyntaxError {
            throw SyncError(.badQuery, error.described(in: query))
        }
    }
}
