import CSQLite
import Foundation
import RealmQuery

/// The Realm Query Language compiler: RQL text → a SQL condition over the object row `t0`, its
/// bound values and the trailing SORT / DISTINCT / LIMIT clauses. See docs/QUERY.md.
package enum QueryLanguage {
    /// Compiles `query` for objects of `objectSchema`.
    ///
    /// - `arguments`: the values of `$0`, `$1`, …; a `.list` is a list argument (`x IN $0`).
    /// - `keyOf`: the stored key of an object argument; throws when the object isn't managed by this realm.
    /// - Throws `RealmError(.query, …)` naming the column of the offending token and what was expected.
    ///
    /// The returned `predicateSQL` may evaluate to NULL for rows that don't match (it is meant
    /// for a WHERE clause, where NULL counts as false).
    static func compile(
        _ query: String, arguments: [RealmValue], objectSchema: ObjectSchema, schema: Schema,
        keyOf: (DynamicObject) throws -> Int64
    ) throws -> CompiledQuery {
        // Object arguments are resolved here, on the caller's thread; errors surface only if used.
        var keys = [ObjectIdentifier: Result<Int64, Error>]()
        func collect(_ v: RealmValue) {
            switch v {
            case .object(let o): keys[ObjectIdentifier(o)] = Result { try keyOf(o) }
            case .list(let items): items.forEach(collect)
            default: break
            }
        }
        arguments.forEach(collect)
        let resolved = keys
        let work = {
            try compileHere(query, arguments: arguments, objectSchema: objectSchema, schema: schema) { object in
                guard let r = resolved[ObjectIdentifier(object)] else {
                    throw RealmError(.query, "Objects used as query arguments must be managed by this realm.")
                }
                return try r.get()
            }
        }
        // Deeply nested queries recurse deeply (about 10 KB of stack per level in debug builds):
        // they are compiled on a thread with a large stack, whatever thread the caller is on.
        if nestingEstimate(query) > 24 { return try onLargeStack(work) }
        return try work()
    }

    private static func compileHere(
        _ query: String, arguments: [RealmValue], objectSchema: ObjectSchema, schema: Schema,
        keyOf: @escaping (DynamicObject) throws -> Int64
    ) throws -> CompiledQuery {
        do {
            let parsed = try QueryParser.parse(query)
            let translator = QueryTranslator(
                schema: schema, objectSchema: objectSchema, arguments: arguments, keyOf: keyOf)
            let compiled = try translator.translate(parsed)
            try checkExecutable(compiled, objectSchema: objectSchema, query: query)
            return compiled
        } catch let e as QuerySyntaxError {
            throw RealmError(.query, e.described(in: query))
        }
    }

    /// An upper bound of how deeply a query nests (parentheses, braces, NOT, arithmetic, SUBQUERY).
    static func nestingEstimate(_ query: String) -> Int {
        let bytes = Array(query.utf8)
        var depth = 0
        var maxDepth = 0
        var operators = 0
        for (i, b) in bytes.enumerated() {
            switch b {
            case ASCII.leftParen, ASCII.leftBrace:
                depth += 1
                maxDepth = max(maxDepth, depth)
            case ASCII.rightParen, ASCII.rightBrace:
                depth -= 1
            case ASCII.bang, ASCII.plus, ASCII.minus, ASCII.star, ASCII.slash:
                operators += 1
            case UInt8(ascii: "n"), UInt8(ascii: "N"):
                if startsWord(bytes, at: i, continuing: "ot", length: 3) { operators += 1 }
            case UInt8(ascii: "s"), UInt8(ascii: "S"):
                if startsWord(bytes, at: i, continuing: "ubq", length: 8) { operators += 4 }
            default: break
            }
        }
        return maxDepth + operators
    }

    /// Whether the bytes after `i` begin with the lower-case ASCII `rest` in any case, with room for
    /// a word of `length` bytes from `i` (a cheap test for `not` and `subquery`).
    private static func startsWord(_ bytes: [UInt8], at i: Int, continuing rest: StaticString, length: Int) -> Bool {
        guard i + length - 1 < bytes.count else { return false }
        let lowerCaseBit: UInt8 = 0x20
        for k in 0..<rest.utf8CodeUnitCount where bytes[i + 1 + k] | lowerCaseBit != rest.utf8Start[k] {
            return false
        }
        return true
    }

    private final class StackJob<T>: @unchecked Sendable {
        var result: Result<T, Error>?
        let body: () throws -> T
        init(_ body: @escaping () throws -> T) { self.body = body }
    }

    private static func onLargeStack<T>(_ body: @escaping () throws -> T) throws -> T {
        let job = StackJob(body)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            job.result = Result { try job.body() }
            done.signal()
        }
        thread.stackSize = 64 << 20
        thread.start()
        done.wait()
        return try job.result!.get()
    }

    /// SQLite 3.40's parser has a small fixed stack (nested parentheses, EXISTS) and limits on
    /// expression depth and bound values. Queries whose SQL could hit those limits are test-parsed
    /// on a scratch connection, so that the user gets a clear error instead of a SQLite one.
    static func checkExecutable(_ compiled: CompiledQuery, objectSchema: ObjectSchema, query: String) throws {
        let sql = compiled.predicateSQL
        var depth = 0
        var maxDepth = 0
        for b in sql.utf8 {
            if b == ASCII.leftParen {
                depth += 1
                maxDepth = max(maxDepth, depth)
            } else if b == ASCII.rightParen {
                depth -= 1
            }
        }
        guard maxDepth > 8 || compiled.bindings.count > 250 || sql.utf8.count > 200_000 else { return }
        var db: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db
        else {
            sqlite3_close_v2(db)
            return
        }
        defer { sqlite3_close_v2(db) }
        let statement =
            "SELECT t0.\"_key\" FROM \(StorageLayout.quotedTable(objectSchema.className)) AS t0 WHERE \(sql)"
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, statement, -1, &stmt, nil)
        sqlite3_finalize(stmt)
        guard rc != SQLITE_OK else { return }
        let error = String(cString: sqlite3_errmsg(db))
        // Names are resolved after parsing: "no such table" means the text parsed fine.
        if error.hasPrefix("no such") { return }
        var shown = query
        if shown.count > 200 { shown = String(shown.prefix(200)) + "…" }
        if error.contains("parser stack overflow") || error.contains("too large") || error.contains("maximum depth") {
            throw RealmError(
                .query,
                "Invalid query '\(shown)': it is nested too deeply to run (SQLite: \(error)); simplify the nesting of "
                    + "SUBQUERY, ALL/NONE and AND/OR."
            )
        }
        if error.contains("too many SQL variables") {
            throw RealmError(
                .query,
                "Invalid query '\(shown)': it holds too many values (\(compiled.bindings.count)); split it or use "
                    + "fewer list elements."
            )
        }
        throw RealmError(.query, "Invalid query '\(shown)': it can't be run (SQLite: \(error)).")
    }
}
