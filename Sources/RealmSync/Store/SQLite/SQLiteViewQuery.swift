import Foundation
import RealmDatabase

/// A `ViewPredicate` over one class translated to SQL on the store's tables: each field queried is
/// a LEFT JOIN of its `fields` row (a field never written reads as its default), compared with
/// `realm_cmp` / `realm_strop` on `sync_value` / `sync_tag`, the functions the local engine and the
/// evaluator share. Parameters are numbered (`?N`), so joins and conditions bind in any order.
struct SQLiteViewQuery {
    /// The default of each field (`SyncSchemaRules.defaultValue`); a field without one reads as null.
    let defaults: [String: SyncValue]
    let user: String
    private(set) var bindings: [SQLiteValue] = []
    private var joins: [String: String] = [:]
    private var joinSQL: [String] = []

    init(defaults: [String: SyncValue], user: String) {
        self.defaults = defaults
        self.user = user
    }

    /// `SELECT id, pk` of the live objects of `className` matching, after `cursor`, at most `limit`.
    static func select(
        className: String, matching predicate: ViewPredicate, user: String, defaults: [String: SyncValue],
        after cursor: UInt64, limit: Int
    ) -> (sql: String, bindings: [SQLiteValue]) {
        var query = SQLiteViewQuery(defaults: defaults, user: user)
        let condition = query.condition(predicate)
        let classParameter = query.bind(.text(className))
        let cursorParameter = query.bind(.integer(Int64(bitPattern: cursor)))
        let limitParameter = query.bind(.integer(Int64(max(0, limit))))
        let sql = """
            SELECT o.id, o.pk FROM objects AS o \(query.joinSQL.joined(separator: " "))
            WHERE o.class = \(classParameter) AND o.live = 1 AND o.id > \(cursorParameter) AND (\(condition))
            ORDER BY o.id LIMIT \(limitParameter)
            """
        return (sql, query.bindings)
    }

    private mutating func bind(_ value: SQLiteValue) -> String {
        bindings.append(value)
        return "?\(bindings.count)"
    }

    mutating func condition(_ predicate: ViewPredicate) -> String {
        switch predicate {
        case .constant(let value): return value ? "1" : "0"
        case .and(let parts):
            guard !parts.isEmpty else { return "1" }
            return parts.map { "(\(condition($0)))" }.joined(separator: " AND ")
        case .or(let parts):
            guard !parts.isEmpty else { return "0" }
            return parts.map { "(\(condition($0)))" }.joined(separator: " OR ")
        case .not(let inner):
            // NULL-safe: a comparison that is NULL is false, so its negation is true.
            return "(\(condition(inner))) IS NOT 1"
        case .createdByUser: return "o.creator = \(bind(.text(user)))"
        case .compare(let field, let op, let operand, let caseInsensitive):
            let right: SyncValue
            switch operand {
            case .value(let v): right = v
            case .user: right = .string(user)
            }
            return comparison(value(of: field), op, right, caseInsensitive: caseInsensitive)
        }
    }

    /// The stored value of `field`, or its default: a blob `sync_value` / `sync_tag` read.
    private mutating func value(of field: String) -> String {
        if let alias = joins[field] { return alias }
        let table = "f\(joins.count)"
        let path = bind(.text(field))
        joinSQL.append("LEFT JOIN fields AS \(table) ON \(table).object = o.id AND \(table).path = \(path)")
        let fallback = defaults[field].map { bind(.blob(Data(StoreEncoding.encode($0)))) } ?? "NULL"
        let alias = "COALESCE(\(table).value, \(fallback))"
        joins[field] = alias
        return alias
    }

    /// The same cases as `ViewComparisonEvaluation.holds`, in SQL.
    private mutating func comparison(_ stored: String, _ op: ViewComparison, _ right: SyncValue, caseInsensitive: Bool)
        -> String
    {
        let flags = caseInsensitive ? 1 : 0
        let haystack = "sync_value(\(stored))"
        if let code = ViewValueRepresentation.stringOperatorCode(op) {
            let needle = bind(ViewValueRepresentation.sqlStringOperand(right))
            return "realm_strop(\(code), \(flags), \(haystack), \(needle)) = 1"
        }
        if caseInsensitive && (op == .equal || op == .notEqual) {
            let needle = bind(ViewValueRepresentation.sqlStringOperand(right))
            let equal = "realm_strop(\(QueryRuntime.opEqual), \(flags), \(haystack), \(needle)) = 1"
            return op == .equal ? equal : "(\(equal)) IS NOT 1"
        }
        if ViewValueRepresentation.isNaN(right) { return op == .notEqual ? "1" : "0" }
        let (value, tag) = ViewValueRepresentation.tagged(right)
        guard let condition = QueryCompareOp(rawValue: op.rawValue)?.realmCmpCondition else { return "0" }
        return "realm_cmp(\(haystack), sync_tag(\(stored)), \(bind(value)), \(tag)) \(condition)"
    }
}
