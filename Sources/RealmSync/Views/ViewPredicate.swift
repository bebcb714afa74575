/// A query of the subset sync evaluates (docs/SYNC.md "Rules in the plugin"): comparisons of one
/// class's queryable top-level fields (or its primary key) with constants or the session's user,
/// combined with AND, OR and NOT. Subscriptions and permission rules compile to it
/// (`ViewQueryCompiler`); the server evaluates it in memory (`matches`), both to route changes and,
/// over each store's pages of objects (`ViewScan`), for bootstraps.
///
/// `BETWEEN` and `IN {…}` compile to AND / OR of comparisons, so nothing else needs to know them.
public indirect enum ViewPredicate: Hashable, Sendable {
    case constant(Bool)
    case and([ViewPredicate])
    case or([ViewPredicate])
    case not(ViewPredicate)
    /// `field op operand`. `caseInsensitive` is `[c]`: on `==`, `!=` and the string operators.
    case compare(field: String, ViewComparison, ViewOperand, caseInsensitive: Bool)
    /// The object was created by the session's user: the rule of a class without permissions
    /// (private per user). The server records each object's creator.
    case createdByUser
}

/// The comparisons of the subset.
public enum ViewComparison: String, Hashable, Sendable, CaseIterable {
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
}

/// The right side of a comparison: a constant, or `$user`, the name of the session's user.
public enum ViewOperand: Hashable, Sendable {
    case value(SyncValue)
    case user
}

/// What a predicate is evaluated against: one object's top-level fields and who created it.
public struct ViewSubject {
    /// The value of a top-level field (the field's default when it was never written).
    public var field: (String) -> SyncValue
    /// The user who created the object.
    public var creator: String

    public init(creator: String, field: @escaping (String) -> SyncValue) {
        self.creator = creator
        self.field = field
    }
}
