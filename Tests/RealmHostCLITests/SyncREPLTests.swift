import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The REPL's view of sync: `.sync` (uploads waiting, subscriptions with their state), the prompt
/// that says `(offline)`, and the sync column of `realm-host users`. Every address is 127.0.0.1.
final class SyncREPLTests: XCTestCase {
    var workspace: Workspace!
    let deadURL = "ws://127.0.0.1:1/sync"
    let secret = ["REALMHOST_SYNC_SECRET": "a secret of at least thirty-two bytes, for tests"]

    override func setUpWithError() throws { workspace = try Workspace() }
    override func tearDown() { workspace = nil }

    /// The user's synced realm opened with the seeds' subscriptions (the server may be down).
    private let autoOpen = """
        r = Realm.autoOpen(user:flexibleSyncConfiguration{
          initialSubscriptions = function(s) s:append(QuerySubscription("Dog", { name = "dogs" })) end }, { timeout = 20000 })
        """

    func testSyncCountsTheCommitsWaitingAndUsersShowsThemPending() throws {
        let result = try workspace.run(
            ["repl", "--sync-url", deadURL],
            input: autoOpen + """

                r:write(function() r:create("Dog", { name = "Rex", breed = "Mutt", weight = 9, household = "default" }) end)
                r:objects("Dog"):where("weight > 5"):subscribe{ name = "heavy", waitForSync = "never" }
                .sync
                .user bob
                .users
                """, environment: secret)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("default.sync.realm on \(deadURL): active, "), result.stdout)
        XCTAssertTrue(result.stdout.contains("  uploads: 1 commit waiting for upload"), result.stdout)
        XCTAssertTrue(result.stdout.contains("  last download: server version 0"), result.stdout)
        XCTAssertTrue(result.stdout.contains("  subscriptions (set 2, pending):"), result.stdout)
        XCTAssertTrue(result.stdout.contains("    dogs: Dog where TRUEPREDICATE (pending)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("    heavy: Dog where weight > 5 (pending)"), result.stdout)
        let users = try workspace.run(["users"])
        XCTAssertEqual(users.status, 0, users.stderr)
        XCTAssertTrue(users.stdout.contains("sync"), users.stdout)
        let row = { (name: String) in users.stdout.split(separator: "\n").first { $0.hasPrefix(name + " ") } ?? "" }
        XCTAssertTrue(row("default").contains("1 pending"), users.stdout)
        // Rex is in the synced realm (default.sync.realm): it counts among the user's objects.
        XCTAssertTrue(row("default").contains("Dog 1"), users.stdout)
        XCTAssertTrue(row("bob").contains("local"), users.stdout)
    }

    /// `.subs` lists the synced realm's subscriptions (name, class, query, the set's state) once the
    /// user syncs, not the local realm's (the plugins' `people` and `dogs`, with their creation).
    func testSubsListsTheSyncedRealmsSubscriptionsWhenTheUserSyncs() throws {
        let local = try workspace.run(["repl", "--sync-url", deadURL], input: ".subs\n", environment: secret)
        XCTAssertEqual(local.status, 0, local.stderr)
        XCTAssertTrue(local.stdout.contains("people") && local.stdout.contains("created"), local.stdout)

        let result = try workspace.run(
            ["repl", "--sync-url", deadURL],
            input: autoOpen + """

                r:objects("Dog"):where("weight > 5"):subscribe{ name = "heavy", waitForSync = "never" }
                .subs
                """, environment: secret)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stdout.contains("default.sync.realm (synced with \(deadURL)), subscription set 2"), result.stdout)
        let rows = result.stdout.split(separator: "\n").map(String.init)
        let dogs = rows.first { $0.contains("dogs") } ?? ""
        let heavy = rows.first { $0.contains("heavy") } ?? ""
        for (row, query) in [(dogs, "TRUEPREDICATE"), (heavy, "weight > 5")] {
            XCTAssertTrue(row.contains("Dog") && row.contains(query) && row.contains("pending"), result.stdout)
        }
        XCTAssertFalse(result.stdout.contains("people") || result.stdout.contains("created"), result.stdout)
    }

