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
            let synchronous = waitsForTheDisk ? "FULL" : "OFF"
            try connection.execute(
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=\(synchronous); PRAGMA foreign_keys=OFF")
            try connection.inTransaction(.immediate) { () throws -> (SQLiteTransactionEnd, Void) in
                try Self.upgrade(connection)
                for statement in StoreSchema.creation(in: .sqlite) { try connection.execute(statement) }
                try connection.run(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('history_salt', ?)", [.u64(historySalt)])
                return (.commit, ())
            }
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

    /// Brings a file made by an earlier build to `StoreSchema`'s shape before the missing tables and
    /// indexes are created; each step acts only on the old shape, so it runs once. In the opening
    /// transaction: two processes opening one old file upgrade it once.
    private static func upgrade(_ connection: SQLiteConnection) throws {
        // The held log by server version rather than by sequence number (as PostgreSQL's version 3).
        try connection.execute("DROP INDEX IF EXISTS held_log_by_file")
        // The client's user under PostgreSQL's name (`user` is reserved there).
        if try !connection.rows("SELECT 1 FROM pragma_table_info('clients') WHERE name = 'user'").isEmpty {
            try connection.execute("ALTER TABLE clients RENAME COLUMN user TO user_name")
        }
        // The unsettled uploads as a partial index, as PostgreSQL's.
        let inbox = try connection.rows(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'inbox_unsettled'")
        if case .text(let sql)? = inbox.first?.first, !sql.contains("WHERE") {
            try connection.execute("DROP INDEX inbox_unsettled")
        }
    }
}

extension StoreDialect {
    /// SQLite's: booleans and numbers are INTEGER, key texts TEXT; a table keyed by something else
    /// than its rowid is WITHOUT ROWID (its rows stored in its key's order, no second b-tree).
    static let sqlite = StoreDialect(
        typeName: { type in
            switch type {
            case .rowID: "INTEGER PRIMARY KEY"
            case .integer, .boolean: "INTEGER"
            case .text, .keyText: "TEXT"
            case .bytes: "BLOB"
            }
        },
        tableWithoutRowID: " WITHOUT ROWID")
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
