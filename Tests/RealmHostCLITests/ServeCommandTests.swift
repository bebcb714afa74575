import Foundation
import RealmDatabase
import RealmTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `realm-host serve` and `realm-host token` as processes: the first line, a graceful stop on
/// SIGTERM, a 2xx write surviving SIGKILL, one host per data folder.
final class ServeCommandTests: XCTestCase {
    /// Starts `serve` on free ports; its app and admin ports from the first line.
    private func startServe(_ workspace: Workspace, file: StaticString = #filePath, line: UInt = #line) throws
        -> (SyncServerProcess, app: Int, admin: Int)
    {
        let serve = try SyncServerProcess(
            ["--data", "data", "--plugins", "plugins", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"],
            in: workspace.root, command: "serve")
        guard let first = serve.firstLine() else {
            throw TestFailure("no first line from serve; its standard error:\n\(serve.standardError)")
        }
        // realm-host serving http://127.0.0.1:APP (admin http://127.0.0.1:ADMIN)
        let ports = first.components(separatedBy: "127.0.0.1:").dropFirst()
            .compactMap { Int($0.prefix(while: \.isNumber)) }
        guard first.hasPrefix("realm-host serving http://127.0.0.1:"), first.contains("(admin http://127.0.0.1:"),
            ports.count == 2, let app = ports.first, let admin = ports.last
        else { throw TestFailure("unexpected first line: \(first)") }
        return (serve, app, admin)
    }

    func testServeAnswersStopsOnSIGTERMAndRefusesASecondHost() throws {
        let workspace = try Workspace()
        let (serve, appPort, adminPort) = try startServe(workspace)
        let token = try workspace.run([
            "token", "--data", "data", "--user", "alice", "--ttl", "10m", "--claim", "role=vet",
        ])
        XCTAssertEqual(token.status, 0, token.stderr)
        let jwt = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let app = HTTPTestClient(port: appPort)
        let answer = try app.request("POST", "/v1/functions/whoami", token: jwt)
        XCTAssertEqual(answer.status, 200, "\(answer)")
        XCTAssertEqual(answer.json?[field: "result"]?[field: "claims"]?[field: "role"], .string("vet"))
        XCTAssertEqual(try HTTPTestClient(port: adminPort).request("GET", "/healthz").status, 200)
        // Another command on the served folder is refused, naming --connect; nothing of it opens.
        let repl = try workspace.run(["repl", "--data", "data", "--plugins", "plugins"], input: "return 1\n")
        XCTAssertNotEqual(repl.status, 0)
        XCTAssertTrue(repl.stderr.contains("--connect"), repl.stderr)
        let second = try workspace.run([
            "serve", "--data", "data", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
        ])
        XCTAssertNotEqual(second.status, 0)
        XCTAssertTrue(second.stderr.contains("already served"), second.stderr)
        XCTAssertEqual(serve.stop(with: SIGTERM), 0, serve.standardError)
        XCTAssertTrue(serve.standardError.contains("stopped"), serve.standardError)
        // Once it stopped, the folder is free again.
        let after = try workspace.run(["repl", "--data", "data", "--plugins", "plugins"], input: "return 1 + 41\n")
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertTrue(after.stdout.contains("42"), after.stdout)
    }

    func testA2xxWriteSurvivesSIGKILL() throws {
        let workspace = try Workspace()
        let (serve, appPort, _) = try startServe(workspace)
        let jwt = try workspace.run(["token", "--data", "data", "--user", "bob"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let app = HTTPTestClient(port: appPort)
        let created = try app.request(
            "POST", "/v1/objects/Dog", token: jwt, body: #"{"name": "Survivor", "weight": 12, "breed": "Mutt"}"#)
        XCTAssertEqual(created.status, 201, "\(created)")
        XCTAssertEqual(serve.stop(with: SIGKILL), 128 + SIGKILL)
        try workspace.write("count.lua", #"print(realm:objects("Dog"):where("name == 'Survivor'"):count())"#)
        let counted = try workspace.run(["run", "--data", "data", "--plugins", "plugins", "--user", "bob", "count.lua"])
        XCTAssertEqual(counted.status, 0, counted.stderr)
        XCTAssertEqual(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "1")
    }

    func testTokenRefusesBadInputAndPublicKeyHosts() throws {
        let workspace = try Workspace()
        let badTTL = try workspace.run(["token", "--data", "data", "--user", "a", "--ttl", "soon"])
        XCTAssertNotEqual(badTTL.status, 0)
        XCTAssertTrue(badTTL.stderr.contains("--ttl"), badTTL.stderr)
        let badUser = try workspace.run(["token", "--data", "data", "--user", "../x"])
        XCTAssertNotEqual(badUser.status, 0)
        try workspace.write(
            "data/host.lua",
            #"return { auth = { keys = { { kid = "k", alg = "EdDSA", publicKey = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n" } } } }"#
        )
        let refused = try workspace.run(["token", "--data", "data", "--user", "a"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("public keys"), refused.stderr)
        try workspace.write("data/host.lua", #"return { auth = { kees = {} } }"#)
        let misspelt = try workspace.run(["token", "--data", "data", "--user", "a"])
        XCTAssertNotEqual(misspelt.status, 0)
        XCTAssertTrue(
            misspelt.stderr.contains("field 'auth.kees' is not a known field (did you mean 'keys'?)"), misspelt.stderr)
    }
}
