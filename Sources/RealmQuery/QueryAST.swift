import Foundation
import RealmValues

// The syntax tree of a Realm query. Every node keeps the byte offset of its first token so that
// semantic errors (unknown property, type mismatch) can name the column.

package enum QueryCompareOp: String {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessEqual = "<="
    case greater = ">"
    case greaterEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case `in` = "IN"

    package var isStringOperator: Bool { [.beginsWith, .endsWith, .contains, .like].contains(self) }
    package var isOrdering: Bool { [.less, .lessEqual, .greater, .greaterEqual].contains(self) }

    /// The operator with its operands swapped (`3 < age` is `age > 3`). String operators don't swap.
    package var swapped: QueryCompareOp {
        switch self {
        case .less: return .greater
        case .lessEqual: return .greaterEqual
        case .greater: return .less
        case .greaterEqual: return .lessEqual
        default: return self
        }
    }
}

package enum QueryQuantifier: String {
    case any = "ANY"
    case all = "ALL"
    case noneOf = "NONE"
}

package struct QueryStringOptions: Equatable {
    package var caseInsensitive = false
    package var diacriticInsensitive = false
    package init(caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) {
        self.caseInsensitive = caseInsensitive
        self.diacriticInsensitive = diacriticInsensitive
    }
    package var isEmpty: Bool { !caseInsensitive && !diacriticInsensitive }
    /// Flags passed to `realm_fold`: 1 = case, 2 = diacritics.
    package var foldFlags: Int64 { (caseInsensitive ? 1 : 0) | (diacriticInsensitive ? 2 : 0) }
    package var suffix: String {
        switch (caseInsensitive, diacriticInsensitive) {
        case (true, true): return "[cd]"
        case (true, false): return "[c]"
        case (false, true): return "[d]"
        default: return ""
        }
    }
}

package indirect enum QueryPredicate {
    case constant(Bool, offset: Int)
    case and([QueryPredicate])
    case or([QueryPredicate])
    case not(QueryPredicate, offset: Int)
    case compare(QueryExpression, QueryCompareOp, QueryExpression, QueryStringOptions, offset: Int)
    case between(QueryExpression, QueryExpression, offset: Int)
}

/// A literal as written.
package indirect enum QueryLiteral {
    case null
    case bool(Bool)
    case integer(Int64, text: String)
    case float(Double, text: String, isFloat: Bool)
    case special(Double, text: String)
    case string(String)
    case base64(Data)
    case timestamp(Timestamp)
    case objectId(ObjectId)
    case uuid(UUID)
    case objectKey(Int64)
    /// `obj('Class', primaryKey)`.
    case objectByPrimaryKey(className: String, key: QueryLiteral)
    /// `bin('…')` / `binary('…')`.
    case binary(Data)
}

/// One step of a key path.
package enum QueryPathElement {
    case property(String, offset: Int)
    /// `@links.Class.property`
    case backlink(className: String, property: String, offset: Int)
    /// `@links` on its own (only before `@count`/`@size`).
    case allBacklinks(offset: Int)
    /// `[FIRST]`, `[LAST]`, `[n]`
    case index(QueryIndex, offset: Int)
    /// `[*]`
    case all(offset: Int)
    /// `['key']` on a dictionary (`.key` is parsed as a property and resolved against the map).
    case key(String, offset: Int)
    case count(offset: Int)
    case size(offset: Int)
    case aggregate(QueryAggregate, offset: Int)
    case keys(offset: Int)
    case values(offset: Int)
    case type(offset: Int)

    package var offset: Int {
        switch self {
        case .property(_, let o), .backlink(_, _, let o), .allBacklinks(let o), .index(_, let o), .all(let o),
            .key(_, let o), .count(let o), .size(let o), .aggregate(_, let o), .keys(let o), .values(let o),
            .type(let o):
            return o
        }
    }
}

package enum QueryIndex: Equatable {
    case first, last
    case position(Int)
}

package enum QueryAggregate: String {
    case sum = "@sum"
    case avg = "@avg"
    case min = "@min"
    case max = "@max"
}

package struct QueryKeyPath {
    /// A subquery variable (`$x`) the path starts from, if any.
    package var variable: String?
    package var elements: [QueryPathElement]
    package var offset: Int
    /// The path as written, for messages.
    package var text: String
}

package enum QueryArithmeticOp: String {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
}

package indirect enum QueryExpression {
    case literal(QueryLiteral, offset: Int, text: String)
    case argument(Int, offset: Int)
    /// `{a, b, …}`, optionally quantified (`ANY {…}`).
    case list([QueryExpression], quantifier: QueryQuantifier?, offset: Int)
    case keyPath(QueryKeyPath, quantifier: QueryQuantifier?)
    case arithmetic(QueryArithmeticOp, QueryExpression, QueryExpression, offset: Int)
    /// `SUBQUERY(path, $var, predicate).@count`
    case subqueryCount(QueryKeyPath, variable: String, QueryPredicate, offset: Int)
    /// An argument used with a quantifier: `ANY $0`.
    case quantifiedArgument(Int, quantifier: QueryQuantifier, offset: Int)

    package var offset: Int {
        switch self {
        case .literal(_, let o, _), .argument(_, let o), .list(_, _, let o), .arithmetic(_, _, _, let o),
            .subqueryCount(_, _, _, let o), .quantifiedArgument(_, _, let o):
            return o
        case .keyPath(let p, _): return p.offset
        }
    }
}

/// A parsed query: the predicate and its trailing clauses.
package struct ParsedQuery {
    package var predicate: QueryPredicate
    package var clauses: [ParsedClause]
}

package enum ParsedClause {
    case sort([(QueryKeyPath, ascending: Bool)], offset: Int)
    case distinct([QueryKeyPath], offset: Int)
    case limit(Int, offset: Int)
}
