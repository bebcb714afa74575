import CSQLite
import Foundation
import RealmDatabase

/// Building the files the workloads start from. Files are created by RealmDatabase (so their
/// tables and `_realm_meta` are exactly what a realm has) and bulk-filled with raw SQL, which is
/// much faster than going through objects and is never timed.
enum Fixtures {
    static func configuration(_ url: URL, schema: Schema) -> Realm.Configuration {
        Realm.Configuration(fileURL: url, schema: schema)
    }

    /// A new, empty realm file with `schema`, closed again.
    static func createEmptyRealm(at url: URL, schema: Schema = BenchSchema.schema()) throws {
        _ = try Realm(configuration: configuration(url, schema: schema))
    }

    /// A new empty bench realm, for the write workloads: each run writes into its own file.
    static func freshEmptyRealm(_ context: BenchContext, _ stem: String) throws -> URL {
        let url = context.freshURL(stem)
        try createEmptyRealm(at: url)
        return url
    }

    /// Inserts dogs `0..<count` (see `DogValues`), in the caller's transaction.
    static func insertDogs(_ db: RawDatabase, count: Int, ages: Int64 = 20) throws {
        let insert = try db.prepare(BenchSchema.insertDogSQL)
        let s = insert.handle
        for i in 0..<count {
            let rc = BenchSchema.insertDog(DogValues(i, ages: ages), with: s)
            if rc != SQLITE_DONE { throw db.failure(rc) }
        }
    }

    /// A realm holding `count` dogs (and no people), shared by the read and query workloads.
    /// With `indexedAge`, a copy of the same file opened with `age` indexed (RealmDatabase adds
    /// the index on open), so both variants query identical rows.
    static func dogs(_ context: BenchContext, count: Int, indexedAge: Bool) throws -> URL {
        let id = "dogs-\(count)-\(indexedAge ? "indexed" : "plain")"
        if let url = context.fixtures[id] { return url }
        let url = context.folder.appendingPathComponent(id + ".realm")
        if indexedAge {
            let plain = try dogs(context, count: count, indexedAge: false)
            context.log("fixture: indexing a copy of \(plain.lastPathComponent)")
            try FileManager.default.copyItem(at: plain, to: url)
            _ = try Realm(configuration: configuration(url, schema: BenchSchema.schema(indexedAge: true)))
        } else {
            context.log("fixture: \(count) dogs")
            try createEmptyRealm(at: url)
            let db = try RawDatabase.openConfigured(url.path)
            try db.exec("BEGIN IMMEDIATE")
            try insertDogs(db, count: count)
            try db.exec("COMMIT")
        }
        // The last connection closed: SQLite checkpointed the WAL into the file, so a copy is whole.
        context.fixtures[id] = url
        return url
    }

    /// A realm of `people` persons with `dogsEach` dogs each in their `dogs` list (dog keys
    /// `p*dogsEach+1 …`), for the list query.
    static func people(_ context: BenchContext, people: Int, dogsEach: Int) throws -> URL {
        let id = "people-\(people)x\(dogsEach)"
        if let url = context.fixtures[id] { return url }
        context.log("fixture: \(people) people with \(dogsEach) dogs each")
        let url = context.folder.appendingPathComponent(id + ".realm")
        try createEmptyRealm(at: url)
        let db = try RawDatabase.openConfigured(url.path)
        try db.exec("BEGIN IMMEDIATE")
        // Ages 0–11: `ANY dogs.age > 10` then matches about 58% of the people (see QueryList).
        try insertDogs(db, count: people * dogsEach, ages: 12)
        let person = try db.prepare("INSERT INTO \"class_Person\" (\"name\") VALUES (?)")
        let link = try db.prepare("INSERT INTO \"list_Person_dogs\" (owner, pos, value) VALUES (?, ?, ?)")
        for p in 0..<people {
            sqlite3_bind_text(person.handle, 1, "Person \(p)", -1, SQLITE_TRANSIENT)
            try person.run()
            let owner = sqlite3_last_insert_rowid(db.handle)
            for d in 0..<dogsEach {
                sqlite3_bind_int64(link.handle, 1, owner)
                sqlite3_bind_int64(link.handle, 2, Int64(d))
                sqlite3_bind_int64(link.handle, 3, Int64(p * dogsEach + d + 1))
                try link.run()
            }
        }
        try db.exec("COMMIT")
        context.fixtures[id] = url
        return url
    }
}