    /// With a server process: `default> ` while connected, `default(offline)> ` while paused and
    /// once the server is gone; `users` then says `synced` for what the server acknowledged.
    func testThePromptSaysOfflineWhilePausedAndOnceTheServerIsGone() async throws {
        let server = try SyncServerProcess(
            ["--listen", "127.0.0.1:0", "--data", "server", "--plugins", "plugins"], in: workspace.root)
        let listened = await blocking { server.listeningPort() }
        let url = "ws://127.0.0.1:\(try XCTUnwrap(listened))/sync"
        let repl = try workspace.terminal(["repl", "--sync-url", url, "--sync-secret-file", "server/sync-secret"])
        repl.expect("default> ")
        let opened = repl.enter(autoOpen.replacingOccurrences(of: "\n", with: " "))
        XCTAssertFalse(opened.contains("rror"), opened)
        repl.enter(
            "r:write(function() r:create('Dog', { name = 'Rex', breed = 'Mutt', weight = 9, household = 'default' }) end)"
        )
        XCTAssertTrue(repl.enter("r.syncSession:waitForUpload{ timeout = 20000 }").contains("true"))
        let status = repl.enter(".sync")
        XCTAssertTrue(status.contains("active, connected"), status)
        XCTAssertTrue(status.contains("uploads: all acknowledged"), status)
        XCTAssertTrue(status.contains("dogs: Dog where TRUEPREDICATE (complete)"), status)
        repl.enter("r.syncSession:pause()", prompt: "default(offline)> ")
        repl.enter("r.syncSession:resume()", prompt: "default> ")

        let killed = await blocking { server.stop(with: SIGKILL) }
        XCTAssertEqual(killed, 128 + SIGKILL)
        // The host learns that the connection is gone when it breaks: Enter until the prompt says so.
        var offline = false
        for _ in 0..<100 where !offline {
            repl.type("\r")
            repl.settle()
            offline = repl.transcript.hasSuffix("default(offline)> ")
        }
        XCTAssertTrue(offline, "no offline prompt:\n\(repl.transcript.suffix(500))")
        repl.type(".quit\r")
        XCTAssertEqual(repl.waitForExit(), 0)
        // Leaving after a session whose server is gone: no SwiftNIO complaint on the way out.
        XCTAssertFalse(repl.transcript.contains("EventLoop"), repl.transcript)
        let users = try workspace.run(["users"])
        let row = users.stdout.split(separator: "\n").first { $0.hasPrefix("default ") } ?? ""
        XCTAssertTrue(row.contains("synced"), users.stdout)
    }
}

extension SyncREPLTests {
    /// The banner names the server; with no server the prompt says offline as soon as a synced realm
    /// is open, and Ctrl-C ends a wait on the network (here one of ten minutes).
    func testCtrlCInterruptsAWaitForTheServer() throws {
        let secretFile = try workspace.write("secret", String(repeating: "ab", count: 32) + "\n")
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o600], ofItemAtPath: workspace.root.appendingPathComponent(secretFile).path)
        let repl = try workspace.terminal(["repl", "--sync-url", deadURL, "--sync-secret-file", secretFile])
        let banner = repl.expect("default> ")
        XCTAssertTrue(banner.contains("Sync: \(deadURL) · r = Realm.asyncOpen("), banner)
        repl.enter(
            "r = Realm.autoOpen(user:flexibleSyncConfiguration{}, { timeout = 100 })", prompt: "default(offline)> ")
        repl.type("r.syncSession:waitForDownload{ timeout = 600000 }\r")
        Thread.sleep(forTimeInterval: 0.3)
        repl.type("\u{03}")
        let stopped = repl.expect("default(offline)> ")
        XCTAssertTrue(stopped.contains("interrupted"), stopped)
        XCTAssertFalse(stopped.contains("false"), "the wait was reported as timed out: \(stopped)")
        XCTAssertTrue(repl.enter("r.syncSession.state", prompt: "default(offline)> ").contains("active"))
        repl.ctrlD()
        XCTAssertEqual(repl.waitForExit(), 0)
        XCTAssertFalse(repl.transcript.contains("EventLoop"), repl.transcript)
    }
}
