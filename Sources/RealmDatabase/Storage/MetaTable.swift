import RealmValues

/// The `_realm_meta` table: one row per key, the realm's own record of itself. This type is the
/// only code that names the table or its keys; every other file reads and writes it through here.
///
/// | key | value |
/// |---|---|
/// | `format` | `StorageLayout.formatMagic`: marks the file as a realm |
/// | `schema` | the stored schema, as JSON |
/// | `schemaVersion` | the schema version, a `UInt64` stored by its bit pattern in SQLite's `Int64` |
/// | `version` | the commit counter, bumped by every write transaction |
/// | `subscriptionsVersion` | bumped by every change of the subscription set (absent until the first) |
/// | `subscriptionsComplete` | a synced realm's last subscription set version the server completed |
/// | `subscriptionsBootstrapping` | the version whose bootstrap is arriving (absent when none) |
/// | `subscriptionsError`, `subscriptionsErrorMessage` | the version the server refused, and why |
///
/// How decimal128 values are stored is SQLite's `user_version` of the file (read through here too):
/// 0 in files that stored them as text, `currentDecimalFormat` since. It is not a row, so the table
/// keeps the rows files have always had.
struct MetaTable {
    let connection: SQLiteConnection

    init(_ connection: SQLiteConnection) { self.connection = connection }

    private enum Key: String {
        case format, schema, schemaVersion, version, subscriptionsVersion
        case subscriptionsComplete, subscriptionsBootstrapping, subscriptionsError, subscriptionsErrorMessage
    }

    /// The decimal format this code writes: `Decimal128.storedBytes`.
    static let currentDecimalFormat: Int64 = 2

    // MARK: Existence and creation

    /// Whether the file holds the table (committed, or created by this connection's transaction).
    func exists() throws -> Bool {
        let sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_realm_meta'"
        return try connection.scalarInt(sql) ?? 0 > 0
    }

    /// Creates the table of a new realm, inside the caller's transaction.
    func create(schemaJSON: String, schemaVersion: UInt64) throws {
        try connection.execute("CREATE TABLE _realm_meta (key TEXT PRIMARY KEY, value)")
        let insert = "INSERT INTO _realm_meta VALUES ('format', ?), ('schemaVersion', ?), ('version', 0), ('schema', ?)"
        try connection.run(insert, [.text(StorageLayout.formatMagic), Self.encode(schemaVersion), .text(schemaJSON)])
        try setDecimalFormat(Self.currentDecimalFormat)
    }

    // MARK: Typed values

    /// The format marker; nil when absent or not text.
    func format() throws -> String? {
        guard case .text(let text)? = try value(.format) else { return nil }
        return text
    }

    /// The stored schema's JSON; nil when absent or not text.
    func schemaJSON() throws -> String? {
        guard case .text(let text)? = try value(.schema) else { return nil }
        return text
    }

    func setSchemaJSON(_ json: String) throws {
        try set(.schema, .text(json))
    }

    /// The schema version: read back by the same bit pattern it was written with, so every
    /// `UInt64` (2^63 and above too) survives a round trip. Absent reads as 0.
    func schemaVersion() throws -> UInt64 {
        guard case .integer(let stored)? = try value(.schemaVersion) else { return 0 }
        return UInt64(bitPattern: stored)
    }

    func setSchemaVersion(_ version: UInt64) throws {
        try set(.schemaVersion, Self.encode(version))
    }

    /// The commit counter.
    func version() throws -> Int64 {
        guard case .integer(let stored)? = try value(.version) else { return 0 }
        return stored
    }

    /// Bumps the commit counter (inside the caller's write transaction); returns its new value.
    @discardableResult
    func incrementVersion() throws -> Int64 {
        try connection.scalarInt("UPDATE _realm_meta SET value = value + 1 WHERE key = 'version' RETURNING value") ?? 0
    }

    /// The subscription set's version: 0 before its first change.
    func subscriptionsVersion() throws -> Int64 {
        guard case .integer(let stored)? = try value(.subscriptionsVersion) else { return 0 }
        return stored
    }

    func incrementSubscriptionsVersion() throws {
        try connection.run(
            """
            INSERT INTO _realm_meta (key, value) VALUES ('subscriptionsVersion', 1)
            ON CONFLICT(key) DO UPDATE SET value = value + 1
            """)
    }

    /// What a sync client recorded of the subscription set's versions (`SubscriptionProgress`).
    func subscriptionProgress() throws -> SubscriptionProgress {
        func number(_ key: Key) throws -> Int64? {
            guard case .integer(let stored)? = try value(key) else { return nil }
            return stored
        }
        var errorMessage: String?
        if case .text(let text)? = try value(.subscriptionsErrorMessage) { errorMessage = text }
        return SubscriptionProgress(
            complete: try number(.subscriptionsComplete) ?? 0, bootstrapping: try number(.subscriptionsBootstrapping),
            errorVersion: try number(.subscriptionsError), errorMessage: errorMessage)
    }

    /// Stores `progress` (inside the caller's write transaction); absent values remove their rows.
    func setSubscriptionProgress(_ progress: SubscriptionProgress) throws {
        try put(.subscriptionsComplete, .integer(progress.complete))
        try put(.subscriptionsBootstrapping, progress.bootstrapping.map { .integer($0) })
        try put(.subscriptionsError, progress.errorVersion.map { .integer($0) })
        try put(.subscriptionsErrorMessage, progress.errorMessage.map { .text($0) })
    }

    /// How the file stores decimal128 values: 0 (text) for files written before the marker existed.
    func decimalFormat() throws -> Int64 {
        try connection.scalarInt("PRAGMA user_version") ?? 0
    }

    /// Inside the caller's transaction (the pragma is transactional, like any header write).
    func setDecimalFormat(_ format: Int64) throws {
        try connection.execute("PRAGMA user_version = \(format)")
    }

    // MARK: Raw access

    private func value(_ key: Key) throws -> SQLiteValue? {
        try connection.scalar("SELECT value FROM _realm_meta WHERE key = ?", [.text(key.rawValue)])
    }

    private func set(_ key: Key, _ value: SQLiteValue) throws {
        try connection.run("UPDATE _realm_meta SET value = ? WHERE key = ?", [value, .text(key.rawValue)])
    }

    /// Inserts or replaces the row of `key`; nil deletes it (rows that older files never had).
    private func put(_ key: Key, _ value: SQLiteValue?) throws {
        guard let value else {
            try connection.run("DELETE FROM _realm_meta WHERE key = ?", [.text(key.rawValue)])
            return
        }
        try connection.run(
            "INSERT INTO _realm_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [.text(key.rawValue), value])
    }

    private static func encode(_ version: UInt64) -> SQLiteValue { .integer(Int64(bitPattern: version)) }
}
