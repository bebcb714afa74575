import Foundation
import RealmDatabase
import RealmHost
import XCTest

final class PluginTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "realmhost-host-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    static var repoPlugins: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("plugins")
    }

    func writePlugin(_ name: String, _ source: String, files: [String: String] = [:]) throws -> URL {
        let dir = folder.appendingPathComponent("plugins/\(name)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try source.write(to: dir.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
        for (path, text) in files {
            let url = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return dir
    }

    func testDoggoPluginTestsPass() throws {
        var lines = [String]()
        let report = try PluginTestRunner.run(pluginFolder: Self.repoPlugins.appendingPathComponent("doggo")) {
            lines.append($0)
        }
        XCTAssertEqual(report.failed, 0, lines.joined(separator: "\n"))
        XCTAssertGreaterThanOrEqual(report.passed, 6)
    }

    func testFailingPluginTestIsReported() throws {
        let dir = try writePlugin(
            "p", "return { name = 'p', schemaVersion = 1, schema = { { name = 'T', properties = { x = 'int' } } } }",
            files: [
                "tests/t.lua":
                    "test('ok', function() assertEqual(1, 1) end)\n"
                    + "test('bad', function() assertEqual(#realm:objects('T'), 5) end)"
            ])
        var lines = [String]()
        let report = try PluginTestRunner.run(pluginFolder: dir) { lines.append($0) }
        XCTAssertEqual(report.passed, 1)
        XCTAssertEqual(report.failed, 1)
        XCTAssertTrue(report.failures[0].message.contains("expected 5, got 0"), report.failures[0].message)
        // The position names the file relative to the plugin, not by a cut absolute path.
        XCTAssertTrue(report.failures[0].message.hasPrefix("tests/t.lua:2:"), report.failures[0].message)
    }

    func testBadManifestNamesFileAndField() throws {
        _ = try writePlugin("bad", "return { name = 'bad', schemaVersion = 'two' }")
        XCTAssertThrowsError(
            try TenantHost(
                options: HostOptions(
                    dataFolder: folder.appendingPathComponent("data"),
                    pluginFolders: [folder.appendingPathComponent("plugins")]))
        ) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("plugin.lua") && message.contains("field 'schemaVersion'"), message)
        }
    }

    func testTwoPluginsDeclaringOneClassDifferentlyIsAnError() throws {
        _ = try writePlugin(
            "a", "return { name = 'a', schema = { { name = 'Dog', properties = { name = 'string' } } } }")
        _ = try writePlugin("b", "return { name = 'b', schema = { { name = 'Dog', properties = { age = 'int' } } } }")
        XCTAssertThrowsError(
            try TenantHost(
                options: HostOptions(
                    dataFolder: folder.appendingPathComponent("data"),
                    pluginFolders: [folder.appendingPathComponent("plugins")]))
        ) { error in
            XCTAssertTrue("\(error)".contains("class 'Dog' is also declared, differently"), "\(error)")
        }
        try FileManager.default.removeItem(at: folder.appendingPathComponent("plugins/b"))
        _ = try writePlugin(
            "b", "return { name = 'b', schema = { { name = 'Dog', properties = { name = 'string' } } } }")
        XCTAssertNoThrow(
            try TenantHost(
                options: HostOptions(
                    dataFolder: folder.appendingPathComponent("data"),
                    pluginFolders: [folder.appendingPathComponent("plugins")])))
    }

    func testRequireIsConfinedToThePluginFolder() throws {
        _ = try writePlugin(
            "r", "local lib = require('lib.names'); return { name = lib.name }",
            files: ["lib/names.lua": "return { name = 'r' }"])
        let host = try TenantHost(
            options: HostOptions(
                dataFolder: folder.appendingPathComponent("data"),
                pluginFolders: [folder.appendingPathComponent("plugins")]))
        XCTAssertEqual(host.registry.plugins.map(\.name), ["r"])
        _ = try writePlugin("s", "require('../r/lib/names'); return { name = 's' }")
        XCTAssertThrowsError(
            try TenantHost(
                options: HostOptions(
                    dataFolder: folder.appendingPathComponent("data2"),
                    pluginFolders: [folder.appendingPathComponent("plugins")])))
    }

    func testNumberedMigrationsRunInOneTransactionAndRollBackTogether() throws {
        let data = folder.appendingPathComponent("data")
        let plugins = folder.appendingPathComponent("plugins")
        let v1 = "return { name = 'm', schemaVersion = 1, schema = { { name = 'T', properties = { x = 'int' } } } }"
        _ = try writePlugin("m", v1)
        do {
            let host = try TenantHost(options: HostOptions(dataFolder: data, pluginFolders: [plugins]))
            try host.withTenant("alice") { t in
                try t.runtime.execute("realm:objects('T'):append{ x = 1 }", chunkName: "=t")
            }
            try host.withTenant("bob") { t in
                try t.runtime.execute("realm:objects('T'):append{ x = 1 }", chunkName: "=t")
            }
        }
        let v3 =
            "return { name = 'm', schemaVersion = 3, schema = { "
            + "{ name = 'T', properties = { x = 'int', y = 'int', z = 'int' } } } }"
        try FileManager.default.removeItem(at: plugins.appendingPathComponent("m"))
        _ = try writePlugin(
            "m", v3,
            files: [
                "migrations/0002_y.lua":
                    "return function(m) m:enumerateObjects('T', function(old, new) new.y = old.x + 1 end) end",
                "migrations/0003_z.lua":
                    "return function(m) m:enumerateObjects('T', function(old, new) "
                    + "if new.x == 99 then error('bad data') end new.z = new.y + 1 end) end",
            ])
        // Make bob's data fail step 3.
        let bobURL = data.appendingPathComponent("bob.realm")
        let bob = try Realm(configuration: Realm.Configuration(fileURL: bobURL))
        try bob.write { try bob.objects("T")[0].setValue(99, forKey: "x") }
        let host = try TenantHost(options: HostOptions(dataFolder: data, pluginFolders: [plugins]))
        let dry = host.migrate(users: ["alice"], dryRun: true)
        // Two steps enumerate and change the one object: it counts once.
        XCTAssertEqual(dry.first?.report?.classes["T"]?.enumerated, 1, "the object is counted once")
        XCTAssertEqual(dry.first?.report?.classes["T"]?.changed, 1, "the object is counted once")
        XCTAssertEqual(
            try Realm.storedSchemaVersion(at: data.appendingPathComponent("alice.realm")), 1,
            "a dry run changes nothing")
        let results = host.migrate(users: ["alice", "bob"])
        XCTAssertTrue(results[0].succeeded, results[0].error ?? "")
        XCTAssertFalse(results[1].succeeded)
        XCTAssertTrue(results[1].error?.contains("bad data") == true, results[1].error ?? "")
        XCTAssertEqual(try Realm.storedSchemaVersion(at: bobURL), 1, "bob's failed step 3 rolled back step 2 too")
        let alice = try Realm(
            configuration: Realm.Configuration(fileURL: data.appendingPathComponent("alice.realm"), readOnly: true))
        XCTAssertEqual(try alice.objects("T")[0]["z"], 3)
    }

    /// `migrate --jobs N` (issue 14): tenants migrated several at once come back in the users'
    /// order, each with its own outcome, the same as one at a time (each tenant its own
    /// transaction, as realm-core migrates each file on its own).
    func testParallelMigrationKeepsTheUsersOrder() throws {
        let data = folder.appendingPathComponent("data")
        let plugins = folder.appendingPathComponent("plugins")
        let v1 = "return { name = 'm', schemaVersion = 1, schema = { { name = 'T', properties = { x = 'int' } } } }"
        _ = try writePlugin("m", v1)
        let users = (0..<12).map { "user\($0)" }
        do {
            let host = try TenantHost(options: HostOptions(dataFolder: data, pluginFolders: [plugins]))
            for (i, user) in users.enumerated() {
                try host.withTenant(user) { t in
                    // user3 and user8 hold the value step 2 refuses: their migrations fail.
                    let x = i == 3 || i == 8 ? 99 : i
                    try t.runtime.execute(
                        "for _ = 1, \(i + 1) do realm:objects('T'):append{ x = \(x) } end", chunkName: "=t")
                }
            }
        }
        try FileManager.default.removeItem(at: plugins.appendingPathComponent("m"))
        _ = try writePlugin(
            "m",
            "return { name = 'm', schemaVersion = 2, schema = { "
                + "{ name = 'T', properties = { x = 'int', y = 'int' } } } }",
            files: [
                "migrations/0002_y.lua":
                    "return function(m) m:enumerateObjects('T', function(old, new) "
                    + "if old.x == 99 then error('bad data') end new.y = old.x end) end"
            ])
        let host = try TenantHost(options: HostOptions(dataFolder: data, pluginFolders: [plugins]))
        let dry = host.migrate(users: users, dryRun: true, jobs: 1)
        let parallel = host.migrate(users: users, jobs: 2)
        for results in [dry, parallel] {
            XCTAssertEqual(results.map(\.user), users)
            XCTAssertEqual(results.map(\.succeeded), users.indices.map { $0 != 3 && $0 != 8 })
        }
        for (i, result) in parallel.enumerated() where result.succeeded {
            XCTAssertEqual(result.report?.classes["T"]?.enumerated, i + 1, users[i])
            XCTAssertEqual(result.report?.classes["T"]?.changed, i + 1, users[i])
        }
        XCTAssertEqual(try Realm.storedSchemaVersion(at: data.appendingPathComponent("user3.realm")), 1)
        XCTAssertEqual(try Realm.storedSchemaVersion(at: data.appendingPathComponent("user4.realm")), 2)
    }

    func testUserNamesAreCheckedBeforeAnyFileIsTouched() throws {
        let host = try TenantHost(options: HostOptions(dataFolder: folder.appendingPathComponent("data")))
        for bad in [
            "", "../x", "a/b", ".hidden", "x\u{0}y", "tab\tname", String(repeating: "n", count: 65), "e\u{301}",
        ] {
            XCTAssertThrowsError(try host.withTenant(bad) { _ in }, "accepted '\(bad)'") { error in
                XCTAssertTrue("\(error)".hasPrefix("Invalid user name"), "\(error)")
            }
        }
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("data").path), [])
        XCTAssertNoThrow(try host.withTenant("Gordon Cole") { _ in })
    }

    func testTenantCannotOpenAnotherTenantsFile() throws {
        let host = try TenantHost(options: HostOptions(dataFolder: folder.appendingPathComponent("data")))
        try host.withTenant("bob") { _ in }
        try host.withTenant("alice") { t in
            XCTAssertThrowsError(
                try t.runtime.execute(
                    "local c = Realm.Configuration.defaultConfiguration; c.fileURL = 'bob.realm'; Realm(c)",
                    chunkName: "=t")
            ) { error in
                XCTAssertTrue("\(error)".contains("may only open its own realm files"), "\(error)")
            }
            XCTAssertNoThrow(
                try t.runtime.execute(
                    "local c = Realm.Configuration.defaultConfiguration; c.fileURL = 'alice.scratch.realm'; Realm(c)",
                    chunkName: "=t"))
        }
    }

    func testCommandLimitsStopARunawayCommandAndRollItBack() throws {
        _ = try writePlugin(
            "loop",
            """
            return { name = "loop", schemaVersion = 1, schema = { { name = "T", properties = { x = "int" } } },
              commands = {
                spin = { run = function(realm) realm:beginWrite(); realm:create("T", { x = 1 }); while true do end end,
                         limits = { timeSeconds = 0.2 } },
                count = function(realm) return #realm:objects("T") end,
              } }
            """)
        let host = try TenantHost(
            options: HostOptions(
                dataFolder: folder.appendingPathComponent("data"),
                pluginFolders: [folder.appendingPathComponent("plugins")]))
        try host.withTenant("alice") { t in
            XCTAssertThrowsError(try t.runCommand("spin", arguments: [])) { error in
                XCTAssertTrue("\(error)".contains("time limit"), "\(error)")
            }
            XCTAssertFalse(t.realm.isInWriteTransaction, "the command's open write was rolled back")
            XCTAssertEqual(try t.runCommand("count", arguments: []).first?.integerValue, 0)
        }
    }
}
