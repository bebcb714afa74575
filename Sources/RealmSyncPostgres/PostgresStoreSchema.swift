import RealmSync

/// The tables of `PostgresSyncStore`: those of the SQLite store (`SQLiteSyncStore`), with the same
/// meaning, in PostgreSQL's types. Unsigned numbers are BIGINT bit for bit; field paths (names joined
/// by U+0001) and map keys are BYTEA, since PostgreSQL text cannot hold every string a client sends.
///
/// Each entry of `migrations` takes the schema from its index to the next version; the version
/// reached is the `schema_version` row of `meta`. Opening a store runs the missing ones under an
/// advisory lock, so several servers opening one database at once upgrade it once.
///
/// Version 2 adds the `inbox` of several servers sharing the store (docs/SYNC.md "Several servers on
/// one store"): uploads keyed by (client file, last client version), written by any server, drained
/// by the integrator, which records each outcome; the integrator's advisory lock and LISTEN/NOTIFY
/// need no table. Version 3 indexes the held log by server
/// version instead of by sequence number.
enum PostgresStoreSchema {
    static let version = Int64(migrations.count)

    /// The key of the advisory lock taken while the schema is created or upgraded.
    static let upgradeLock: Int64 = 0x5265_616C_6D53_0001
    /// The key of the advisory lock taken while a client file id is allocated.
    static let clientAllocationLock: Int64 = 0x5265_616C_6D53_0002
    /// The key of the advisory lock whose holder is the integrator (`PostgresCoordination`).
    static let integratorLock: Int64 = 0x5265_616C_6D53_0003
    /// The channels of LISTEN/NOTIFY: uploads put in the inbox, and uploads settled (the history moved).
    static let inboxChannel = "realmhost_inbox"
    static let historyChannel = "realmhost_history"

    static let migrations: [String] = [
        // 1: the SQLite store's tables.
        """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value BIGINT NOT NULL);
        CREATE TABLE objects(
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, class TEXT NOT NULL, pk BYTEA NOT NULL,
            live BOOLEAN NOT NULL, erased_at BIGINT NOT NULL, erased_by BIGINT NOT NULL, creator TEXT NOT NULL,
            created_at BIGINT NOT NULL, UNIQUE(class, pk));
        CREATE INDEX objects_by_class ON objects(class, live, id);
        CREATE TABLE fields(
            object BIGINT NOT NULL, path BYTEA NOT NULL, value BYTEA, clock BIGINT NOT NULL, client BIGINT NOT NULL,
            replaced_at BIGINT NOT NULL, replaced_by BIGINT NOT NULL, PRIMARY KEY(object, path));
        CREATE TABLE list_elements(
            object BIGINT NOT NULL, field TEXT NOT NULL, clock BIGINT NOT NULL, client BIGINT NOT NULL,
            idx BIGINT NOT NULL, position BYTEA NOT NULL, position_clock BIGINT NOT NULL,
            position_client BIGINT NOT NULL, value BYTEA NOT NULL, value_clock BIGINT NOT NULL,
            value_client BIGINT NOT NULL, erased BOOLEAN NOT NULL, PRIMARY KEY(object, field, clock, client, idx));
        CREATE TABLE list_clears(
            object BIGINT NOT NULL, field TEXT NOT NULL, clock BIGINT NOT NULL, client BIGINT NOT NULL,
            PRIMARY KEY(object, field));
        CREATE TABLE set_entries(
            object BIGINT NOT NULL, field TEXT NOT NULL, value BYTEA NOT NULL, present BOOLEAN NOT NULL,
            clock BIGINT NOT NULL, client BIGINT NOT NULL, PRIMARY KEY(object, field, value));
        CREATE TABLE map_entries(
            object BIGINT NOT NULL, field TEXT NOT NULL, key BYTEA NOT NULL, value BYTEA, clock BIGINT NOT NULL,
            client BIGINT NOT NULL, PRIMARY KEY(object, field, key));
        CREATE TABLE history(
            server_version BIGINT PRIMARY KEY, client_file_id BIGINT NOT NULL, client_version BIGINT NOT NULL,
            based_on BIGINT NOT NULL, clock BIGINT NOT NULL, original BYTEA NOT NULL, kept BYTEA NOT NULL);
        CREATE INDEX history_by_client ON history(client_file_id, server_version);
        CREATE TABLE clients(
            file_id BIGINT PRIMARY KEY, salt BIGINT NOT NULL, last_client_version BIGINT NOT NULL,
            user_name TEXT NOT NULL);
        CREATE TABLE held(file_id BIGINT NOT NULL, object BIGINT NOT NULL, PRIMARY KEY(file_id, object));
        CREATE INDEX held_by_object ON held(object, file_id);
        CREATE TABLE held_log(
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, file_id BIGINT NOT NULL, object BIGINT NOT NULL,
            server_version BIGINT NOT NULL, query_version BIGINT NOT NULL, held BOOLEAN NOT NULL);
        CREATE INDEX held_log_by_file ON held_log(file_id, seq);
        CREATE INDEX held_log_by_object ON held_log(file_id, object);
        """,
        // 2: the inbox of several servers on one store (any server adds, the integrator settles).
        """
        CREATE TABLE inbox(
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, client_file_id BIGINT NOT NULL,
            last_client_version BIGINT NOT NULL, body BYTEA NOT NULL, outcome BYTEA, settled_at BIGINT,
            UNIQUE(client_file_id, last_client_version));
        CREATE INDEX inbox_unsettled ON inbox(id) WHERE settled_at IS NULL;
        """,
        // 3: a file's held log by server version rather than by sequence number: forgetting what a
        // replica confirmed read the file's whole log; a rewind reads the versions after a position
        // and orders those few by sequence, and a reset deletes by file alone.
        """
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
        for step in Int(current)..<migrations.count {
            // One statement at a time: postgres-nio prepares each query, and a prepared statement is one.
            for statement in migrations[step].split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
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
