import Foundation
import RealmDatabase
import RealmTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `repl --connect` on a pseudo-terminal, attached to a `serve` process: the local REPL's prompt,
/// completion, Ctrl-C, dot and plugin commands, in the host's own tenants; its open write rolled
/// back after the console write timeout so that an API call goes on.
final class ConsoleTerminalTests: XCTestCase {
    func testAnAttachedConsoleIsTheREPLOfTheServingHost() throws {
        let workspace = try Workspace()
        try workspace.write("data/host.lua", "return { serve = { consoleWriteTimeout = 1 } }")
        let serve = try SyncServerProcess(
            ["--data", "data", "--plugins", "plugins", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"],
            in: workspace.root, command: "serve")
        let first = try XCTUnwrap(serve.firstLine(), serve.standardError)
        let appPort = try XCTUnwrap(
            first.components(separatedBy: "127.0.0.1:").dropFirst().first.flatMap { Int($0.prefix(while: \.isNumber)) })
        let repl = try workspace.terminal(["repl", "--connect", "data", "--user", "alice"])
        let banner = repl.expect("alice> ")
        XCTAssertTrue(banner.contains("doggo 3.0.0"), banner)
        // Completion through the socket.
        XCTAssertTrue(repl.enter("#realm:objects(\"Do\t\")", prompt: "alice> ").contains("\n0\n"))
        // A plugin command and a dot command.
        XCTAssertTrue(repl.enter(".adopt Ann Rex", prompt: "alice> ").contains("Ann"))
        XCTAssertTrue(repl.enter(".stats", prompt: "alice> ").contains("1 dogs"))
        // Ctrl-C stops a running line and the console goes on.
        repl.type("while true do end\r")
        Thread.sleep(forTimeInterval: 0.3)
        repl.type("\u{03}")
        XCTAssertTrue(repl.expect("alice> ").contains("interrupted"))
        // What the console wrote, the API reads: the same tenant.
        let token = try workspace.run(["token", "--data", "data", "--user", "alice"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let app = HTTPTestClient(port: appPort)
        let dogs = try app.request("GET", "/v1/objects/Dog", token: token)
        XCTAssertEqual(dogs.json?[field: "count"], .int(1), "\(dogs)")
        // A write left open at the prompt: the API call waits, the console's write is rolled back
        // after its timeout (1 s here), and the call goes through.
        repl.enter("realm:beginWrite(); realm:objects('Dog'):append{ name = 'Pending' }", prompt: "alice*> ")
        let started = Date()
        let created = try app.request("POST", "/v1/objects/Dog", token: token, body: #"{"name": "FromTheAPI"}"#)
        XCTAssertEqual(created.status, 201, "\(created)")
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.5, "the call waited for the console's write")
        let names = try app.request("GET", "/v1/objects/Dog?sort=name", token: token)
        XCTAssertEqual(names.json?[field: "count"], .int(2), "Rex and FromTheAPI, not Pending: \(names)")
        // The console is told at its next line; .user switches its tenant.
        let switched = repl.enter(".user bob", prompt: "bob> ")
        XCTAssertTrue(switched.contains("rolled back after 1"), switched)
        XCTAssertTrue(switched.contains("Now user 'bob'"), switched)
        repl.ctrlD()
        XCTAssertEqual(repl.waitForExit(), 0)
        XCTAssertEqual(serve.stop(with: SIGTERM), 0, serve.standardError)
    }

    func testRunConnectAndAConsoleWithoutAHost() throws {
        let workspace = try Workspace()
        // No host serves the folder: the console says how to start one.
        let none = try workspace.run(["repl", "--connect", "data"], input: "return 1\n")
        XCTAssertNotEqual(none.status, 0)
        XCTAssertTrue(none.stderr.contains("realm-host serve"), none.stderr)
        let serve = try SyncServerProcess(
            ["--data", "data", "--plugins", "plugins", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"],
            in: workspace.root, command: "serve")
        XCTAssertNotNil(serve.firstLine(), serve.standardError)
        try workspace.write("add.lua", #"realm:objects("Dog"):append{ name = arg[1] } print(#realm:objects("Dog"))"#)
        let ran = try workspace.run(["run", "--connect", "--data", "data", "--user", "carl", "add.lua", "Max"])
        XCTAssertEqual(ran.status, 0, ran.stderr)
        XCTAssertEqual(ran.stdout, "1\n")
        try workspace.write("bad.lua", "error('nope')")
        let failed = try workspace.run(["run", "--connect", "--data", "data", "bad.lua"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.stderr.contains("nope"), failed.stderr)
        let piped = try workspace.run(
            ["repl", "--connect", "data", "--user", "carl"], input: "#realm:objects('Dog')\n")
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(piped.stdout, "1\n")
        XCTAssertEqual(serve.stop(with: SIGTERM), 0, serve.standardError)
    }
}
