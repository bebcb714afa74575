import CSQLite
import Foundation
import RealmDatabase

/// `insert_bulk`: 100,000 dogs created in one write transaction, into an empty file.
///
/// Ours: `realm.write { for dog in dogs { try realm.create("Dog", value: [...]) } }`.
/// Raw: BEGIN IMMEDIATE, one prepared INSERT bound and stepped per dog, COMMIT.
/// Each run writes a new file; opening it is not timed, the transaction (with its fsync) is.
struct InsertBulk: Workload {
    let name = "insert_bulk"
    let target = 1.5

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let n = context.scaled(100_000)
        let values = DogValues.batch(n)
        return [
            Comparison(
                name: name, target: target, size: n, warmUpSize: n,
                ours: { size in
                    let realm = try Realm(
                        configuration: Fixtures.configuration(
                            try Fixtures.freshEmptyRealm(context, name), schema: BenchSchema.schema()))
                    return PreparedRun(
                        run: {
                            try realm.write {
                                for dog in values.prefix(size) { try realm.create("Dog", value: dog.realmValue) }
                            }
                            return Int64(size)
                        }, check: { _ in Int64(try realm.objects("Dog").countObjects()) })
                },
                raw: { size in
                    let db = try RawDatabase.openConfigured(try Fixtures.freshEmptyRealm(context, name).path)
                    return PreparedRun(
                        run: {
                            try InsertBulk.rawInsert(db, values.prefix(size))
                            return Int64(size)
                        }, check: { _ in try db.scalarInt("SELECT count(*) FROM \"class_Dog\"") })
                })
        ]
    }

    static func rawInsert(_ db: RawDatabase, _ values: ArraySlice<DogValues>) throws {
        let h = db.handle
        let begin = try db.prepare("BEGIN IMMEDIATE")
        let commit = try db.prepare("COMMIT")
        let insert = try db.prepare(BenchSchema.insertDogSQL)
        let s = insert.handle
        try begin.run()
        for dog in values {
            let rc = BenchSchema.insertDog(dog, with: s)
            if rc != SQLITE_DONE {
                sqlite3_exec(h, "ROLLBACK", nil, nil, nil)
                throw db.failure(rc)
            }
        }
        try commit.run()
    }
}
