import Foundation
import XCTest

/// `realm-host` end to end: status codes, output, errors.
final class CommandLineTests: XCTestCase {
    var workspace: Workspace!

    override func setUpWithError() throws {
        workspace = try Workspace()
    }

    override func tearDown() {
        workspace = nil
    }

    func testVersionAndHelpOnEveryCommand() throws {
        let version = try workspace.run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.hasPrefix("realm-host "), version.stdout)
        for command in [
            [], ["repl"], ["run"], ["migrate"], ["users"], ["schema"], ["export"], ["import"], ["plugin"],
            ["plugin", "test"], ["which-host"],
        ] {
            let help = try workspace.run(command + ["--help"])
            XCTAssertEqual(help.status, 0, "\(command) --help: \(help.stderr)")
            XCTAssertTrue(help.stdout.contains("USAGE: realm-host"), "\(command) --help:\n\(help.stdout)")
        }
        let unknown = try workspace.run(["frobnicate", "--nope"])
        XCTAssertNotEqual(unknown.status, 0)
    }

    // MARK: run

    func testRunPrintsToStandardOutputWithArguments() throws {
        try workspace.write(
            "hello.lua",
            """
            print("hello", arg[1], arg[2], #arg, user.name)
            realm:objects("Dog"):append{ name = arg[1] }
            print(#realm:objects("Dog"))
            """)
        let r = try workspace.run(["run", "--user", "alice", "hello.lua", "Maui", "--two"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "hello\tMaui\t--two\t2\talice\n1\n")
        XCTAssertEqual(r.stderr, "")
        XCTAssertTrue(FileManager.default.fileExists(atPath: workspace.data.appendingPathComponent("alice.realm").path))
    }

    func testRunErrorIsFileLineMessageStatusOneAndRollsBack() throws {
        try workspace.write(
            "fail.lua",
            """
            local dogs = realm:objects("Dog")
            realm:beginWrite()
            dogs:append{ name = "Ghost" }
            print("before the error")
            error("the dog ate it")
            """)
        let r = try workspace.run(["run", "fail.lua"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "before the error\n")
        XCTAssertEqual(r.stderr, "fail.lua:5: the dog ate it\n")
        let count = try workspace.run(["repl"], input: "#realm:objects('Dog')\n")
        XCTAssertEqual(count.stdout, "0\n", "nothing of the failed script's transaction is kept")

        // An error raised by the database names the script line too.
        try workspace.write("sub/bad.lua", "\n\nrealm:objects('Cat')\n")
        let bad = try workspace.run(["run", "sub/bad.lua"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.hasPrefix("sub/bad.lua:3: "), bad.stderr)
        XCTAssertTrue(bad.stderr.contains("Cat"), bad.stderr)

        // A syntax error.
        try workspace.write("syntax.lua", "local x = \nend")
        let syntax = try workspace.run(["run", "syntax.lua"])
        XCTAssertEqual(syntax.status, 1)
        XCTAssertTrue(syntax.stderr.hasPrefix("syntax.lua:2: "), syntax.stderr)

        // A script that leaves a write open: rolled back, with a warning.
        try workspace.write("open.lua", "realm:beginWrite() realm:objects('Dog'):append{ name = 'Left' }")
        let open = try workspace.run(["run", "open.lua"])
        XCTAssertEqual(open.status, 0)
        XCTAssertTrue(open.stderr.contains("rolled back"), open.stderr)
        XCTAssertEqual(try workspace.run(["repl"], input: "#realm:objects('Dog')\n").stdout, "0\n")
    }

    func testRunRefusesMissingScriptsAndBadUsers() throws {
        let missing = try workspace.run(["run", "nope.lua"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("nope.lua"), missing.stderr)
        let none = try workspace.run(["run"])
        XCTAssertNotEqual(none.status, 0)
        try workspace.write("ok.lua", "print(1)")
        for bad in ["../escape", ".hidden", "a/b", ""] {
            let r = try workspace.run(["run", "--user", bad, "ok.lua"])
            XCTAssertEqual(r.status, 1, bad)
            XCTAssertTrue(r.stderr.contains("Invalid user name"), r.stderr)
        }
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("escape.realm").path))
    }

    func testScriptsCannotOpenOtherUsersFiles() throws {
        try workspace.write(
            "peek.lua",
            """
            local c = Realm.Configuration.defaultConfiguration
            c.fileURL = "bob.realm"
            Realm(c)
            """)
        let r = try workspace.run(["run", "--user", "alice", "peek.lua"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("peek.lua:2: ") || r.stderr.hasPrefix("peek.lua:3: "), r.stderr)
        XCTAssertTrue(r.stderr.contains("may only open its own realm files"), r.stderr)
    }

    func testDataFolderFromOptionAndEnvironment() throws {
        try workspace.write("count.lua", "realm:objects('Dog'):append{ name = 'x' } print(#realm:objects('Dog'))")
        XCTAssertEqual(try workspace.run(["run", "--data", "elsewhere", "count.lua"]).stdout, "1\n")
        XCTAssertEqual(
            try workspace.run(["run", "count.lua"], environment: ["REALM_HOST_DATA": "elsewhere"]).stdout, "2\n")
        XCTAssertEqual(try workspace.run(["run", "count.lua"]).stdout, "1\n")
        XCTAssertTrue(
            FileManager.default.fileExists(
                atPath: workspace.root.appendingPathComponent("elsewhere/default.realm").path))
        // An empty plugins folder gives no schema: the script's Dog is unknown. (A folder that does
        // not exist is refused before anything opens: `PluginsFlagTests`.)
        try FileManager.default.createDirectory(
            at: workspace.root.appendingPathComponent("none"), withIntermediateDirectories: true)
        let bare = try workspace.run(["run", "--plugins", "none", "--data", "bare", "count.lua"])
        XCTAssertEqual(bare.status, 1)
        XCTAssertTrue(bare.stderr.contains("Dog"), bare.stderr)
    }

    // MARK: The REPL on a pipe

    func testPipedREPLRunsChunksWithoutPrompt() throws {
        let input = """
            dogs = realm:objects("Dog")
            dogs:append{ name = "Maui", weight = 7 }
            for i = 1, 2 do
              dogs:append{ name = "Pup" .. i }
            end
            #dogs
            .mode json
            dogs:sorted("name")[1]
            print("done")

            """
        let r = try workspace.run(["repl"], input: input)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stdout.contains("default>"), r.stdout)
        XCTAssertFalse(r.stdout.contains("\u{1B}["), "no colour on a pipe")
        XCTAssertTrue(r.stdout.contains("Maui"), r.stdout)
        XCTAssertTrue(r.stdout.contains("\n3\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("\"name\": \"Maui\", \"breed\": \"\", \"weight\": 7"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("done\n"), r.stdout)
        XCTAssertEqual(r.stderr, "")
    }

    /// The REPL's JSON mode writes values with the export's codec: a date is `{"$date": …}` there too.
    func testPipedREPLWritesJSONValuesAsExportDoes() throws {
        let r = try workspace.run(["repl"], input: ".mode json\nDate(0, 5)\n{ d = Decimal128('1.50'), n = 2.5 }\n")
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("{\"$date\": \"1970-01-01T00:00:00.000000005Z\"}"), r.stdout)
        XCTAssertTrue(lines.contains("{\"d\": {\"$decimal\": \"1.5\"}, \"n\": 2.5}"), r.stdout)
    }

    /// `.mode lua` writes control characters as three-digit escapes: "\1" then "2" must not read
    /// back as "\12" (the shorter escape did, review of 44d2191 §4.7).
    func testPipedREPLWritesLuaEscapesThatReadBack() throws {
        let r = try workspace.run(["repl"], input: ".mode lua\n\"\\1\" .. \"2\" .. \"\\0\" .. \"7\"\n")
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("\"\\0012\\0007\""), r.stdout)
    }

    func testPipedREPLPrintsSetsAndMapsAsTables() throws {
        try workspace.write(
            "bagplugins/bag/plugin.lua",
            """
            return { name = "bag", version = "1.0.0", schemaVersion = 1, schema = {
              { name = "Bag", properties = { name = "string", tags = "string<>", sizes = "int{}" } } } }
            """)
        let input = """
            bag = realm:objects("Bag"):append{ name = "b", tags = { "x", "y" }, sizes = { s = 1, m = 2 } }
            bag.tags
            bag.sizes
            .mode json
            bag.sizes

            """
        let r = try workspace.run(["repl", "--plugins", "bagplugins"], input: input)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertTrue(lines.contains("#  tags"), r.stdout)
        XCTAssertTrue(lines.contains("1  x") && lines.contains("2  y"), r.stdout)
        XCTAssertTrue(lines.contains("key  sizes"), r.stdout)
        XCTAssertTrue(lines.contains("m    2") && lines.contains("s    1"), r.stdout)
        XCTAssertTrue(lines.contains("{\"m\": 2, \"s\": 1}"), r.stdout)
    }

    func testPipedREPLReportsFailuresWithLinesAndExitsNonZero() throws {
        let input = """
            x = 1
            nosuch.field = 2
            print("after the error")
            if true then
              error("second")
            end
            .nosuchcommand
            print("the end")
            """
        let r = try workspace.run(["repl"], input: input)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "after the error\nthe end\n")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, r.stderr)
        XCTAssertEqual(lines.first, "stdin:2: attempt to index a nil value (global 'nosuch')")
        XCTAssertEqual(lines.dropFirst().first, "stdin:5: second")
        XCTAssertTrue(lines.last?.contains("Unknown command '.nosuchcommand'") == true, r.stderr)

        let unfinished = try workspace.run(["repl"], input: "for i = 1, 2 do\n")
        XCTAssertEqual(unfinished.status, 1)
        XCTAssertTrue(unfinished.stderr.contains("stdin:1: unfinished"), unfinished.stderr)

        let quit = try workspace.run(["repl"], input: "print(1)\n.quit\nprint(2)\n")
        XCTAssertEqual(quit.stdout, "1\n")
        XCTAssertEqual(quit.status, 0)
    }

    // MARK: users, schema

    func testUsersListsVersionsCountsAndSizes() throws {
        let empty = try workspace.run(["users"])
        XCTAssertEqual(empty.status, 0)
        XCTAssertTrue(empty.stdout.contains("No users"), empty.stdout)
        try workspace.write(
            "add.lua", "for i = 1, tonumber(arg[1]) do realm:objects('Dog'):append{ name = 'd' .. i } end")
        try workspace.run(["run", "--user", "alice", "add.lua", "3"])
        try workspace.run(["run", "--user", "bob", "add.lua", "1"])
        let r = try workspace.run(["users"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, r.stdout)
        XCTAssertTrue(lines[0].hasPrefix("user"), r.stdout)
        XCTAssertTrue(
            lines[2].range(of: #"^alice\s+3\s+3\s+[0-9.]+ KiB\s+local\s+Dog 3$"#, options: .regularExpression) != nil,
            lines[2])
        XCTAssertTrue(lines[3].range(of: #"^bob\s+3\s+1\s+"#, options: .regularExpression) != nil, lines[3])
    }

    func testSchemaCommand() throws {
        try workspace.write("touch.lua", "")
        try workspace.run(["run", "--user", "alice", "touch.lua"])
        let table = try workspace.run(["schema", "--user", "alice"])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.contains("schema version 3"), table.stdout)
        XCTAssertTrue(table.stdout.contains("Dog (primary key _id)"), table.stdout)
        XCTAssertTrue(
            table.stdout.range(of: #"favoriteTreat\s+string\n"#, options: .regularExpression) != nil, table.stdout)
        XCTAssertTrue(table.stdout.contains("linkingObjects<Person.dogs>"), table.stdout)
        let lua = try workspace.run(["schema", "--user", "alice", "--format", "lua", "Dog"])
        XCTAssertEqual(lua.status, 0)
        XCTAssertTrue(lua.stdout.contains("{ name = \"Dog\", primaryKey = \"_id\", properties = {"), lua.stdout)
        XCTAssertFalse(lua.stdout.contains("\"Person\", primaryKey"), lua.stdout)
        let missing = try workspace.run(["schema", "--user", "nobody"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no realm"), missing.stderr)
        let noClass = try workspace.run(["schema", "--user", "alice", "Cat"])
        XCTAssertEqual(noClass.status, 1)
        let plugins = try workspace.run(["schema", "--plugins-schema"])
        XCTAssertTrue(plugins.stdout.contains("DogToy"), plugins.stdout)
    }

    // MARK: migrate

    /// `migrate --jobs N` (issue 14): the report is the same, in the same order, however many
    /// tenants migrate at once; a count below 1 is refused before anything runs.
    func testMigrateJobsKeepTheReportOrder() throws {
        for user in ["carol", "alice", "bob"] {
            let r = try workspace.run([
                "run", "--plugins", "examples/doggo-v1", "--user", user, "examples/v1_add_dogs.lua",
            ])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let one = try workspace.run(["migrate", "--all-users", "--dry-run", "--jobs", "1"])
        let two = try workspace.run(["migrate", "--all-users", "--dry-run", "--jobs", "2"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(one.stdout, two.stdout)
        let order = ["alice", "bob", "carol"].compactMap { one.stdout.range(of: "\($0) ")?.lowerBound }
        XCTAssertEqual(order.count, 3, one.stdout)
        XCTAssertEqual(order, order.sorted(), one.stdout)
        let refused = try workspace.run(["migrate", "--all-users", "--jobs", "0"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("--jobs needs a whole number"), refused.stderr)
    }

    /// Realms made by doggo 1.0 (examples/doggo-v1), then migrated by the current plugin.
    func testMigrateAllUsersWithDryRunAndAFailingTenant() throws {
        for user in ["alice", "bob"] {
            let r = try workspace.run([
                "run", "--plugins", "examples/doggo-v1", "--user", user, "examples/v1_add_dogs.lua",
            ])
            XCTAssertEqual(r.stdout, "\(user): 3 dogs at schema version 1\n", r.stderr)
        }
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: workspace.data.appendingPathComponent("broken.realm"))

        // On a terminal: a progress bar, then the report.
        let terminal = try workspace.terminal(["migrate", "--all-users", "--dry-run"])
        terminal.expect("3/3 users")
        terminal.expect("would migrate")
        XCTAssertEqual(terminal.waitForExit(), 1)

        let dry = try workspace.run(["migrate", "--all-users", "--dry-run"])
        XCTAssertEqual(dry.status, 1, "a tenant failed")
        // Two steps (0002 and 0003) each enumerate and change the 3 dogs: each counts once.
        XCTAssertTrue(
            dry.stdout.range(
                of: #"alice\s+1\s+3\s+would migrate\s+Dog: 3 enumerated, 3 changed"#, options: .regularExpression)
                != nil, dry.stdout)
        XCTAssertTrue(dry.stdout.range(of: #"broken\s+FAILED"#, options: .regularExpression) != nil, dry.stdout)
        XCTAssertTrue(dry.stdout.contains("dry run"), dry.stdout)
        XCTAssertTrue(
            try workspace.run(["users"]).stdout.range(of: #"alice\s+1\s+3"#, options: .regularExpression) != nil,
            "a dry run changes nothing")

        let real = try workspace.run(["migrate", "--all-users"])
        XCTAssertEqual(real.status, 1)
        XCTAssertTrue(
            real.stdout.range(of: #"alice\s+1\s+3\s+migrated"#, options: .regularExpression) != nil, real.stdout)
        XCTAssertTrue(
            real.stdout.range(of: #"bob\s+1\s+3\s+migrated"#, options: .regularExpression) != nil, real.stdout)
        XCTAssertTrue(real.stdout.contains("2 migrated"), real.stdout)
        XCTAssertTrue(real.stdout.contains("1 failed"), real.stdout)
        XCTAssertEqual(
            try Data(contentsOf: workspace.data.appendingPathComponent("broken.realm")), garbage,
            "the failed tenant is untouched")

        try workspace.write(
            "check.lua",
            """
            local maui = realm:objects("Dog"):where("name == $0", "Maui")[1]
            print(realm.schemaVersion, maui.favoriteTreat, maui.favoriteToy.name, #realm:objects("DogToy"))
            """)
        XCTAssertEqual(try workspace.run(["run", "--user", "bob", "check.lua"]).stdout, "3\tbone\tWubba\t1\n")

        try FileManager.default.removeItem(at: workspace.data.appendingPathComponent("broken.realm"))
        let again = try workspace.run(["migrate", "--all-users"])
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertTrue(again.stdout.contains("0 migrated, 2 up to date, 0 failed"), again.stdout)

        let one = try workspace.run(["migrate", "--user", "alice"])
        XCTAssertEqual(one.status, 0)
        let nobody = try workspace.run(["migrate", "--user", "nobody"])
        XCTAssertEqual(nobody.status, 1)
        XCTAssertTrue(nobody.stderr.contains("no realm"), nobody.stderr)
        let both = try workspace.run(["migrate", "--all-users", "--user", "alice"])
        XCTAssertNotEqual(both.status, 0)
    }

    // MARK: export / import, plugin test (the lead's RealmJSON and PluginTestRunner)

    func testExportImportRoundTrip() throws {
        try workspace.write(
            "fill.lua",
            """
            local p = realm:write(function()
              return realm:create("Person", { firstName = "Dale", lastName = "Cooper" })
            end)
            p.dogs:append{ name = "Diane", weight = 12, profileImageUrl = "https://example.com/\\u{e9}.png",
              favoriteToy = { name = "Wubba" } }
            """)
        XCTAssertEqual(try workspace.run(["run", "--user", "alice", "fill.lua"]).status, 0)
        let export = try workspace.run(["export", "--user", "alice", "--format", "json"])
        if export.stderr.contains("not implemented yet") { throw XCTSkip("TenantHost.exportJSON is not there yet") }
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertTrue(export.stdout.contains("Diane"), export.stdout)
        try workspace.write("alice.json", export.stdout)
        let load = try workspace.run(["import", "--user", "copy", "alice.json"])
        XCTAssertEqual(load.status, 0, load.stderr)
        let again = try workspace.run(["export", "--user", "copy"])
        XCTAssertEqual(again.stdout, export.stdout, "the dump round-trips")
        let toFile = try workspace.run(["export", "--user", "copy", "--output", "copy.json"])
        XCTAssertEqual(toFile.status, 0)
        XCTAssertEqual(
            try String(contentsOf: workspace.root.appendingPathComponent("copy.json"), encoding: .utf8), export.stdout)
        let bad = try workspace.run(["import", "--user", "x", "missing.json"])
        XCTAssertEqual(bad.status, 1)
        let noUser = try workspace.run(["export", "--user", "nobody"])
        XCTAssertEqual(noUser.status, 1)
    }

    func testPluginTest() throws {
        let r = try workspace.run(["plugin", "test", "plugins/doggo"])
        if r.stderr.contains("not implemented yet") { throw XCTSkip("PluginTestRunner is not there yet") }
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains(" 0 failed"), r.stdout)
        try workspace.write("broken-plugin/plugin.lua", "return { name = \"broken\", schemaVersion = 0 }")
        try workspace.write("broken-plugin/tests/fail_test.lua", "test('fails', function() assertEqual(1, 2) end)")
        let failing = try workspace.run(["plugin", "test", "broken-plugin"])
        XCTAssertEqual(failing.status, 1, failing.stdout + failing.stderr)
        let notAPlugin = try workspace.run(["plugin", "test", "examples"])
        XCTAssertEqual(notAPlugin.status, 1)
    }
}
