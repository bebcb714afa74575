import RealmSync

/// The tables of `PostgresSyncStore`: `StoreSchema`'s, the SQLite store's, in PostgreSQL's types
/// (`StoreDialect.postgres`). Unsigned numbers are BIGINT bit for bit; field paths (names joined by
/// U+0001) and map keys are BYTEA, since PostgreSQL text cannot hold every string a client sends.
///
/// The version reached is the `schema_version` row of `meta`. A new database gets `StoreSchema`'s
/// tables at once, at `version`; one of an earlier version runs the `upgrades` after it. Both run
/// under an advisory lock, so several servers opening one database at once create or upgrade it once.
///
/// Version 2 added the `inbox` of several servers sharing the store (docs/SYNC.md "Several servers on
/// one store"): uploads keyed by (client file, last client version), written by any server, drained
/// by the integrator, which records each outcome; the integrator's advisory lock and LISTEN/NOTIFY
/// need no table. Version 3 indexes the held log by server version instead of by sequence number.
enum PostgresStoreSchema {
    /// The key of the advisory lock taken while the schema is created or upgraded.
    static let upgradeLock: Int64 = 0x5265_616C_6D53_0001
    /// The key of the advisory lock taken while a client file id is allocated.
    static let clientAllocationLock: Int64 = 0x5265_616C_6D53_0002
    /// The key of the advisory lock whose holder is the integrator (`PostgresCoordination`).
    static let integratorLock: Int64 = 0x5265_616C_6D53_0003
    /// The channels of LISTEN/NOTIFY: uploads put in the inbox, and uploads settled (the history moved).
    static let inboxChannel = "realmhost_inbox"
    static let historyChannel = "realmhost_history"

    static let version: Int64 = 3

    /// `upgrades[v]` takes a database of version `v` to `v + 1`.
    static let upgrades: [Int64: String] = [
        // 2: the inbox of several servers on one store (any server adds, the integrator settles).
        1: """
        CREATE TABLE inbox(
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, client_file_id BIGINT NOT NULL,
            last_client_version BIGINT NOT NULL, body BYTEA NOT NULL, outcome BYTEA, settled_at BIGINT,
            UNIQUE(client_file_id, last_client_version));
        CREATE INDEX inbox_unsettled ON inbox(id) WHERE settled_at IS NULL;
        """,
        // 3: a file's held log by server version rather than by sequence number: forgetting what a
        // replica confirmed read the file's whole log; a rewind reads the versions after a position
        // and orders those few by sequence, and a reset deletes by file alone.
        2: """
        DROP INDEX held_log_by_file;
        CREATE INDEX held_log_by_version ON held_log(file_id, server_version);
        """,
    ]

    /// Creates or upgrades the schema of the database `connection` is on, and records `historySalt`
    /// when the store is new. Refuses a schema newer than this build knows.
    static func prepare(_ connection: BlockingPostgresConnection, historySalt: UInt64) throws {
        try connection.query("BEGIN", [], "beginning the schema upgrade")
        do {
            try upgrade(connection, historySalt: historySalt)
            try connection.query("COMMIT", [], "committing the schema upgrade")
        } catch {
            _ = try? connection.query("ROLLBACK", [], "rolling back the schema upgrade")
            throw error
        }
    }

    private static func upgrade(_ connection: BlockingPostgresConnection, historySalt: UInt64) throws {
        try connection.query("SELECT pg_advisory_xact_lock($1)", [.int(upgradeLock)], "locking the schema upgrade")
        let current = try installedVersion(connection)
        guard current >= 0, current <= version else {
            throw SyncStoreError(
                "the PostgreSQL store \(connection.location) has schema version \(current); this realm-host knows "
                    + "versions up to \(version)")
        }
        // One statement at a time: postgres-nio prepares each query, and a prepared statement is one.
        if current == 0 {
            for statement in StoreSchema.creation(in: .postgres) {
                try connection.query(statement, [], "creating the store's tables")
            }
        }
        for step in (current == 0 ? version : current)..<version {
            guard let upgrade = upgrades[step] else {
                throw SyncStoreError("this realm-host cannot upgrade a PostgreSQL store of schema version \(step)")
            }
            for statement in upgrade.split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
                try connection.query(String(statement), [], "upgrading the schema to version \(step + 1)")
            }
        }
        try connection.query(
            "INSERT INTO meta(key, value) VALUES ('schema_version', $1) "
                + "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [.int(version)], "recording the schema version")
        try connection.query(
            "INSERT INTO meta(key, value) VALUES ('history_salt', $1) ON CONFLICT(key) DO NOTHING",
            [.u64(historySalt)], "recording the history salt")
    }

    /// 0 when the database has no store yet.
    private static func installedVersion(_ connection: BlockingPostgresConnection) throws -> Int64 {
        let exists = try connection.rows("SELECT to_regclass('meta') IS NOT NULL", [], "looking for the store")
        guard try exists.first?.bool(0) == true else { return 0 }
        return try connection.rows(
            "SELECT value FROM meta WHERE key = 'schema_version'", [], "reading the schema version"
        ).first?.int(0) ?? 0
    }
}

extension StoreDialect {
    /// PostgreSQL's: BIGINT numbers, BOOLEAN booleans, BYTEA for bytes and for key texts (a text
    /// cannot hold a NUL), identity columns for row numbers.
    static let postgres = StoreDialect(
        typeName: { type in
            switch type {
            case .rowID: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
            case .integer: "BIGINT"
            case .boolean: "BOOLEAN"
            case .text: "TEXT"
            case .bytes, .keyText: "BYTEA"
            }
        },
        tableWithoutRowID: "")
}
