import Foundation
import XCTest

/// `which-host`, and `repl`, `run`, `migrate`, `users` on a host that is part of a cluster. With hosts
/// a, b, c: bob and ivan are a's, default is b's, alice is c's (HostClusterTests checks those against
/// a reference implementation of the hash).
final class ClusterCommandTests: XCTestCase {
    var workspace: Workspace!
    let clusterA = ["--cluster-hosts", "a,b,c", "--cluster-self", "a"]

    override func setUpWithError() throws {
        workspace = try Workspace()
        try workspace.write("noop.lua", "print('ran for ' .. user.name)")
    }

    override func tearDown() { workspace = nil }

    /// Realms for `users`, made by a host in no cluster.
    func makeUsers(_ users: [String]) throws {
        for user in users {
            let r = try workspace.run(["run", "--user", user, "noop.lua"])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
    }

    func testWhichHostPrintsTheHostServingEachUser() throws {
        let r = try workspace.run(["which-host", "alice", "bob", "default", "--cluster-hosts", "a, b, c"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "alice → c\nbob → a\ndefault → b\n")
        let mine = try workspace.run(["which-host", "bob", "alice"] + clusterA)
        XCTAssertEqual(mine.stdout, "bob → a (this host)\nalice → c\n")
    }

    func testWhichHostReadsHostLuaAndSaysWhenThereIsNoCluster() throws {
        let none = try workspace.run(["which-host", "alice"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no cluster is configured: give --cluster-hosts"), none.stderr)
        try workspace.write("data/host.lua", #"return { cluster = { hosts = { "c", "b", "a" }, self = "c" } }"#)
        let r = try workspace.run(["which-host", "alice", "ivan"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "alice → c (this host)\nivan → a\n")
        let bad = try workspace.run(["which-host", "al/ice"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("Invalid user name"), bad.stderr)
    }

    func testBadClusterFlagsAreRefusedBeforeAnythingRuns() throws {
        let empty = try workspace.run(["run", "--cluster-hosts", "a,,b", "noop.lua"])
        XCTAssertNotEqual(empty.status, 0)
        XCTAssertTrue(empty.stderr.contains("--cluster-hosts: invalid cluster host name '': it is empty"), empty.stderr)
        let stranger = try workspace.run(["run", "--cluster-hosts", "a,b", "--cluster-self", "d", "noop.lua"])
        XCTAssertNotEqual(stranger.status, 0)
        XCTAssertTrue(stranger.stderr.contains("--cluster-self 'd' is not one of --cluster-hosts"), stranger.stderr)
        XCTAssertFalse(stranger.stdout.contains("ran"))
    }

    func testRunOpensOnlyTheUsersThisHostServes() throws {
        let refused = try workspace.run(["run", "--user", "alice"] + clusterA + ["noop.lua"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(
            refused.stderr.contains("User 'alice' is served by host 'c', not by this host 'a'; open it on 'c'."),
            refused.stderr)
        XCTAssertFalse(refused.stdout.contains("ran"))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: workspace.data.appendingPathComponent("alice.realm").path))
        let served = try workspace.run(["run", "--user", "bob"] + clusterA + ["noop.lua"])
        XCTAssertEqual(served.status, 0, served.stderr)
        XCTAssertEqual(served.stdout, "ran for bob\n")
    }

    func testSchemaReadsOnlyTheUsersThisHostServes() throws {
        try makeUsers(["alice", "bob"])
        let refused = try workspace.run(["schema", "--user", "alice"] + clusterA)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("User 'alice' is served by host 'c'"), refused.stderr)
        XCTAssertEqual(refused.stdout, "")
        let served = try workspace.run(["schema", "--user", "bob"] + clusterA)
        XCTAssertEqual(served.status, 0, served.stderr)
        XCTAssertTrue(served.stdout.contains("schema version"), served.stdout)
    }

    func testHostLuaClusterAppliesAndTheSelfFlagOverridesIt() throws {
        try workspace.write("data/host.lua", #"return { cluster = { hosts = { "a", "b", "c" }, self = "a" } }"#)
        let refused = try workspace.run(["run", "--user", "alice", "noop.lua"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("User 'alice' is served by host 'c'"), refused.stderr)
        let asC = try workspace.run(["run", "--user", "alice", "--cluster-self", "c", "noop.lua"])
        XCTAssertEqual(asC.status, 0, asC.stderr)
        XCTAssertEqual(asC.stdout, "ran for alice\n")
    }

    func testTheREPLRefusesUsersServedElsewhereAndStaysOnItsUser() throws {
        let start = try workspace.run(["repl", "--user", "alice"] + clusterA, input: "print(1)\n")
        XCTAssertEqual(start.status, 1)
        XCTAssertTrue(start.stderr.contains("User 'alice' is served by host 'c'"), start.stderr)
        let r = try workspace.run(
            ["repl", "--user", "bob"] + clusterA, input: ".user alice\nprint(user.name)\n.user ivan\nprint(user.name)\n"
        )
        XCTAssertTrue(
            r.stderr.contains("User 'alice' is served by host 'c', not by this host 'a'; open it on 'c'."), r.stderr)
        XCTAssertTrue(r.stdout.contains("bob\nNow user 'ivan'"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("ivan\n"), r.stdout)
    }

    func testMigrateAllUsersMigratesOnlyThisHostsUsersAndCountsTheRest() throws {
        try makeUsers(["alice", "bob", "default", "ivan"])
        let r = try workspace.run(["migrate", "--all-users", "--dry-run"] + clusterA)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("\nbob "), r.stdout)
        XCTAssertTrue(r.stdout.contains("\nivan "), r.stdout)
        XCTAssertFalse(r.stdout.contains("alice"), r.stdout)
        XCTAssertFalse(r.stdout.contains("default"), r.stdout)
        XCTAssertTrue(r.stdout.contains("2 users at schema version 3 checked"), r.stdout)
        XCTAssertTrue(r.stdout.contains(", 2 skipped (served by other hosts)."), r.stdout)
        // Host k of a, b, c, k serves none of the four.
        let none = try workspace.run(["migrate", "--all-users", "--cluster-hosts", "a,b,c,k", "--cluster-self", "k"])
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(none.stdout, "No users in data served by this host; 4 skipped (served by other hosts).\n")
        let one = try workspace.run(["migrate", "--user", "alice"] + clusterA)
        XCTAssertEqual(one.status, 1)
        XCTAssertTrue(one.stderr.contains("User 'alice' is served by host 'c'"), one.stderr)
        let plain = try workspace.run(["migrate", "--all-users", "--dry-run"])
        XCTAssertTrue(plain.stdout.contains("4 users at schema version 3 checked"), plain.stdout)
        XCTAssertFalse(plain.stdout.contains("skipped"), plain.stdout)
    }

    func testUsersMarksTheUsersAnotherHostServes() throws {
        try makeUsers(["alice", "bob"])
        let r = try workspace.run(["users"] + clusterA)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, r.stdout)
        XCTAssertTrue(lines[0].range(of: #"sync\s+host\s+classes"#, options: .regularExpression) != nil, lines[0])
        XCTAssertTrue(
            lines[2].range(of: #"^alice .* local\s+c \(not this host\)"#, options: .regularExpression) != nil, lines[2])
        XCTAssertTrue(lines[3].range(of: #"^bob .* local\s+a(\s|$)"#, options: .regularExpression) != nil, lines[3])
        XCTAssertFalse(lines[3].contains("not this host"), lines[3])
        let plain = try workspace.run(["users"])
        XCTAssertFalse(plain.stdout.contains("host"), plain.stdout)
    }
}
