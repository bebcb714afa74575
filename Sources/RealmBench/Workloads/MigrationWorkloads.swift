import CSQLite
import Foundation
import RealmDatabase
import RealmLua

/// The migration workload shared by `swift_migration` and `lua_migration`: a version-0 file of
/// 1,000,000 dogs migrated to version 1, which adds `favoriteTreat`, with a block that sets it on
/// every dog. Each run migrates its own copy of the file; copying is not timed.
///
/// The baseline is what a careful C program does for the same work (issue 14): on a copy of the
/// same file, in one transaction, add the column, then read each row and
/// `UPDATE … SET favoriteTreat = ? WHERE _key = ?` with a statement prepared once.
enum MigrationBench {
    static func schemaV1() -> Schema {
        var schema = BenchSchema.schema()
        schema.objectSchemas[0].properties.append(Property(name: "favoriteTreat", type: .string))
        return schema
    }

    /// A fresh copy of the version-0 fixture.
    static func freshCopy(_ context: BenchContext, _ fixture: URL, _ stem: String) throws -> URL {
        let url = context.freshURL(stem)
        try FileManager.default.copyItem(at: fixture, to: url)
        return url
    }

    static func configuration(_ url: URL) -> Realm.Configuration {
        var c = Fixtures.configuration(url, schema: schemaV1())
        c.schemaVersion = 1
        return c
    }

    /// The raw-SQLite row loop on a copy of the fixture; returns the number of rows visited.
    /// Like `Realm.performMigration`, it opens the file, migrates and closes it in the timed run:
    /// closing the last connection checkpoints the WAL into the file, which both sides pay for.
    static func rawLoop(_ context: BenchContext, _ fixture: URL, _ stem: String) throws -> PreparedRun {
        let path = try freshCopy(context, fixture, stem).path
        return PreparedRun(run: {
            let db = try RawDatabase.openConfigured(path)
            try db.exec("BEGIN IMMEDIATE")
            try db.exec("ALTER TABLE \"class_Dog\" ADD COLUMN \"favoriteTreat\" TEXT DEFAULT ''")
            let select = try db.prepare(BenchSchema.selectDogsSQL)
            let update = try db.prepare("UPDATE \"class_Dog\" SET \"favoriteTreat\" = ? WHERE \"_key\" = ?")
            let s = select.handle
            var visited: Int64 = 0
            var sum: Int64 = 0
            var rc = sqlite3_step(s)
            while rc == SQLITE_ROW {
                // Read the row as the block's old object would be read, then write the new value.
                let key = sqlite3_column_int64(s, 0)
                let name = ReadAll.text(s, 1)
                let age = sqlite3_column_int64(s, 2)
                let breed = sqlite3_column_type(s, 3) == SQLITE_NULL ? nil : ReadAll.text(s, 3)
                sum &+= Checksum.of(name) &+ age &+ Checksum.of(breed) &+ Checksum.of(sqlite3_column_double(s, 4))
                sqlite3_bind_text(update.handle, 1, "bone", -1, SQLITE_TRANSIENT)
                sqlite3_bind_int64(update.handle, 2, key)
                try update.run()
                visited += 1
                rc = sqlite3_step(s)
            }
            if rc != SQLITE_DONE { throw db.failure(rc) }
            sqlite3_reset(s)
            try db.exec("COMMIT")
            // Returning releases the statements and then the connection (closed, checkpointed).
            // The checksum keeps the reads from being optimised away; the run reports the count.
            return sum == Int64.min ? 0 : visited
        })
    }

    /// The row of a migration workload: `ours` against the raw row loop.
    static func comparison(
        _ context: BenchContext, name: String, target: Double, ours: @escaping (URL) throws -> PreparedRun
    ) throws -> Comparison {
        let n = context.scaled(1_000_000)
        let fixture = try Fixtures.dogs(context, count: n, indexedAge: false)
        return Comparison(
            name: name, target: target, baseline: "raw SQLite row loop", size: n, warmUpSize: nil,
            ours: { _ in try ours(try freshCopy(context, fixture, name)) },
            raw: { _ in try rawLoop(context, fixture, name + "-raw") })
    }
}

/// `swift_migration`: a Swift migration block setting the new field on 1,000,000 dogs, against the
/// raw row loop (target: at most 1.5×; peak memory reported, flat in the count).
struct SwiftMigration: Workload {
    let name = "swift_migration"
    let target = 1.5

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        [
            try MigrationBench.comparison(context, name: name, target: target) { url in
                var config = MigrationBench.configuration(url)
                config.migrationBlock = { migration, _ in
                    try migration.enumerateObjects(ofType: "Dog") { _, new in
                        try new?.setValue("bone", forKey: "favoriteTreat")
                    }
                }
                return PreparedRun(run: {
                    let report = try Realm.performMigration(for: config)
                    return Int64(report.classes["Dog"]?.enumerated ?? 0)
                })
            }
        ]
    }
}

/// `lua_migration`: the same migration with a Lua block, against the raw row loop (target: at most
/// 2.5×; peak memory reported, flat in the count).
struct LuaMigration: Workload {
    let name = "lua_migration"
    let target = 2.5

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        [
            try MigrationBench.comparison(context, name: name, target: target) { url in
                let runtime = try RealmLuaRuntime(
                    userName: "bench", folder: context.folder,
                    defaultConfiguration: MigrationBench.configuration(url))
                try runtime.execute(
                    """
                    local c = Realm.Configuration.defaultConfiguration
                    c.migrationBlock = function(migration, oldSchemaVersion)
                      migration:enumerateObjects("Dog", function(old, new) new.favoriteTreat = "bone" end)
                    end
                    Realm.Configuration.defaultConfiguration = c
                    """, chunkName: "=lua_migration")
                let config = runtime.swiftDefaultConfiguration
                return PreparedRun(run: {
                    // The configuration holds the runtime weakly: keep it alive for the run.
                    let report = try withExtendedLifetime(runtime) { try Realm.performMigration(for: config) }
                    return Int64(report.classes["Dog"]?.enumerated ?? 0)
                })
            }
        ]
    }
}
