/// A version of a replica's subscription set as it travels (realm-core's flexible-sync query body):
/// per subscription, a class and a query of the subset the server evaluates, as RQL text. The
/// server compiles it (`ViewQueryCompiler`); the view of a class is the union (OR) of its queries.
public struct QuerySet: Hashable, Sendable {
    /// The set's version in the replica's file (0 before any set was committed).
    public var version: Int64
    public var subscriptions: [SubscriptionQuery]

    public init(version: Int64, subscriptions: [SubscriptionQuery]) {
        self.version = version
        self.subscriptions = subscriptions
    }

    /// Every object of each class (`TRUEPREDICATE`): the view of part 1.
    public static func allObjects(of classes: [String], version: Int64 = 0) -> QuerySet {
        QuerySet(
            version: version, subscriptions: classes.map { SubscriptionQuery(className: $0, query: "TRUEPREDICATE") })
    }
}

/// One subscription: a class and the query choosing its objects.
public struct SubscriptionQuery: Hashable, Sendable {
    public var className: String
    public var query: String

    public init(className: String, query: String) {
        self.className = className
        self.query = query
    }
}
