import CSQLite
import Foundation

/// SQLite's `SQLITE_TRANSIENT`, a macro Swift cannot import: SQLite copies the bound bytes, which
/// is what RealmDatabase does too, so both sides pay for the same copy.
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// An error from the raw-SQLite baseline (or from building a fixture with it).
struct RawSQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "SQLite error \(code): \(message)" }
}

/// The baseline's connection: nothing but the C API. The wrapper only opens, configures and
/// reports errors; the measured loops call `sqlite3_*` on the handles directly, so the baseline
/// is what a careful hand-written program would do.
final class RawDatabase {
    let handle: OpaquePointer

    /// Opens `path` the way RealmDatabase does (read-write, no mutex: one connection per thread).
    init(path: String, flags: Int32 = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX) throws {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close_v2(db)
            throw RawSQLiteError(code: rc, message: message)
        }
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    /// The pragmas a realm file is used with (see RealmOpener.configure): WAL, full fsync on every
    /// commit, temporary tables in memory, and a long busy timeout. The baseline must pay for the
    /// same durability, or the comparison would flatter it.
    static let realmPragmas = "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA temp_store=MEMORY"

    /// Opens a connection configured like a realm's.
    static func openConfigured(_ path: String) throws -> RawDatabase {
        let db = try RawDatabase(path: path)
        sqlite3_busy_timeout(db.handle, 600_000)
        try db.exec(realmPragmas)
        return db
    }

    func exec(_ sql: String) throws {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? lastError
            sqlite3_free(errmsg)
            throw RawSQLiteError(code: rc, message: "\(message) (in: \(sql))")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw RawSQLiteError(code: rc, message: "\(lastError) (in: \(sql))") }
        return RawStatement(handle: stmt, db: self)
    }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    /// The error for a failed `sqlite3_step` or bind, for the measured loops.
    func failure(_ rc: Int32) -> RawSQLiteError { RawSQLiteError(code: rc, message: lastError) }

    /// The first column of the first row as an integer (fixture checks, not measured).
    func scalarInt(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        guard sqlite3_step(statement.handle) == SQLITE_ROW else { throw failure(sqlite3_errcode(handle)) }
        return sqlite3_column_int64(statement.handle, 0)
    }
}

/// A prepared statement, finalized on release. Holds its connection so it cannot outlive it.
final class RawStatement {
    let handle: OpaquePointer
    private let db: RawDatabase

    init(handle: OpaquePointer, db: RawDatabase) {
        self.handle = handle
        self.db = db
    }

    deinit { sqlite3_finalize(handle) }

    /// Steps a statement that returns no rows, then resets it for reuse.
    func run() throws {
        let rc = sqlite3_step(handle)
        sqlite3_reset(handle)
        if rc != SQLITE_DONE && rc != SQLITE_ROW { throw db.failure(rc) }
    }
}
