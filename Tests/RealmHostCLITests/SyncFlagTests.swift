import Foundation
import XCTest

/// `--sync-url` and `--sync-secret-file` on `run` (the same flags as `repl` and `migrate`), against a
/// server that is not there: every address is 127.0.0.1, where nothing listens on port 1.
final class SyncFlagTests: XCTestCase {
    var workspace: Workspace!
    let deadURL = "ws://127.0.0.1:1/sync"
    let secret = ["REALMHOST_SYNC_SECRET": "a secret of at least thirty-two bytes, for tests"]

    override func setUpWithError() throws { workspace = try Workspace() }
    override func tearDown() { workspace = nil }

    func testASyncURLThatIsNotAWebSocketURLIsRefused() throws {
        try workspace.write("noop.lua", "print('ran')")
        let result = try workspace.run(["run", "--sync-url", "http://127.0.0.1:1/sync", "noop.lua"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("--sync-url must be a ws:// or wss:// URL"), result.stderr)
        XCTAssertFalse(result.stdout.contains("ran"))
    }

    func testAsyncOpenRaisesNamingTheURLAndAutoOpenOpensTheFile() throws {
        try workspace.write(
            "open.lua",
            """
            local config = user:flexibleSyncConfiguration{}
            local ok, err = pcall(Realm.asyncOpen, config, { timeout = 200 })
            print("asyncOpen", ok, err)
            local r = Realm.autoOpen(config, { timeout = 5000 })
            print("autoOpen", r.syncSession.state, r.configuration.fileURL)
            """)
        let result = try workspace.run(["run", "--sync-url", deadURL, "open.lua"], environment: secret)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("asyncOpen\tfalse\t"), result.stdout)
        XCTAssertTrue(result.stdout.contains("Realm.asyncOpen: \(deadURL): timed out after 200 ms"), result.stdout)
        XCTAssertTrue(result.stdout.contains("autoOpen\tactive\tdefault.sync.realm"), result.stdout)
    }

    func testWithoutASecretAsyncOpenIsUnauthorized() throws {
        try workspace.write(
            "open.lua",
            """
            local ok, err = pcall(Realm.asyncOpen, user:flexibleSyncConfiguration{}, { timeout = 200 })
            print(ok, err)
            """)
        let result = try workspace.run(["run", "--sync-url", deadURL, "open.lua"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("unauthorized"), result.stdout)
    }
}

extension SyncFlagTests {
    func testTheREPLsSyncCommandShowsTheSession() throws {
        let result = try workspace.run(
            ["repl", "--sync-url", deadURL],
            input: """
                .sync
                local r = Realm.autoOpen(user:flexibleSyncConfiguration{
                  initialSubscriptions = function(s) s:append(QuerySubscription("Dog", { name = "dogs" })) end })
                .sync
                """, environment: secret)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stdout.contains("No sync session yet: open a flexible-sync realm (\(deadURL))."), result.stdout)
        XCTAssertTrue(result.stdout.contains("default.sync.realm on \(deadURL): active, "), result.stdout)
        XCTAssertTrue(result.stdout.contains("dogs: Dog where TRUEPREDICATE"), result.stdout)
    }

    func testWithoutASyncURLTheSyncCommandSaysSo() throws {
        let result = try workspace.run(["repl"], input: ".sync\n")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("No sync server: start with --sync-url"), result.stdout)
    }
}
