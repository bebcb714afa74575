import CSQLite
import Foundation
import RealmDatabase

/// The default sync store: one SQLite file (`sync.sqlite` in the server's data folder), in WAL mode
/// with `synchronous=FULL`, so an acknowledged integration survives a power cut. One integrator
/// writes at a time; group commit (many changesets per transaction) keeps it past the fsync limit.
/// It runs on RealmDatabase's `SQLiteConnection` (statements cached, transactions and savepoints).
///
/// Not thread-safe: the server engine that owns it serializes every call.
public final class SQLiteSyncStore: SyncStore {
    private let connection: SQLiteConnection
    /// Per synced class, the default of each single-valued field: what a view query reads for a
    /// field never written (the integrator writes them all on creation; a field added to the schema
    /// later has none). Without a schema such a field reads as null.
    private let fieldDefaults: [String: [String: SyncValue]]

    /// Opens (or creates) the store at `path`. `historySalt` is recorded when the file is created.
    public convenience init(
        path: String, historySalt: UInt64 = UInt64.random(in: 1...UInt64.max), schema: Schema? = nil
    ) throws {
        try self.init(path: path, historySalt: historySalt, schema: schema, waitsForTheDisk: true)
    }

    /// `waitsForTheDisk` false: each integration is left with the operating system, not waited on
    /// to the disk (`Realm.Configuration.waitsForTheDisk`: the simulation's stores only).
    package init(path: String, historySalt: UInt64, schema: Schema?, waitsForTheDisk: Bool) throws {
        fieldDefaults = schema.map(StoreFieldDefaults.of) ?? [:]
        do {
            connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            // Another connection to the file (servers sharing it in one process, an operator's
            // reader) holds its write lock only for one integration: wait for it.
            connection.setBusyTimeout(milliseconds: Self.busyTimeoutMilliseconds)
            // View queries compare with the local query engine's functions.
            QueryFunctions.register(on: connection)
            SyncValueSQLFunctions.register(on: connection)
            let synchronous = waitsForTheDisk ? "FULL" : "OFF"
            try connection.execute(
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=\(synchronous); PRAGMA foreign_keys=OFF")
            try connection.execute(Self.schemaSQL)
            try connection.run(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('history_salt', ?)", [.u64(historySalt)])
        } catch {
            throw SyncStoreError("cannot open the sync store \(path): \(error)")
        }
    }

    public func write<T>(_ body: (any SyncStoreTransaction) throws -> T) throws -> T {
        try transaction(.immediate) { try body(SQLiteSyncStoreTransaction(connection, fieldDefaults: fieldDefaults)) }
    }

    public func read<T>(_ body: (any SyncStoreReader) throws -> T) throws -> T {
        // A deferred transaction pins one snapshot at its first read: every read sees one state.
        try transaction(.deferred) { try body(SQLiteSyncStoreTransaction(connection, fieldDefaults: fieldDefaults)) }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it (or the commit)
    /// throws, with that error. An SQLite error is reported as a store error naming the file.
    private func transaction<T>(_ kind: SQLiteTransactionKind, _ body: () throws -> T) throws -> T {
        guard !connection.isInTransaction else {
            throw SyncStoreError("a sync store transaction was begun inside another on \(connection.path)")
        }
        do {
            return try connection.inTransaction(kind) { (.commit, try body()) }
        } catch let error as SQLiteError {
            throw SyncStoreError("\(error) in the sync store \(connection.path)")
        }
    }

    static let busyTimeoutMilliseconds: Int32 = 5000

    private static let schemaSQL = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS objects(
            id INTEGER PRIMARY KEY, class TEXT NOT NULL, pk BLOB NOT NULL, live INTEGER NOT NULL,
            erased_at INTEGER NOT NULL, erased_by INTEGER NOT NULL, creator TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            UNIQUE(class, pk));
        CREATE INDEX IF NOT EXISTS objects_by_class ON objects(class, live, id);
        CREATE TABLE IF NOT EXISTS fields(
            object INTEGER NOT NULL, path TEXT NOT NULL, value BLOB, clock INTEGER NOT NULL,
            client INTEGER NOT NULL, replaced_at INTEGER NOT NULL, replaced_by INTEGER NOT NULL,
            PRIMARY KEY(object, path)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS list_elements(
            object INTEGER NOT NULL, field TEXT NOT NULL, clock INTEGER NOT NULL, client INTEGER NOT NULL,
            idx INTEGER NOT NULL, position BLOB NOT NULL, position_clock INTEGER NOT NULL,
            position_client INTEGER NOT NULL, value BLOB NOT NULL, value_clock INTEGER NOT NULL,
            value_client INTEGER NOT NULL, erased INTEGER NOT NULL,
            PRIMARY KEY(object, field, clock, client, idx)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS list_clears(
            object INTEGER NOT NULL, field TEXT NOT NULL, clock INTEGER NOT NULL, client INTEGER NOT NULL,
            PRIMARY KEY(object, field)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS set_entries(
            object INTEGER NOT NULL, field TEXT NOT NULL, value BLOB NOT NULL, present INTEGER NOT NULL,
            clock INTEGER NOT NULL, client INTEGER NOT NULL, PRIMARY KEY(object, field, value)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS map_entries(
            object INTEGER NOT NULL, field TEXT NOT NULL, key TEXT NOT NULL, value BLOB,
            clock INTEGER NOT NULL, client INTEGER NOT NULL, PRIMARY KEY(object, field, key)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS history(
            server_version INTEGER PRIMARY KEY, client_file_id INTEGER NOT NULL,
            client_version INTEGER NOT NULL, based_on INTEGER NOT NULL, clock INTEGER NOT NULL,
            original BLOB NOT NULL, kept BLOB NOT NULL);
        CREATE INDEX IF NOT EXISTS history_by_client ON history(client_file_id, server_version);
        CREATE TABLE IF NOT EXISTS clients(
            file_id INTEGER PRIMARY KEY, salt INTEGER NOT NULL, last_client_version INTEGER NOT NULL,
            user TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS held(
            file_id INTEGER NOT NULL, object INTEGER NOT NULL, PRIMARY KEY(file_id, object)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS held_by_object ON held(object, file_id);
        CREATE TABLE IF NOT EXISTS held_log(
            seq INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, object INTEGER NOT NULL,
            server_version INTEGER NOT NULL, query_version INTEGER NOT NULL, held INTEGER NOT NULL);
        DROP INDEX IF EXISTS held_log_by_file;
        CREATE INDEX IF NOT EXISTS held_log_by_version ON held_log(file_id, server_version);
        CREATE INDEX IF NOT EXISTS held_log_by_object ON held_log(file_id, object);
        CREATE TABLE IF NOT EXISTS inbox(
            id INTEGER PRIMARY KEY, client_file_id INTEGER NOT NULL, last_client_version INTEGER NOT NULL,
            body BLOB NOT NULL, outcome BLOB, settled_at INTEGER,
            UNIQUE(client_file_id, last_client_version));
        CREATE INDEX IF NOT EXISTS inbox_unsettled ON inbox(settled_at, id);
        """
}

extension SQLiteValue {
    /// A UInt64 stored in SQLite's signed integer, bit for bit.
    static func u64(_ v: UInt64) -> SQLiteValue { .integer(Int64(bitPattern: v)) }
    static func time(_ t: WriteTime) -> [SQLiteValue] { [.u64(t.clock.rawValue), .u64(t.clientFileID)] }
    static func bytes(_ b: [UInt8]) -> SQLiteValue { .blob(Data(b)) }

    var u64: UInt64 {
        if case .integer(let v) = self { return UInt64(bitPattern: v) }
        return 0
    }
    var byteArray: [UInt8]? {
        if case .blob(let v) = self { return Array(v) }
        return nil
    }
    var string: String {
        if case .text(let v) = self { return v }
        return ""
    }
}

extension SQLiteConnection {
    /// The first row of a statement, or nil.
    func row(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [SQLiteValue]? {
        try rows(sql, bindings).first
    }
}
