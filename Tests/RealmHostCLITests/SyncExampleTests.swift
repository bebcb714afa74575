import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// examples/06_async_open.lua and 07_auto_open.lua as examples/README.md runs them: a
/// `realm-host sync-server` process and two hosts (data folders `hostA`, `hostB`) on 127.0.0.1.
final class SyncExampleTests: XCTestCase {
    var workspace: Workspace!

    override func setUpWithError() throws { workspace = try Workspace() }
    override func tearDown() { workspace = nil }

    private func startServer() throws -> (SyncServerProcess, String) {
        let server = try SyncServerProcess(
            ["--listen", "127.0.0.1:0", "--data", "server", "--plugins", "plugins"], in: workspace.root)
        let port = try XCTUnwrap(server.listeningPort())
        return (server, "ws://127.0.0.1:\(port)/sync")
    }

    /// `realm-host run` of an example on host `host` as `user`; its standard output.
    private func example(
        _ script: String, host: String, user: String, url: String, _ arguments: [String] = [],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        let r = try workspace.run(
            [
                "run", "--data", host, "--user", user, "--sync-url", url, "--sync-secret-file", "server/sync-secret",
                "examples/\(script)",
            ] + arguments)
        XCTAssertEqual(r.status, 0, "\(script) on \(host):\n\(r.stdout)\n\(r.stderr)", file: file, line: line)
        return r.stdout
    }

    func testAsyncOpenAndAutoOpenExamplesOnTwoHostsWithTheServerUpDownAndBack() throws {
        var (server, url) = try startServer()
        // Host A downloads first, adds Bandido and waits for the server to have it.
        let a = try example("06_async_open.lua", host: "hostA", user: "alice", url: url, ["Bandido"])
        XCTAssertTrue(a.hasPrefix("state:\tconnecting\n"), a)
        XCTAssertTrue(a.contains("state:\tprogress\t100%\nstate:\topen\n"), a)
        XCTAssertTrue(a.contains("uploaded:\ttrue\ndog:\tBandido\talice\nalice has 1 dog(s)\n"), a)
        // Host B: the same user sees it; another user does not.
        let b = try example("06_async_open.lua", host: "hostB", user: "alice", url: url)
        XCTAssertTrue(b.contains("dog:\tBandido\talice\n"), b)
        let bob = try example("06_async_open.lua", host: "hostB", user: "bob", url: url)
        XCTAssertTrue(bob.contains("bob has 0 dog(s)"), bob)
        // AutoOpen on B with the server up: connected, Maui uploaded, a subscription from a query.
        let auto = try example("07_auto_open.lua", host: "hostB", user: "alice", url: url, ["Maui"])
        XCTAssertTrue(auto.hasPrefix("connection:\tconnected\n"), auto)
        XCTAssertTrue(auto.contains("uploaded:\ttrue\nheavy dogs:\t2\ndog:\tBandido\ndog:\tMaui\n"), auto)

        // The server stops: AutoOpen on A opens the file on disk, and Rex waits in it.
        XCTAssertEqual(server.stop(with: SIGTERM), 0, server.standardError)
        let offline = try example("07_auto_open.lua", host: "hostA", user: "alice", url: url, ["Rex"])
        XCTAssertFalse(offline.contains("connection:\tconnected"), offline)
        XCTAssertTrue(offline.contains("uploaded:\tfalse\n"), offline)
        XCTAssertTrue(offline.contains("dog:\tRex\n"), offline)
        let users = try workspace.run(["users", "--data", "hostA"])
        let row = users.stdout.split(separator: "\n").first { $0.hasPrefix("alice ") } ?? ""
        XCTAssertTrue(row.contains("1 pending"), users.stdout)

        // The server is back (the same store): A sends Rex, B downloads it.
        (server, url) = try startServer()
        let resent = try example("06_async_open.lua", host: "hostA", user: "alice", url: url)
        XCTAssertTrue(resent.contains("uploaded:\ttrue\n"), resent)
        let seen = try example("06_async_open.lua", host: "hostB", user: "alice", url: url)
        XCTAssertTrue(seen.contains("dog:\tBandido\talice\ndog:\tMaui\talice\ndog:\tRex\talice\n"), seen)
        XCTAssertEqual(server.stop(with: SIGTERM), 0, server.standardError)
    }

    /// README.md "Sync in five minutes": the same REPL lines on two hosts as the same user.
    func testTheReadmesSyncInFiveMinutes() throws {
        let (server, url) = try startServer()
        let flags = ["--user", "alice", "--sync-url", url, "--sync-secret-file", "server/sync-secret"]
        let a = try workspace.run(
            ["repl", "--data", "hostA"] + flags,
            input: """
                r = Realm.asyncOpen(user:flexibleSyncConfiguration{})
                r:objects("Dog"):append{ name = "Bandido", breed = "Mutt", weight = 23, household = "alice" }
                r.syncSession:waitForUpload()

                """)
        XCTAssertEqual(a.status, 0, a.stderr)
        XCTAssertTrue(a.stdout.hasSuffix("alice\ntrue\n"), a.stdout)
        let b = try workspace.run(
            ["repl", "--data", "hostB"] + flags,
            input: """
                r = Realm.asyncOpen(user:flexibleSyncConfiguration{})
                r:objects("Dog")
                r:objects("Dog")[1].weight = 24
                r.syncSession:waitForUpload()

                """)
        XCTAssertEqual(b.status, 0, b.stderr)
        XCTAssertTrue(
            b.stdout.range(of: #"1  [0-9A-F-]{36}  Bandido  Mutt\s+23 .* alice\n"#, options: .regularExpression) != nil,
            b.stdout)
        let back = try workspace.run(
            ["repl", "--data", "hostA"] + flags,
            input: """
                r = Realm.asyncOpen(user:flexibleSyncConfiguration{})
                r.syncSession:waitForDownload()
                r:objects("Dog")[1].weight

                """)
        XCTAssertEqual(back.stdout, "true\n24\n", back.stderr)
        XCTAssertEqual(server.stop(with: SIGTERM), 0, server.standardError)
    }
}
