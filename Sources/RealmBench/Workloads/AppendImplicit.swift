import CSQLite
import Foundation
import RealmDatabase

/// `append_implicit`: 10,000 dogs appended one at a time outside any write, each append being
/// its own durable commit (an fsync of the WAL with synchronous=FULL).
///
/// Ours: `results.append([...])` on `realm.objects("Dog")`, which opens and commits an implicit
/// write per call. Raw: per dog, BEGIN IMMEDIATE / INSERT / COMMIT, all three prepared once.
struct AppendImplicit: Workload {
    let name = "append_implicit"
    let target = 1.2

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let n = context.scaled(10_000)
        let values = DogValues.batch(n)
        return [
            Comparison(
                // A tenth as warm-up: the commits are fsync-bound, so a full warm-up would only double the run.
                name: name, target: target, size: n, warmUpSize: max(1, n / 10),
                ours: { size in
                    let realm = try Realm(
                        configuration: Fixtures.configuration(
                            try Fixtures.freshEmptyRealm(context, name), schema: BenchSchema.schema()))
                    let dogs = try realm.objects("Dog")
                    return PreparedRun(
                        run: {
                            for dog in values.prefix(size) { try dogs.append(dog.realmValue) }
                            return Int64(size)
                        }, check: { _ in Int64(try realm.objects("Dog").countObjects()) })
                },
                raw: { size in
                    let db = try RawDatabase.openConfigured(try Fixtures.freshEmptyRealm(context, name).path)
                    return PreparedRun(
                        run: {
                            let begin = try db.prepare("BEGIN IMMEDIATE")
                            let commit = try db.prepare("COMMIT")
                            let insert = try db.prepare(BenchSchema.insertDogSQL)
                            let s = insert.handle
                            for dog in values.prefix(size) {
                                try begin.run()
                                let rc = BenchSchema.insertDog(dog, with: s)
                                if rc != SQLITE_DONE {
                                    sqlite3_exec(db.handle, "ROLLBACK", nil, nil, nil)
                                    throw db.failure(rc)
                                }
                                try commit.run()
                            }
                            return Int64(size)
                        }, check: { _ in try db.scalarInt("SELECT count(*) FROM \"class_Dog\"") })
                })
        ]
    }
}
