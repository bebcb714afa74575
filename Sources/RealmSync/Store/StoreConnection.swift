import CSQLite
import Foundation
import RealmDatabase

/// The few SQLite calls the sync store makes, over one connection. RealmDatabase's `SQLiteConnection`
/// is internal to it and tied to its diagnostics; the store needs only statements with bindings, rows
/// and savepoints, so this small wrapper keeps RealmDatabase's API unchanged. Not thread-safe: the
/// store that owns it serializes access.
final class StoreConnection {
    private let handle: OpaquePointer
    let path: String
    private var statements: [String: OpaquePointer] = [:]

    init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SyncStoreError("cannot open the sync store \(path): \(message) (SQLite \(rc))")
        }
        handle = db
        self.path = path
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    private func error(_ rc: Int32, _ sql: String) -> SyncStoreError {
        SyncStoreError(
            "SQLite error \(rc) in the sync store \(path): \(String(cString: sqlite3_errmsg(handle))) (in: \(sql))")
    }

    /// Runs statements that take no bindings and return no rows.
    func execute(_ sql: String) throws {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        if rc != SQLITE_OK { throw error(rc, sql) }
    }

    /// Runs one statement with bindings, returning no rows.
    func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws {
        _ = try rows(sql, bindings)
    }

    /// Every row of one statement with bindings.
    func rows(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in bindings.enumerated() {
            try bind(value, at: Int32(truncatingIfNeeded: index + 1), in: statement, sql)
        }
        var result: [[SQLiteValue]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return result }
            guard rc == SQLITE_ROW else { throw error(rc, sql) }
            let count = sqlite3_column_count(statement)
            result.append((0..<count).map { column(at: $0, of: statement) })
        }
    }

    /// The first row of a statement, or nil.
    func row(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [SQLiteValue]? {
        try rows(sql, bindings).first
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc, sql) }
        statements[sql] = statement
        return statement
    }

    private func bind(_ value: SQLiteValue, at index: Int32, in statement: OpaquePointer, _ sql: String) throws {
        // SQLITE_TRANSIENT (a macro Swift cannot import): SQLite copies the bytes.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(statement, index)
        case .integer(let v): rc = sqlite3_bind_int64(statement, index, v)
        case .real(let v): rc = sqlite3_bind_double(statement, index, v)
        case .text(let v):
            // With its byte length, not -1: a string may hold NUL characters, which -1 would cut at.
            // A trailing NUL (not counted) gives an empty string an address, which SQLite needs to bind
            // it as text rather than NULL.
            let utf8 = Array(v.utf8) + [0]
            rc = utf8.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    sqlite3_bind_text(
                        statement, index, $0.baseAddress, Int32(truncatingIfNeeded: $0.count - 1), transient)
                }
            }
        case .blob(let v):
            rc = v.withUnsafeBytes { raw in
                // An empty buffer may have no address, which SQLite would bind as NULL.
                sqlite3_bind_blob(
                    statement, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    Int32(truncatingIfNeeded: v.count), transient)
            }
        }
        if rc != SQLITE_OK { throw error(rc, sql) }
    }

    private func column(at index: Int32, of statement: OpaquePointer) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// Runs `body` in a savepoint named `name`: released when it returns, undone when it throws.
    func inSavepoint<T>(_ name: String, _ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT \(name)")
        do {
            let result = try body()
            try execute("RELEASE \(name)")
            return result
        } catch {
            // The body's error is the one to report, unless undoing fails too: then the savepoint's
            // writes may remain, so that failure is reported instead, as a store error, which makes
            // the whole transaction roll back (the integrator goes on only after refusals).
            do {
                try execute("ROLLBACK TO \(name)")
                try execute("RELEASE \(name)")
            } catch let undo {
                throw SyncStoreError("cannot undo savepoint \(name) after \(error): \(undo)")
            }
            throw error
        }
    }
}
