import RealmSync
import RealmTestSupport

/// The view simulation's random rules and subscriptions (issue 16): per seed, each synced class
/// gets read and write rules (constants, comparisons of queryable fields, `$user`), or none
/// (private per user); each replica's subscription sets pick some classes with queries of the
/// subset, and now and then a query the server must refuse.
enum SimulationRules {
    static let users = ["ann", "bob", "cy"]

    /// The fields subscriptions and rules may query, beside the primary key.
    static let queryable: [String: [String]] = [
        "Item": ["name", "count", "author"], "Entry": ["group", "of", "author"],
    ]

    private static let itemRules = [
        "author == $user", "count < 5", "name == 'a' OR name == 'b'", "author != $user AND count >= 2",
        "author == $user OR count > 6",
    ]
    private static let entryRules = ["author == $user", "of <= 3", "author == $user OR of == 4"]

    private static let itemQueries = [
        "TRUEPREDICATE", "count < 6", "count >= 3", "name == 'a'", "name != 'c'", "author == 'ann'",
        "author == 'bob' OR count > 4", "name IN {'b', 'd'}",
    ]
    private static let entryQueries = ["TRUEPREDICATE", "of >= 3", "author == 'cy'", "author != 'ann' OR of == 2"]
    /// Outside the subset (a list field): the server answers `queryError`, the set ends in `error`.
    static let refusedQuery = SubscriptionQuery(className: "Item", query: "tags == 'a'")

    static func rules(_ random: inout SplitMix64) -> SyncRules {
        var permissions: [String: SyncRules.ClassRules] = [:]
        for (className, queries) in [("Entry", entryRules), ("Item", itemRules)] {
            // One class in four has no rules: private to each object's creator.
            if pick(4, &random) == 0 { continue }
            permissions[className] = SyncRules.ClassRules(
                read: rule(queries, &random, falsePercent: 5), write: rule(queries, &random, falsePercent: 10))
        }
        return SyncRules(queryable: queryable, permissions: permissions)
    }

    private static func rule(_ queries: [String], _ random: inout SplitMix64, falsePercent: Int) -> SyncRules.Rule {
        let roll = pick(100, &random)
        if roll < falsePercent { return .always(false) }
        if roll < 45 { return .always(true) }
        return .query(queries[pick(queries.count, &random)])
    }

    /// A subscription set: each class subscribed with one or two queries, or not (at least one
    /// class); now and then (`refusedPercent`) with a query the server refuses.
    static func subscriptions(_ random: inout SplitMix64, refusedPercent: Int) -> [SubscriptionQuery] {
        var set: [SubscriptionQuery] = []
        while set.isEmpty {
            for (className, queries) in [("Item", itemQueries), ("Entry", entryQueries)] where pick(100, &random) < 75 {
                for _ in 0..<(1 + pick(2, &random)) {
                    set.append(SubscriptionQuery(className: className, query: queries[pick(queries.count, &random)]))
                }
            }
        }
        if pick(100, &random) < refusedPercent { set.append(refusedQuery) }
        return set
    }

    private static func pick(_ bound: Int, _ random: inout SplitMix64) -> Int { Int(random.next() % UInt64(bound)) }
}
