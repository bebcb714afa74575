import RealmDatabase
import RealmQuery

/// The in-memory evaluator of `ViewPredicate`, which routing and permission checks run for every
/// changed object. It must agree exactly with the local query engine and with each store's
/// translation (tests compare them on random data): it runs the local engine's own comparison
/// functions on the values as `ViewValueRepresentation` gives them.
extension ViewPredicate {
    /// Whether `subject` satisfies the predicate for the session of `user`.
    public func matches(_ subject: ViewSubject, user: String) -> Bool {
        switch self {
        case .constant(let value): return value
        case .and(let parts): return parts.allSatisfy { $0.matches(subject, user: user) }
        case .or(let parts): return parts.contains { $0.matches(subject, user: user) }
        case .not(let inner): return !inner.matches(subject, user: user)
        case .createdByUser: return subject.creator == user
        case .compare(let field, let op, let operand, let caseInsensitive):
            let right: SyncValue
            switch operand {
            case .value(let v): right = v
            case .user: right = .string(user)
            }
            return ViewComparisonEvaluation.holds(subject.field(field), op, right, caseInsensitive: caseInsensitive)
        }
    }
}

/// One comparison with Realm's semantics, as the local query engine evaluates it.
enum ViewComparisonEvaluation {
    static func holds(_ left: SyncValue, _ op: ViewComparison, _ right: SyncValue, caseInsensitive: Bool) -> Bool {
        // String operands only for the string operators and `[c]` equality (this runs per changed
        // object per view and rule).
        func strings(_ code: Int64) -> Bool {
            QueryRuntime.stringOp(
                code, flags: caseInsensitive ? 1 : 0, haystack: ViewValueRepresentation.stringOperand(left),
                needle: ViewValueRepresentation.stringOperand(right))
        }
        if let code = ViewValueRepresentation.stringOperatorCode(op) { return strings(code) }
        if caseInsensitive && (op == .equal || op == .notEqual) {
            let equal = strings(QueryRuntime.opEqual)
            return op == .equal ? equal : !equal
        }
        if ViewValueRepresentation.isNaN(right) { return op == .notEqual }
        let (a, ta) = ViewValueRepresentation.tagged(left)
        let (b, tb) = ViewValueRepresentation.tagged(right)
        return ViewValueRepresentation.satisfies(QueryRuntime.compare(a, tag: ta, b, tag: tb), op)
    }
}
