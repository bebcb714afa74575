import Foundation
import RealmValues

/// The state of a subscription set (RealmSwift's `SyncSubscriptionState`). A local realm's committed
/// set is `complete` at once (there is nothing to download); a synced one's goes `pending` →
/// `bootstrapping` → `complete`, or `error`; `superseded` marks a set that a newer version replaced.
public enum SubscriptionState: String, Sendable {
    case pending, bootstrapping, complete, error, superseded
}

/// One flexible-sync subscription: a class and a query, optionally named.
public struct SyncSubscription: Equatable, Sendable {
    public let name: String?
    public let objectClassName: String
    public let queryString: String
    public let createdAt: Timestamp
    public let updatedAt: Timestamp
}

/// A subscription to append: `QuerySubscription(className: "Dog", name: "dogs", query: "age > 3")`.
/// The query defaults to every object of the class.
public struct QuerySubscription: Sendable {
    public var name: String?
    public var className: String
    public var query: String
    public init(className: String, name: String? = nil, query: String = "TRUEPREDICATE") {
        self.className = className
        self.name = name
        self.query = query
    }
}

/// A realm's subscriptions (RealmSwift's `SyncSubscriptionSet`), stored in the realm file in
/// `_realm_subscriptions`. Read anywhere; changed only inside `update { }`, as a whole.
public final class SubscriptionSet: Sequence {
    let realm: Realm
    /// The version of the set this instance was read at; its own `update` moves it on.
    public private(set) var version: Int64
    private var subscriptions: [SyncSubscription]

    init(realm: Realm) throws {
        self.realm = realm
        version = try SubscriptionStore.version(realm)
        subscriptions = try SubscriptionStore.all(realm)
    }

    /// Reads the set again, at the latest version.
    private func reload() throws {
        version = try SubscriptionStore.version(realm)
        subscriptions = try SubscriptionStore.all(realm)
    }

    public var count: Int { subscriptions.count }
    public var isEmpty: Bool { subscriptions.isEmpty }
    public subscript(index: Int) -> SyncSubscription { subscriptions[index] }
    public func makeIterator() -> IndexingIterator<[SyncSubscription]> { subscriptions.makeIterator() }

    /// The subscription with this name, or nil.
    public func first(named name: String) -> SyncSubscription? { subscriptions.first { $0.name == name } }

    /// The first subscription on a class with this query text, or nil.
    public func first(ofType className: String, where query: String) -> SyncSubscription? {
        subscriptions.first { $0.objectClassName == className && $0.queryString == query }
    }

    /// The subscription `identity` names: the one with that name, or the unnamed one on that class
    /// and query.
    public func first(_ identity: SubscriptionIdentity) -> SyncSubscription? {
        switch identity {
        case .named(let name): first(named: name)
        case .unnamed(let className, let query):
            subscriptions.first { $0.name == nil && $0.objectClassName == className && $0.queryString == query }
        }
    }

    /// `superseded` once a newer version has been committed; `error` when the server refused this
    /// one (`errorMessage` says why); otherwise `complete` for a local realm, and for a synced one
    /// what its server said so far: `pending`, `bootstrapping`, `complete` (`SubscriptionProgress`).
    /// A file that cannot be read reports what this instance last knew: its own version, complete.
    public var state: SubscriptionState {
        let latest = (try? SubscriptionStore.version(realm)) ?? version
        let progress = (try? realm.subscriptionProgress()) ?? SubscriptionProgress(complete: version)
        return progress.state(of: version, latest: latest, awaitsServer: realm.subscriptionsAwaitServer)
    }

    /// Why the server refused this version, when `state` is `error`.
    public var errorMessage: String? {
        guard state == .error else { return nil }
        return (try? realm.subscriptionProgress())?.errorMessage
    }

    /// Changes the set: every change inside `block` is applied together, or (if it throws) none is.
    /// Inside a write transaction it joins it (as a savepoint); otherwise it commits its own.
    /// Afterwards this instance shows the new version, as RealmSwift's `SyncSubscriptionSet`
    /// does (`testAddSubscriptionsInDifferentBlocks` reads `count` on the same object).
    public func update(_ block: (MutableSubscriptionSet) throws -> Void) throws {
        if realm.isFrozen { throw RealmError.frozenRealmWrite }
        try realm.writeImplicitly {
            try realm.withSavepoint {
                try SubscriptionStore.ensureTable(realm)
                let mutable = MutableSubscriptionSet(realm: realm)
                defer { mutable.isOpen = false }
                try block(mutable)
                try MetaTable(realm.connection).incrementSubscriptionsVersion()
            }
        }
        try reload()
    }
}

/// Which subscription, as `Results` remember the one they made: a name, or for an unnamed one its
/// class and query (an unnamed subscription is unique by those).
public enum SubscriptionIdentity: Equatable, Sendable {
    case named(String)
    case unnamed(className: String, query: String)
}

/// The set as seen inside `update { }`.
public final class MutableSubscriptionSet {
    let realm: Realm
    var isOpen = true

    init(realm: Realm) { self.realm = realm }

    private func checkOpen() throws {
        guard isOpen else {
            throw RealmError(
                .subscription, "Can only add, remove, or update subscriptions within a write subscription block.")
        }
    }

    /// The subscriptions as they stand in this update.
    public var subscriptions: [SyncSubscription] { (try? SubscriptionStore.all(realm)) ?? [] }
    public var count: Int { subscriptions.count }
    public func first(named name: String) -> SyncSubscription? { subscriptions.first { $0.name == name } }
    public func first(ofType className: String, where query: String) -> SyncSubscription? {
        subscriptions.first { $0.objectClassName == className && $0.queryString == query }
    }

