import RealmDatabase

/// What one session sees (docs/SYNC.md "Views"): per subscribed class, the union of the
/// subscriptions' queries on it, intersected with the user's read rule. An object is in the view
/// when it exists and its class's predicate holds for it.
struct SessionView {
    /// The subscription set this view was compiled from.
    var queryVersion: Int64
    /// Per subscribed class.
    var predicates: [String: ViewPredicate]
    /// The subscription set itself: what a server sharing its store hands the integrator with an
    /// upload, to be compiled again there (docs/SYNC.md "Several servers on one store").
    var query = QuerySet(version: 0, subscriptions: [])

    var classes: Set<String> { Set(predicates.keys) }

    /// The view of `set` for `user`. Throws `SyncError(.badQuery)` naming the subscription when a
    /// class does not sync or a query is outside the subset.
    static func compile(_ set: QuerySet, user: String, rules: SyncSchemaRules, permissions: SyncPermissions?)
        throws -> SessionView
    {
        var queries: [String: [ViewPredicate]] = [:]
        for subscription in set.subscriptions {
            let className = subscription.className
            do {
                _ = try rules.syncedClass(className)
                queries[className, default: []].append(
                    try compile(subscription.query, className: className, rules: rules, permissions: permissions))
            } catch let error as SyncError {
                throw SyncError(
                    .badQuery, "cannot subscribe to '\(className)' where '\(subscription.query)': \(error.message)")
            }
        }
        var predicates: [String: ViewPredicate] = [:]
        for (className, parts) in queries {
            let union = parts.count == 1 ? parts[0] : .or(parts)
            predicates[className] = permissions.map { .and([union, $0.readRule(className)]) } ?? union
        }
        return SessionView(queryVersion: set.version, predicates: predicates, query: set)
    }

    /// One subscription's query, over the class's queryable fields: the rules' list, or, on a
    /// server without rules, every field that can be queried.
    private static func compile(
        _ query: String, className: String, rules: SyncSchemaRules, permissions: SyncPermissions?
    ) throws -> ViewPredicate {
        let queryable: Set<String>
        if let permissions {
            queryable = permissions.queryable[className] ?? Set(rules.schema[className]?.primaryKey.map { [$0] } ?? [])
        } else {
            queryable = Set(
                (rules.schema[className]?.persistedProperties ?? [])
                    .filter { ViewQueryFieldKind.refusal(of: $0) == nil }.map(\.name))
        }
        return try ViewQueryCompiler.compile(
            query, className: className, schema: rules.schema, queryable: queryable, allowsUser: false)
    }

    /// An object as predicates see it: its top-level fields (never-written ones at their default)
    /// and its creator.
    static func subject(_ ref: ObjectRef, _ stored: StoredObject, _ reader: any SyncStoreReader, rules: SyncSchemaRules)
        throws -> ViewSubject
    {
        let fields = try reader.topLevelFields(of: ref)
        let objectSchema = rules.schema[ref.className]
        return ViewSubject(creator: stored.creator) { name in
            if let value = fields[name] { return value }
            if name == objectSchema?.primaryKey { return ref.primaryKey.value }
            return objectSchema?[name].map { rules.defaultValue(of: $0) } ?? .null
        }
    }
}
