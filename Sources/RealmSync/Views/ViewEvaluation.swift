/// The in-memory evaluator of `ViewPredicate`, which routing and permission checks run for every
/// changed object. It must agree exactly with the local query engine and with each store's
/// translation (tests compare them on random data).
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

/// One comparison with Realm's semantics.
enum ViewComparisonEvaluation {
    static func holds(_ left: SyncValue, _ op: ViewComparison, _ right: SyncValue, caseInsensitive: Bool) -> Bool {
        switch op {
        case .equal: return left == right
        case .notEqual: return left != right
        default: return false
        }
    }
}
