import Foundation
import RealmDatabase
import RealmHost
import XCTest

/// A plugin written wrong stops the host at start with a message naming the file and the field,
/// instead of loading with a part of it silently missing (issue: nothing passes in silence).
final class PluginTrapTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "realmhost-traps-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func write(_ source: String, files: [String: String] = [:]) throws {
        let dir = folder.appendingPathComponent("plugins/p", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try source.write(to: dir.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
        for (path, text) in files {
            let url = dir.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
    }

    /// The message the host's start fails with.
    private func startError() -> String {
        do {
            _ = try TenantHost(
                options: HostOptions(
                    dataFolder: folder.appendingPathComponent("data"),
                    pluginFolders: [folder.appendingPathComponent("plugins")]))
            return "(the host started)"
        } catch {
            return "\(error)"
        }
    }

    func testAMisspeltTopLevelFieldIsRefusedWithTheFieldItMeant() throws {
        try write("return { name = 'p', command = { hi = function() return 1 end } }")
        let message = startError()
        XCTAssertTrue(message.contains("plugin.lua: field 'command' is not a known field"), message)
        XCTAssertTrue(message.contains("did you mean 'commands'?"), message)
    }

    func testAFieldFarFromAnyIsRefusedWithTheList() throws {
        try write("return { name = 'p', colour = 'blue' }")
        let message = startError()
        XCTAssertTrue(message.contains("field 'colour' is not a known field; a plugin has name, version"), message)
        XCTAssertFalse(message.contains("did you mean"), message)
    }

    func testACommandTableWithAMisspeltKeyIsRefused() throws {
        try write("return { name = 'p', commands = { hi = { run = function() end, useage = 'X' } } }")
        let message = startError()
        XCTAssertTrue(
            message.contains("field 'commands.hi.useage' is not a known field (did you mean 'usage'?)"), message)
    }

    func testACommandNamedLikeABuiltInIsRefused() throws {
        try write("return { name = 'p', commands = { schema = function() return 1 end } }")
        let message = startError()
        XCTAssertTrue(message.contains("field 'commands.schema' takes the name of the REPL's own .schema"), message)
    }

    func testASyntaxErrorInAMigrationFileStopsTheHostAtStart() throws {
        try write(
            "return { name = 'p', schemaVersion = 2, schema = { { name = 'T', properties = { x = 'int' } } } }",
            files: ["migrations/0002_fix.lua": "return function(migration, old)\n  if old < 2 then\nend\n"])
        let message = startError()
        XCTAssertTrue(message.contains("plugin p:"), message)
        XCTAssertTrue(message.contains("0002_fix.lua:"), message)
        XCTAssertTrue(message.contains("'end' expected"), message)
        // Nothing was created for any user: the data folder holds no realm.
        let realms =
            (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("data").path))?
            .filter { $0.hasSuffix(".realm") } ?? []
        XCTAssertEqual(realms, [])
    }

    func testAMigrationFileReturningNoFunctionStopsTheHostAtStart() throws {
        try write(
            "return { name = 'p', schemaVersion = 2, schema = { { name = 'T', properties = { x = 'int' } } } }",
            files: ["migrations/0002_fix.lua": "local x = 1\n"])
        let message = startError()
        XCTAssertTrue(message.contains("0002_fix.lua: a migration file must return a function"), message)
    }

    func testACommandsUsageAndHelpAreKept() throws {
        try write(
            """
            return { name = 'p', commands = {
              adopt = { run = function(realm, name) return name end, usage = 'NAME [TREAT]', help = 'adopt a dog' },
              plain = function() return 1 end,
            } }
            """)
        let host = try TenantHost(
            options: HostOptions(
                dataFolder: folder.appendingPathComponent("data"),
                pluginFolders: [folder.appendingPathComponent("plugins")]))
        let (adopt, plain) = try host.withTenant("kim") { tenant in
            (tenant.commandUsage("adopt"), tenant.commandUsage("plain"))
        }
        XCTAssertEqual(adopt.usage, "NAME [TREAT]")
        XCTAssertEqual(adopt.help, "adopt a dog")
        XCTAssertNil(plain.usage)
        XCTAssertNil(plain.help)
    }

    func testAPluginsFolderNamedInHostLuaMustExist() throws {
        let data = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try "return { plugins = { 'plugnis' } }".write(
            to: data.appendingPathComponent("host.lua"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try TenantHost(options: HostOptions(dataFolder: data))) { error in
            XCTAssertTrue(
                "\(error)".contains("field 'plugins': \(self.folder.path)/plugnis: no such folder"), "\(error)")
        }
    }

    /// host.lua refuses a field it does not have, as plugin.lua does.
    func testAMisspeltHostLuaFieldIsRefusedWithTheFieldItMeant() throws {
        let data = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try "return { cachesize = 8 }".write(
            to: data.appendingPathComponent("host.lua"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try TenantHost(options: HostOptions(dataFolder: data))) { error in
            XCTAssertTrue(
                "\(error)".contains("host.lua: field 'cachesize' is not a known field (did you mean 'cacheSize'?)"),
                "\(error)")
        }
    }
}
