import CSQLite
import Foundation
import RealmDatabase

/// `open`: opening an existing realm file and checking its schema, 2,000 times, closing each time.
///
/// The file has the 5-class DoggoDB schema (Dog, DogToy, Person, Company, Employee).
/// Ours: `Realm(configuration:)` with that schema, released at once. Raw: `sqlite3_open_v2`, the
/// same pragmas, reading the stored schema row and comparing it with the expected text, closing.
/// No other connection keeps the file open, so both sides also pay for SQLite's WAL recovery on
/// open and checkpoint on close, identically.
struct Open: Workload {
    let name = "open"
    let target = 2.0

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let n = context.scaled(2_000)
        let url = context.folder.appendingPathComponent("doggo.realm")
        let config = Fixtures.configuration(url, schema: BenchSchema.doggoSchema())
        try Fixtures.createEmptyRealm(at: url, schema: BenchSchema.doggoSchema())
        // The schema text as stored: what a hand-written program would compare against.
        let expected = try Open.storedSchemaText(url.path)
        let path = url.path
        return [
            Comparison(
                name: name, target: target, size: n, warmUpSize: max(1, n / 10),
                ours: { size in
                    PreparedRun(run: {
                        var classes: Int64 = 0
                        for _ in 0..<size {
                            let realm = try Realm(configuration: config)
                            classes += Int64(realm.schema.objectSchemas.count)
                        }
                        return classes
                    })
                },
                raw: { size in
                    PreparedRun(run: {
                        var classes: Int64 = 0
                        for _ in 0..<size {
                            if try Open.rawOpenAndCheck(path, expected: expected) { classes += 5 }
                        }
                        return classes
                    })
                })
        ]
    }

    static func storedSchemaText(_ path: String) throws -> [UInt8] {
        let db = try RawDatabase(path: path)
        let statement = try db.prepare("SELECT value FROM _realm_meta WHERE key = 'schema'")
        guard sqlite3_step(statement.handle) == SQLITE_ROW, let text = sqlite3_column_text(statement.handle, 0) else {
            throw RawSQLiteError(code: sqlite3_errcode(db.handle), message: "no stored schema in \(path)")
        }
        return Array(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement.handle, 0))))
    }

    /// One open-check-close with nothing but the C API. True when the stored schema is the expected one.
    static func rawOpenAndCheck(_ path: String, expected: [UInt8]) throws -> Bool {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        defer { sqlite3_close_v2(db) }
        guard rc == SQLITE_OK, let db else { throw RawSQLiteError(code: rc, message: "cannot open \(path)") }
        sqlite3_busy_timeout(db, 600_000)
        guard sqlite3_exec(db, RawDatabase.realmPragmas, nil, nil, nil) == SQLITE_OK else {
            throw RawSQLiteError(code: sqlite3_errcode(db), message: String(cString: sqlite3_errmsg(db)))
        }
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT value FROM _realm_meta WHERE key = 'schema'", -1, &stmt, nil) == SQLITE_OK
        else {
            throw RawSQLiteError(code: sqlite3_errcode(db), message: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_step(stmt) == SQLITE_ROW, let text = sqlite3_column_text(stmt, 0) else { return false }
        let count = Int(sqlite3_column_bytes(stmt, 0))
        return count == expected.count && memcmp(text, expected, count) == 0
    }
}
