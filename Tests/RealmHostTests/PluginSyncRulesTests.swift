import Foundation
import LuaSandbox
import RealmHost
import RealmSync
import XCTest

/// The plugins' `sync` tables (docs/SYNC.md "Rules in the plugin"): read into `SyncRules`, each
/// malformed shape refused with a message naming the plugin and the key, merged across plugins,
/// and out of every tenant's reach.
final class PluginSyncRulesTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "realmhost-sync-rules-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// Dog and DogToy sync (primary keys); Note has no primary key.
    static let schema = """
        schema = {
          { name = "Dog", primaryKey = "_id", properties = {
              _id = "objectId", owner = "string", age = "int", breed = "string", shared = "bool",
              toys = "DogToy[]" } },
          { name = "DogToy", primaryKey = "_id", properties = { _id = "objectId", name = "string" } },
          { name = "Note", properties = { text = "string" } },
        }
        """

    /// The example of docs/SYNC.md.
    static let exampleSync = """
        sync = {
          queryable = { Dog = { "owner", "age", "breed", "shared" } },
          permissions = {
            Dog = { read = "owner == $user OR shared == true", write = "owner == $user" },
            DogToy = { read = true, write = true },
          },
        }
        """

    func writePlugin(_ name: String, _ source: String) throws {
        let dir = folder.appendingPathComponent("plugins/\(name)", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try source.write(to: dir.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
    }

    func registry() throws -> PluginRegistry {
        try PluginRegistry(folders: [folder.appendingPathComponent("plugins")])
    }

    func host() throws -> TenantHost {
        try TenantHost(
            options: HostOptions(
                dataFolder: folder.appendingPathComponent("data"),
                pluginFolders: [folder.appendingPathComponent("plugins")]))
    }

    // MARK: reading

    func testTheExampleRulesAreRead() throws {
        try writePlugin("p", "return { name = 'p', \(Self.schema), \(Self.exampleSync) }")
        let expected = SyncRules(
            queryable: ["Dog": ["owner", "age", "breed", "shared"]],
            permissions: [
                "Dog": .init(read: .query("owner == $user OR shared == true"), write: .query("owner == $user")),
                "DogToy": .init(read: .always(true), write: .always(true)),
            ])
        let registry = try registry()
        XCTAssertEqual(registry.syncRules, expected)
        XCTAssertEqual(registry.plugins.first?.syncRules, expected)
    }

    func testAPluginWithoutSyncHasNoRules() throws {
        try writePlugin("p", "return { name = 'p', \(Self.schema) }")
        XCTAssertEqual(try registry().syncRules, SyncRules())
    }

    /// Each wrong shape, and the message that names it.
    func testEachMalformedShapeIsRefusedWithItsMessage() throws {
        let cases: [(sync: String, message: String)] = [
            ("sync = 'all'", "plugin p: sync must be a table { queryable = …, permissions = … }, not a string"),
            (
                "sync = { queryables = {} }",
                "plugin p: field 'sync.queryables' is not a known field (did you mean 'queryable'?); sync has queryable, permissions"
            ),
            ("sync = { {} }", "plugin p: field 'sync' is a table of named fields (queryable, permissions), not a list"),
            (
                "sync = { queryable = 3 }",
                "plugin p: sync.queryable must be a table of class names to lists of field names, not a number"
            ),
            ("sync = { queryable = { 'Dog' } }", "plugin p: sync.queryable must be keyed by class names, not a list"),
            (
                "sync = { queryable = { Cat = {} } }",
                "plugin p: sync.queryable.Cat: the plugin's schema has no class 'Cat'"
            ),
            ("sync = { queryable = { Note = {} } }", "plugin p: sync.queryable.Note: class 'Note' has no primary key"),
            (
                "sync = { queryable = { Dog = 'owner' } }",
                "plugin p: sync.queryable.Dog must be a list of field names, not a string"
            ),
            (
                "sync = { queryable = { Dog = { owner = true } } }",
                "plugin p: sync.queryable.Dog must be a list of field names, not a table with keys"
            ),
            (
                "sync = { queryable = { Dog = { 'owner', 3 } } }",
                "plugin p: sync.queryable.Dog[2] must be a field name (a string), not a number"
            ),
            (
                "sync = { queryable = { Dog = { 'ownr' } } }",
                "plugin p: sync.queryable.Dog[1]: class 'Dog' has no property 'ownr'"
            ),
            (
                "sync = { queryable = { Dog = { 'toys' } } }",
                "plugin p: sync.queryable.Dog[1]: 'toys' is a DogToy[] property; "
                    + "only top-level fields of a scalar type are queryable"
            ),
            ("sync = { queryable = { Dog = { 'age', 'age' } } }", "plugin p: sync.queryable.Dog lists 'age' twice"),
            (
                "sync = { permissions = true }",
                "plugin p: sync.permissions must be a table of class names to { read = …, write = … }, "
                    + "not a boolean"
            ),
            (
                "sync = { permissions = { Cat = { read = true, write = true } } }",
                "plugin p: sync.permissions.Cat: the plugin's schema has no class 'Cat'"
            ),
            (
                "sync = { permissions = { Dog = 'owner == $user' } }",
                "plugin p: sync.permissions.Dog must be a table { read = …, write = … }, not a string"
            ),
            (
                "sync = { permissions = { Dog = { read = 1, write = true } } }",
                "plugin p: sync.permissions.Dog.read must be a query string or a boolean, not a number"
            ),
            (
                "sync = { permissions = { Dog = { read = true, write = function() end } } }",
                "plugin p: sync.permissions.Dog.write must be a query string or a boolean, not a function"
            ),
            (
                "sync = { permissions = { Dog = { read = true } } }",
                "plugin p: sync.permissions.Dog.write is missing: give a query string or a boolean"
            ),
            (
                "sync = { permissions = { Dog = { read = ' ', write = true } } }",
                "plugin p: sync.permissions.Dog.read is an empty query"
            ),
            (
                "sync = { permissions = { Dog = { read = true, write = true, delete = false } } }",
                "plugin p: field 'sync.permissions.Dog.delete' is not a known field; sync.permissions.Dog has read, write"
            ),
            (
                "sync = { queryable = { Dog = { 'owner' } }, permissions = { Dog = { read = 'age > 3', write = true } } }",
                "plugin p: sync.permissions.Dog.read: Invalid query 'age > 3' at column 1: "
                    + "'age' is not a queryable field of 'Dog'"
            ),
            (
                "sync = { permissions = { Dog = { read = 'owner ==', write = true } } }",
                "plugin p: sync.permissions.Dog.read: Invalid query 'owner =='"
            ),
        ]
        for (index, testCase) in cases.enumerated() {
            let name = "p\(index)"
            try writePlugin(name, "return { name = 'p', \(Self.schema), \(testCase.sync) }")
            let registry = { try PluginRegistry(folders: [self.folder.appendingPathComponent("plugins/\(name)")]) }
            XCTAssertThrowsError(try registry(), testCase.sync) { error in
                XCTAssertTrue("\(error)".contains(testCase.message), "\(testCase.sync): \(error)")
            }
        }
    }

    // MARK: several plugins

    func testTheRulesOfSeveralPluginsMerge() throws {
        try writePlugin("a", "return { name = 'a', \(Self.schema), \(Self.exampleSync) }")
        try writePlugin(
            "b",
            """
            return { name = 'b',
              schema = { { name = "Cat", primaryKey = "_id", properties = { _id = "int", lives = "int" } } },
              sync = { queryable = { Cat = { "lives" } }, permissions = { Cat = { read = true, write = false } } } }
            """)
        let rules = try registry().syncRules
        XCTAssertEqual(rules.queryable, ["Dog": ["owner", "age", "breed", "shared"], "Cat": ["lives"]])
        XCTAssertEqual(Set(rules.permissions.keys), ["Dog", "DogToy", "Cat"])
        XCTAssertEqual(rules.permissions["Cat"], .init(read: .always(true), write: .always(false)))
    }

    func testTwoPluginsRulingOneClassIsAnErrorNamingBoth() throws {
        try writePlugin("a", "return { name = 'a', \(Self.schema), sync = { queryable = { Dog = { 'age' } } } }")
        // b declares the same classes (allowed) and rules Dog too (not allowed), in another part.
        try writePlugin(
            "b",
            "return { name = 'b', \(Self.schema), sync = { permissions = { Dog = { read = true, write = true } } } }")
        XCTAssertThrowsError(try registry()) { error in
            XCTAssertTrue(
                "\(error)".contains("plugins a and b both give sync rules for class 'Dog'"), "\(error)")
        }
    }

    func testAPluginCannotRuleAClassItDoesNotDeclare() throws {
        try writePlugin("a", "return { name = 'a', \(Self.schema) }")
        try writePlugin("b", "return { name = 'b', sync = { permissions = { Dog = { read = true, write = true } } } }")
        XCTAssertThrowsError(try registry()) { error in
            XCTAssertTrue(
                "\(error)".contains("plugin b: sync.permissions.Dog: the plugin's schema has no class 'Dog'"),
                "\(error)")
        }
    }

    // MARK: doggo

    func testDoggoRulesLoad() throws {
        let rules = try PluginRegistry(folders: [PluginTests.repoPlugins]).syncRules
        let household = SyncRules.ClassRules(read: .query("household == $user"), write: .query("household == $user"))
        XCTAssertEqual(Set(rules.permissions.keys), ["Dog", "DogToy", "Person"])
        for className in ["Dog", "DogToy", "Person"] {
            XCTAssertEqual(rules.permissions[className], household, className)
            XCTAssertEqual(rules.queryable[className]?.first, "household", className)
        }
        XCTAssertNil(rules.permissions["Company"], "Company stays private per user")
    }

    // MARK: out of the tenants' reach

    /// Neither a tenant's script nor the plugin's own functions (which run for the tenant) find the
    /// rules, and what they write where the rules were changes nothing the host enforces.
    func testTenantScriptsCannotSeeOrChangeTheRules() throws {
        try writePlugin(
            "p",
            """
            local P
            P = { name = 'p', \(Self.schema), \(Self.exampleSync),
              commands = {
                peek = function(realm) return P.sync end,
                tamper = function(realm) P.sync = { permissions = { Dog = { read = true, write = true } } } end,
              } }
            return P
            """)
        let host = try host()
        let before = host.registry.syncRules
        XCTAssertNotEqual(before, SyncRules())
        try host.withTenant("alice") { tenant in
            XCTAssertEqual(try tenant.runCommand("peek", arguments: []).first ?? .nil, .nil)
            let seen = try tenant.runtime.execute(
                "return type(sync), type(rawget(_G, 'sync')), type(plugins), type(P)", chunkName: "=tenant")
            XCTAssertEqual(seen, Array(repeating: .string("nil"), count: 4))
            try tenant.runCommand("tamper", arguments: [])
            try tenant.runtime.execute("sync = { permissions = {} }", chunkName: "=tenant")
        }
        XCTAssertEqual(host.registry.syncRules, before, "the host's rules were read once, from the files")
    }
}
