/// The sync rules of the plugins' `sync` tables, as written (docs/SYNC.md "Rules in the plugin"):
/// which fields of each class subscriptions may query, and who may read and write each class.
/// Read by the server only; a tenant's scripts never see them. `SyncPermissions` is their compiled
/// form.
public struct SyncRules: Hashable, Sendable {
    /// Per class, the fields usable in subscriptions and rules, beside the primary key.
    public var queryable: [String: [String]]
    /// Per class, its read and write rules. A class without an entry is private per user.
    public var permissions: [String: ClassRules]

    public init(queryable: [String: [String]] = [:], permissions: [String: ClassRules] = [:]) {
        self.queryable = queryable
        self.permissions = permissions
    }

    /// A class's rules: each a query over its queryable fields (`$user` the session's user), or a
    /// constant.
    public struct ClassRules: Hashable, Sendable {
        public var read: Rule
        public var write: Rule

        public init(read: Rule, write: Rule) {
            self.read = read
            self.write = write
        }
    }

    public enum Rule: Hashable, Sendable {
        case always(Bool)
        case query(String)
    }
}

/// The rules compiled against the schema: what the server evaluates. Every synced class has a read
/// and a write predicate (`.createdByUser` for a class without rules).
public struct SyncPermissions: Hashable, Sendable {
    /// Per synced class, the fields subscriptions may query (its primary key included).
    public var queryable: [String: Set<String>]
    public var read: [String: ViewPredicate]
    public var write: [String: ViewPredicate]

    public init(
        queryable: [String: Set<String>], read: [String: ViewPredicate], write: [String: ViewPredicate]
    ) {
        self.queryable = queryable
        self.read = read
        self.write = write
    }

    /// Who may read an object of `className`: its rule, or only its creator.
    public func readRule(_ className: String) -> ViewPredicate { read[className] ?? .createdByUser }
    /// Who may write an object of `className`: its rule, or only its creator.
    public func writeRule(_ className: String) -> ViewPredicate { write[className] ?? .createdByUser }
}
