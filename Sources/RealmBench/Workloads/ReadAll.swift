import CSQLite
import Foundation
import RealmDatabase

/// `read_all`: every property of 1,000,000 dogs read once, in key order.
///
/// Ours: `realm.objects("Dog").forEach { dog in dog.value(forKey:) for each property }`.
/// Raw: `SELECT _key, name, age, breed, weight … ORDER BY _key` and `sqlite3_column_*` on each
/// column, turned into Swift values (String, Int64, Double) as a program would use them.
/// Both sides sum a checksum of what they read; the realm is opened before timing.
struct ReadAll: Workload {
    let name = "read_all"
    let target = 2.0

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let n = context.scaled(1_000_000)
        let url = try Fixtures.dogs(context, count: n, indexedAge: false)
        return [
            Comparison(
                name: name, target: target, size: n, warmUpSize: n,
                ours: { _ in
                    let realm = try Realm(configuration: Fixtures.configuration(url, schema: BenchSchema.schema()))
                    return PreparedRun(run: {
                        var sum: Int64 = 0
                        try realm.objects("Dog").forEach { dog in
                            sum &+= dog.objectKey ?? 0
                            for property in BenchSchema.dogProperties {
                                sum &+= Checksum.of(try dog.value(forKey: property))
                            }
                        }
                        return sum
                    })
                },
                raw: { _ in
                    let db = try RawDatabase.openConfigured(url.path)
                    return PreparedRun(run: {
                        let select = try db.prepare(BenchSchema.selectDogsSQL)
                        let s = select.handle
                        var sum: Int64 = 0
                        var rc = sqlite3_step(s)
                        while rc == SQLITE_ROW {
                            let key = sqlite3_column_int64(s, 0)
                            let name = ReadAll.text(s, 1)
                            let age = sqlite3_column_int64(s, 2)
                            let breed = sqlite3_column_type(s, 3) == SQLITE_NULL ? nil : ReadAll.text(s, 3)
                            let weight = sqlite3_column_double(s, 4)
                            sum &+= key &+ Checksum.of(name) &+ age &+ Checksum.of(breed) &+ Checksum.of(weight)
                            rc = sqlite3_step(s)
                        }
                        if rc != SQLITE_DONE { throw db.failure(rc) }
                        return sum
                    })
                })
        ]
    }

    /// A text column as a Swift String (UTF-8 decoded from SQLite's buffer, as RealmDatabase does).
    @inline(__always)
    static func text(_ s: OpaquePointer, _ column: Int32) -> String {
        guard let p = sqlite3_column_text(s, column) else { return "" }
        return String(
            decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(s, column))), as: UTF8.self)
    }
}
