import Foundation
import RealmValues

// The contract between Results and the query language (Realm Query Language → SQL).
//
// Results calls `QueryLanguage.compile` with the RQL text, its arguments and the class queried;
// the compiler returns a SQL boolean expression over the object row, which Results places in the
// WHERE clause of `SELECT t0._key FROM "class_<Class>" AS t0 WHERE <predicateSQL>`, plus the
// trailing SORT / DISTINCT / LIMIT clauses in the order written. No filtering happens in Swift.

/// One key of a sort: a key path (`age`, `owner.name`) and a direction.
public struct SortDescriptor: Equatable, Sendable {
    public var keyPath: String
    public var ascending: Bool
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}

/// A trailing clause of a query, or a Results operation applied after filtering.
public enum QueryDescriptor: Equatable, Sendable {
    case sort([SortDescriptor])
    case distinct([String])
    case limit(Int)
}

/// A compiled query.
struct CompiledQuery {
    /// A SQL boolean expression. The queried object's row is the table alias `t0` (its key is
    /// `t0."_key"`); the compiler names any other alias it needs itself (`t1`, `s1`, …).
    var predicateSQL: String
    /// Values for the `?` placeholders of `predicateSQL`, in order. Never interpolated.
    var bindings: [SQLiteValue]
    /// SORT / DISTINCT / LIMIT clauses, in the order written.
    var descriptors: [QueryDescriptor]
}
