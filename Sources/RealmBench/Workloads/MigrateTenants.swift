import CSQLite
import Foundation
import RealmDatabase
import RealmHost

/// `migrate_tenants`: `realm-host migrate --all-users` over 1,000 small tenants, each at schema
/// version 1 while the plugin is at version 2 (it adds a property), against raw SQLite opening
/// each file and running one statement (the column the migration adds), one file after the
/// other, in the same run. Target: at most 3×. Every run starts from fresh copies of the
/// version-1 tenants (not timed). The `migrate_tenants` row migrates `--jobs` tenants at once (by
/// default one per core, as `realm-host migrate` does); `migrate_tenants/jobs=1` one at a time.
struct MigrateTenants: Workload {
    let name = "migrate_tenants"
    let target = 3.0

    static let pluginV2 = """
        return { name = "tiny", schemaVersion = 2, schema = {
          { name = "Note", primaryKey = "_id", properties = {
              { name = "_id", type = "objectId" }, { name = "text", type = "string" },
              { name = "tag", type = "string" } } } } }
        """

    static func schemaV1() -> Schema {
        Schema([
            ObjectSchema(
                className: "Note",
                properties: [
                    Property(name: "_id", type: .objectId, isPrimaryKey: true), Property(name: "text", type: .string),
                ])
        ])
    }

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let n = context.scaled(1_000, minimum: 10)
        // Version-1 tenants with a few notes each, built once.
        let template = context.folder.appendingPathComponent("tenants-v1", isDirectory: true)
        try FileManager.default.createDirectory(at: template, withIntermediateDirectories: true)
        for i in 0..<n {
            var c = Realm.Configuration(fileURL: template.appendingPathComponent("user\(i).realm"))
            c.schema = MigrateTenants.schemaV1()
            c.schemaVersion = 1
            let realm = try Realm(configuration: c)
            try realm.write { for j in 0..<5 { try realm.create("Note", value: ["text": .string("note \(j)")]) } }
        }
        let plugins = context.folder.appendingPathComponent("tenant-plugins/tiny", isDirectory: true)
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        try MigrateTenants.pluginV2.write(
            to: plugins.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
        func freshData() throws -> URL {
            let data = context.freshURL("tenants").deletingPathExtension()
            try FileManager.default.copyItem(at: template, to: data)
            return data
        }
        let users = (0..<n).map { "user\($0)" }
        func row(_ name: String, jobs: Int?) -> Comparison {
            Comparison(
                name: name, target: target, size: n, warmUpSize: nil,
                ours: { _ in
                    let host = try TenantHost(
                        options: HostOptions(
                            dataFolder: try freshData(), pluginFolders: [plugins.deletingLastPathComponent()]))
                    return PreparedRun(run: {
                        let results = host.migrate(users: users, jobs: jobs)
                        if let failed = results.first(where: { !$0.succeeded }) {
                            throw WorkloadSkipped(reason: failed.error ?? "migration failed")
                        }
                        // The report order is the users' order, whatever order the tenants finished in.
                        guard results.map(\.user) == users else {
                            throw WorkloadSkipped(reason: "the results are not in the users' order")
                        }
                        return Int64(results.count)
                    })
                },
                raw: { _ in
                    let data = try freshData()
                    return PreparedRun(run: {
                        for user in users {
                            let db = try RawDatabase.openConfigured(data.appendingPathComponent("\(user).realm").path)
                            try db.exec("ALTER TABLE \"class_Note\" ADD COLUMN \"tag\" TEXT DEFAULT ''")
                        }
                        return Int64(users.count)
                    })
                })
        }
        return [row(name, jobs: context.jobs), row(name + "/jobs=1", jobs: 1)]
    }
}