    /// Adds a subscription. A taken name is an error; an unnamed subscription identical to an
    /// existing unnamed one only refreshes its `updatedAt`. The query is checked against the schema.
    public func append(_ subscription: QuerySubscription) throws {
        try checkOpen()
        _ = try realm.objects(subscription.className).filter(subscription.query)
        let now = SQLiteValue.integer(Timestamp.now.storedNanoseconds ?? 0)
        if let name = subscription.name {
            if first(named: name) != nil {
                throw RealmError(
                    .subscription,
                    "A subscription named '\(name)' already exists. "
                        + "If you meant to update the existing subscription please use the `update` method."
                )
            }
        } else if try realm.connection.scalarInt(
            "SELECT id FROM _realm_subscriptions WHERE name IS NULL AND object_class = ? AND query = ?",
            [.text(subscription.className), .text(subscription.query)]) != nil
        {
            try realm.connection.run(
                "UPDATE _realm_subscriptions SET updated_at = ? WHERE name IS NULL AND object_class = ? AND query = ?",
                [now, .text(subscription.className), .text(subscription.query)])
            return
        }
        try realm.connection.run(
            "INSERT INTO _realm_subscriptions (name, object_class, query, created_at, updated_at) "
                + "VALUES (?, ?, ?, ?, ?)",
            [
                subscription.name.map { .text($0) } ?? .null, .text(subscription.className), .text(subscription.query),
                now, now,
            ])
    }

    /// Replaces the query of a named subscription, or adds it (core's `insert_or_assign`).
    public func update(named name: String, className: String, query: String) throws {
        try checkOpen()
        _ = try realm.objects(className).filter(query)
        let now = SQLiteValue.integer(Timestamp.now.storedNanoseconds ?? 0)
        if first(named: name) == nil {
            try append(QuerySubscription(className: className, name: name, query: query))
        } else {
            try realm.connection.run(
                "UPDATE _realm_subscriptions SET object_class = ?, query = ?, updated_at = ? WHERE name = ?",
                [.text(className), .text(query), now, .text(name)])
        }
    }

    /// Removes the subscription with this name; no error when there is none.
    public func remove(named name: String) throws {
        try checkOpen()
        try realm.connection.run("DELETE FROM _realm_subscriptions WHERE name = ?", [.text(name)])
    }

    /// Removes the subscriptions on a class with this query.
    public func remove(ofType className: String, where query: String) throws {
        try checkOpen()
        try realm.connection.run(
            "DELETE FROM _realm_subscriptions WHERE object_class = ? AND query = ?", [.text(className), .text(query)])
    }

    /// Removes the unnamed subscription on a class with this query, leaving named ones on it.
    public func removeUnnamed(ofType className: String, where query: String) throws {
        try checkOpen()
        try realm.connection.run(
            "DELETE FROM _realm_subscriptions WHERE name IS NULL AND object_class = ? AND query = ?",
            [.text(className), .text(query)])
    }

    /// Removes every subscription on a class.
    public func removeAll(ofType className: String) throws {
        try checkOpen()
        try realm.connection.run("DELETE FROM _realm_subscriptions WHERE object_class = ?", [.text(className)])
    }

    /// Removes every subscription (or only the unnamed ones).
    public func removeAll(unnamedOnly: Bool = false) throws {
        try checkOpen()
        try realm.connection.run(
            unnamedOnly ? "DELETE FROM _realm_subscriptions WHERE name IS NULL" : "DELETE FROM _realm_subscriptions")
    }
}

/// The SQL behind subscriptions.
enum SubscriptionStore {
    static func ensureTable(_ realm: Realm) throws {
        try realm.connection.execute(
            """
            CREATE TABLE IF NOT EXISTS _realm_subscriptions (
                id INTEGER PRIMARY KEY, name TEXT UNIQUE, object_class TEXT NOT NULL, query TEXT NOT NULL,
                created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)
            """)
    }

    static func hasTable(_ realm: Realm) throws -> Bool {
        (try realm.connection.scalarInt(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_realm_subscriptions'") ?? 0) > 0
    }

    static func version(_ realm: Realm) throws -> Int64 {
        try MetaTable(realm.connection).subscriptionsVersion()
    }

    static func all(_ realm: Realm) throws -> [SyncSubscription] {
        guard try hasTable(realm) else { return [] }
        var out = [SyncSubscription]()
        try realm.connection.forEachRow(
            "SELECT name, object_class, query, created_at, updated_at FROM _realm_subscriptions ORDER BY id"
        ) { s in
            out.append(
                SyncSubscription(
                    name: s.isNull(at: 0) ? nil : s.string(at: 0), objectClassName: s.string(at: 1),
                    queryString: s.string(at: 2),
                    createdAt: Timestamp(storedNanoseconds: s.int64(at: 3)),
                    updatedAt: Timestamp(storedNanoseconds: s.int64(at: 4))))
        }
        return out
    }
}

extension Realm {
    /// The realm's flexible-sync subscriptions, at their latest version.
    public var subscriptions: SubscriptionSet {
        get throws { try SubscriptionSet(realm: self) }
    }

    /// Runs `block` inside a savepoint of the open write transaction: if it throws, its changes
    /// alone are undone and the transaction goes on.
    func withSavepoint<T>(_ block: () throws -> T) throws -> T {
        try checkWritable()
        do {
            return try connection.inSavepoint(block)
        } catch {
            noteLocalChange()
            throw error
        }
    }
}
