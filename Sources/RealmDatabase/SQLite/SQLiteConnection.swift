import CSQLite
import Foundation
import RealmValues

/// SQLite's `SQLITE_TRANSIENT` destructor: a macro Swift cannot import.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// An error reported by SQLite, with the statement it came from.
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String
    public let sql: String?

    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in: \(sql))" }
        return "SQLite error \(code): \(message)"
    }

    /// Extended code is busy or locked: another connection holds the lock.
    var isBusy: Bool { code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }
}

/// One SQLite connection. Not thread-safe: a connection is confined to the `Realm` that owns it (or,
/// through `package` access, to RealmSync's sync store, which serializes its calls).
///
/// Prepared statements are cached by SQL text, so hot paths (insert, read by key) prepare once.
package final class SQLiteConnection {
    package private(set) var handle: OpaquePointer?
    package let path: String
    private var statementCache: [String: Statement] = [:]

    /// Opens `path` (a file path or a `file:` URI) with the given `SQLITE_OPEN_*` flags.
    package init(path: String, flags: Int32) throws {
        self.path = path
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        if rc != SQLITE_OK {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: message, sql: nil)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    func close() {
        statementCache.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    var isOpen: Bool { handle != nil }

    func error(_ rc: Int32, sql: String?) -> SQLiteError {
        var message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "connection closed"
        if let lockWaiter, rc & 0xff == SQLITE_BUSY { message = lockWaiter.busyMessage(message) }
        return SQLiteError(code: rc, message: message, sql: sql)
    }

    /// The waits for other connections' locks, once `waitForLocks` installed it.
    private var lockWaiter: LockWaiter?

    /// Waits for other connections' locks as `LockWaitPolicy.current` says (bounded, announced,
    /// stoppable), naming the file as `displayPath`; replaces any busy timeout.
    func waitForLocks(displayPath: String) {
        guard let handle else { return }
        let waiter = LockWaiter(displayPath: displayPath)
        lockWaiter = waiter
        sqlite3_busy_handler(handle, lockWaitCallback, Unmanaged.passUnretained(waiter).toOpaque())
    }

    /// Runs one or more statements that return no rows.
    package func execute(_ sql: String) throws {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "connection closed", sql: sql) }
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            var message = errmsg.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errmsg)
            if let lockWaiter, rc & 0xff == SQLITE_BUSY { message = lockWaiter.busyMessage(message) }
            throw SQLiteError(code: rc, message: message, sql: sql)
        }
    }

    /// A cached prepared statement, reset and with its bindings cleared.
    func cached(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(connection: self, sql: sql, persistent: true)
        if statementCache.count > 512 { statementCache.removeAll() }
        statementCache[sql] = statement
        return statement
    }

    /// A fresh prepared statement (for SQL that is built once, such as a query).
    func prepare(_ sql: String) throws -> Statement {
        try Statement(connection: self, sql: sql, persistent: false)
    }

    /// Runs a statement with bindings, returning no rows.
    package func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws {
        let statement = try cached(sql)
        try statement.bind(bindings)
        while try statement.step() {}
    }

    /// The first column of the first row, or nil when there is no row.
    func scalar(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> SQLiteValue? {
        let statement = try cached(sql)
        try statement.bind(bindings)
        guard try statement.step() else { return nil }
        let value = statement.value(at: 0)
        statement.reset()
        return value
    }

    func scalarInt(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> Int64? {
        if case .integer(let v)? = try scalar(sql, bindings) { return v }
        return nil
    }

    /// Calls `body` for every row.
    package func forEachRow(
        _ sql: String, _ bindings: [SQLiteValue] = [], cache: Bool = true, _ body: (Statement) throws -> Void
    ) throws {
        let statement = cache ? try cached(sql) : try prepare(sql)
        try statement.bind(bindings)
        defer { statement.reset() }
        while try statement.step() { try body(statement) }
    }

    /// Every row of a statement with bindings, each as its column values.
    package func rows(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        try forEachRow(sql, bindings) { statement in
            rows.append((0..<statement.columnCount).map { statement.value(at: $0) })
        }
        return rows
    }

    var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }
    package var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }
    package var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    package func setBusyTimeout(milliseconds: Int32) {
        lockWaiter = nil
        if let handle { sqlite3_busy_timeout(handle, milliseconds) }
    }
}

/// A prepared statement. Columns and parameters are 0-based here.
package final class Statement {
    private(set) var handle: OpaquePointer?
    unowned let connection: SQLiteConnection
    let sql: String

    init(connection: SQLiteConnection, sql: String, persistent: Bool) throws {
        self.connection = connection
        self.sql = sql
        guard let db = connection.handle else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "connection closed", sql: sql)
        }
        var stmt: OpaquePointer?
        let flags: UInt32 = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let rc = sqlite3_prepare_v3(db, sql, -1, flags, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw connection.error(rc, sql: sql) }
        handle = stmt
    }

    deinit { sqlite3_finalize(handle) }

    func reset(clearingBindings: Bool = true) {
        sqlite3_reset(handle)
        if clearingBindings { sqlite3_clear_bindings(handle) }
    }

    func bind(_ values: [SQLiteValue]) throws {
        for (i, value) in values.enumerated() { try bind(value, at: Int32(i + 1)) }
    }

    func bind(_ value: SQLiteValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(var v):
            // With its byte length, not -1: a Swift string may hold NUL characters, which -1 would
            // cut at. An empty buffer may have no address, which SQLite would bind as NULL.
            rc = v.withUTF8 { utf8 in
                guard let bytes = utf8.baseAddress, !utf8.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
                }
                return bytes.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(utf8.count), sqliteTransient)
                }
            }
        case .blob(let v):
            rc = v.withUnsafeBytes { raw in
                sqlite3_bind_blob(
                    handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(v.count), sqliteTransient)
            }
        }
        if rc != SQLITE_OK { throw connection.error(rc, sql: sql) }
    }

    /// Advances to the next row; false when done. Throws on error (the statement is reset).
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let err = connection.error(rc, sql: sql)
        sqlite3_reset(handle)
        throw err
    }

    package var columnCount: Int32 { sqlite3_column_count(handle) }

    func type(at column: Int32) -> Int32 { sqlite3_column_type(handle, column) }
    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func string(at column: Int32) -> String { StatementColumn(handle: handle, column: column).text }
    func data(at column: Int32) -> Data { StatementColumn(handle: handle, column: column).blob }

    package func value(at column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(int64(at: column))
        case SQLITE_FLOAT: return .real(double(at: column))
        case SQLITE_TEXT: return .text(string(at: column))
        case SQLITE_BLOB: return .blob(data(at: column))
        default: return .null
        }
    }
}

/// One column of the row a statement is on, read in place (see `StoredValue`). Holds the raw
/// handle, not the statement: valid only while its owner keeps the statement on that row.
struct StatementColumn: StoredValue {
    let handle: OpaquePointer?
    let column: Int32

    var storageClass: StorageClass {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }
    var integer: Int64 { sqlite3_column_int64(handle, column) }
    var real: Double { sqlite3_column_double(handle, column) }
    var text: String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        return String(
            decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }
    var blob: Data {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}
