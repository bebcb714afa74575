import CSQLite
import Foundation
import RealmDatabase

/// What the query workloads share: one query run as "count, then fetch every matching key", by
/// `Results.filter` on one side and by hand-written SQL over the same file on the other.
enum QuerySupport {
    /// Runs the query on a tiny realm first, so a query the language does not support yet is
    /// reported at once as skipped, before minutes of fixture building.
    static func probe(_ context: BenchContext, className: String, query: String) throws {
        let url = context.freshURL("probe")
        do {
            let realm = try Realm(configuration: Fixtures.configuration(url, schema: BenchSchema.schema()))
            _ = try realm.objects(className).filter(query).countObjects()
        } catch {
            throw WorkloadSkipped(reason: "filter(\"\(query)\") threw: \(error)")
        }
    }

    /// The comparison of one query on one file.
    ///
    /// Ours: `objects(className).filter(query)`, `countObjects()` (a COUNT in SQL), then on fresh
    /// Results the keys of every match (subscripting materialises the key list, in key order).
    /// Raw: `countSQL`, then `keysSQL` (ordered by `_key`, as Results are) collected into an array.
    /// Both checksums combine the count, the number of keys and the last key.
    static func comparison(
        name: String, target: Double, size: Int, url: URL, schema: Schema,
        className: String, query: String, countSQL: String, keysSQL: String
    ) -> Comparison {
        Comparison(
            name: name, target: target, size: size, warmUpSize: size,
            ours: { _ in
                let realm = try Realm(configuration: Fixtures.configuration(url, schema: schema))
                return PreparedRun(run: {
                    let count = try realm.objects(className).filter(query).countObjects()
                    let matches = try realm.objects(className).filter(query)
                    var lastKey: Int64 = 0
                    var keyCount = 0
                    if count > 0 {
                        _ = try matches[0]  // loads (and caches) every key of the answer
                        keyCount = try matches.countObjects()  // served from the cached keys
                        lastKey = try matches[keyCount - 1].objectKey ?? 0
                    }
                    return checksum(count: count, keys: keyCount, lastKey: lastKey)
                })
            },
            raw: { _ in
                let db = try RawDatabase.openConfigured(url.path)
                return PreparedRun(run: {
                    let countStatement = try db.prepare(countSQL)
                    let rc = sqlite3_step(countStatement.handle)
                    guard rc == SQLITE_ROW else { throw db.failure(rc) }
                    let count = Int(sqlite3_column_int64(countStatement.handle, 0))
                    let keysStatement = try db.prepare(keysSQL)
                    let s = keysStatement.handle
                    var keys = [Int64]()
                    var step = sqlite3_step(s)
                    while step == SQLITE_ROW {
                        keys.append(sqlite3_column_int64(s, 0))
                        step = sqlite3_step(s)
                    }
                    if step != SQLITE_DONE { throw db.failure(step) }
                    return checksum(count: count, keys: keys.count, lastKey: keys.last ?? 0)
                })
            })
    }

    static func checksum(count: Int, keys: Int, lastKey: Int64) -> Int64 {
        Int64(count) &* 1_000_003 &+ Int64(keys) &* 1_009 &+ lastKey
    }
}
