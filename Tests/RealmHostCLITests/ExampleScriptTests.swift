import Foundation
import XCTest

/// Every script in examples/ runs (twice: they can be replayed) through `realm-host run`.
final class ExampleScriptTests: XCTestCase {
    var workspace: Workspace!

    override func setUpWithError() throws {
        workspace = try Workspace()
    }

    override func tearDown() {
        workspace = nil
    }

    private func run(_ script: String, user: String = "default") throws -> String {
        var last = ""
        for round in 1...2 {
            let r = try workspace.run(["run", "--user", user, "examples/\(script)"])
            XCTAssertEqual(r.status, 0, "\(script), round \(round):\n\(r.stdout)\n\(r.stderr)")
            XCTAssertEqual(r.stderr, "", script)
            if round == 1 { last = r.stdout }
        }
        return last
    }

    func testEveryExampleIsCovered() throws {
        let scripts = try FileManager.default.contentsOfDirectory(
            atPath: CLI.repository.appendingPathComponent("examples").path
        )
        .filter { $0.hasSuffix(".lua") && $0.first?.isNumber == true }.sorted()
        XCTAssertEqual(
            scripts,
            [
                "01_open_per_user_realm.lua", "02_migration_v1_to_v2.lua", "03_initial_subscriptions.lua",
                "04_implicit_writes.lua", "05_frozen_thaw_write.lua", "06_async_open.lua", "07_auto_open.lua",
            ])
    }

    func testOpenAPerUserRealmFromAConfiguration() throws {
        let out = try run("01_open_per_user_realm.lua", user: "GordonCole")
        XCTAssertTrue(out.contains("default realm:\tGordonCole.realm\tschema version 3\n"), out)
        XCTAssertTrue(out.contains("same as realm:\ttrue\n"), out)
        XCTAssertTrue(out.contains("Realm() now opens:\tGordonCole.Diane.realm\n"), out)
        XCTAssertTrue(out.contains("explicit open sees the same data:\ttrue"), out)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: workspace.data.appendingPathComponent("GordonCole.Diane.realm").path)
        )
    }

    func testMigrationFromVersionOneToTwo() throws {
        let out = try run("02_migration_v1_to_v2.lua")
        XCTAssertEqual(
            out,
            """
            version 1: 3 dogs, 1 cat
            deleted the cats' data:\ttrue
            version 2:
            \tBandido\tbone\tWubba
            \tMaui\tbone\tWubba
            \tRex\tbone\t(no toy)
            toys: 1, person: Dachary

            """)
    }

    func testInitialSubscriptions() throws {
        let out = try run("03_initial_subscriptions.lua")
        XCTAssertTrue(
            out.hasPrefix("1\tpeople\tPerson\tTRUEPREDICATE\n2\tdogs\tDog\tTRUEPREDICATE\nstate:\tcomplete\n"), out)
        XCTAssertTrue(out.contains("append 'dogs' again:\tfalse\t"), out)
        XCTAssertTrue(out.contains("after reopening:\t2 subscriptions"), out)
        XCTAssertTrue(out.contains("this user's realm:\t2 subscriptions"), out)
    }

    func testImplicitTransactionWrites() throws {
        let out = try run("04_implicit_writes.lua")
        XCTAssertTrue(out.contains("appended:\tBandido\tcount +1\n"), out)
        XCTAssertTrue(out.contains("treat:\tbacon\n"), out)
        XCTAssertTrue(out.contains("rolled back:\ttrue\ttrue\n"), out)
        XCTAssertTrue(
            out.contains("Object is already managed by another Realm. Use create instead to copy it into this Realm."),
            out)
        XCTAssertTrue(out.contains("Gordon's dogs:\tDiane\tMaui (toy Wubba)"), out)
    }

    func testFrozenObjectThawedForAnExplicitWrite() throws {
        let out = try run("05_frozen_thaw_write.lua")
        XCTAssertEqual(
            out,
            """
            frozen:\ttrue
            write through the frozen object fails:\ttrue
            Dachary now has 1 dog(s), the first: Maui
            frozen snapshot:\t0 dog(s) before this run's write

            """)
    }

    /// Without a server the sync examples open local realms (SyncExampleTests runs them with one).
    func testAsyncOpenAndAutoOpenExamplesRunWithoutAServer() throws {
        let asyncOpen = try run("06_async_open.lua")
        XCTAssertEqual(asyncOpen, "state:\topen\nuploaded:\ttrue\ndefault has 0 dog(s)\n")
        let autoOpen = try run("07_auto_open.lua")
        XCTAssertEqual(autoOpen, "connection:\tlocal\nheavy dogs:\t0\n")
    }

    /// An example read into the REPL with .read (one chunk, so its locals work).
    func testAnExampleReadInTheREPL() throws {
        let r = try workspace.run(
            ["repl"], input: ".read examples/05_frozen_thaw_write.lua\n#realm:objects('Company')\n")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasSuffix("\n1\n"), r.stdout)
    }
}
