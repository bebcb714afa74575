import Foundation
import RealmHost
import XCTest

/// A host in a cluster opens only the users assigned to it (with hosts a, b, c: bob and ivan are a's,
/// alice is c's, default is b's; HostClusterTests checks those assignments).
final class ClusterMembershipTests: XCTestCase {
    var folder: PluginFolder!

    override func setUpWithError() throws {
        folder = try PluginFolder(
            plugin: """
                return { name = "dogs", schemaVersion = 1,
                  schema = { { name = "Dog", properties = { name = "string" } } } }
                """)
    }

    override func tearDown() { folder = nil }

    var dataFolder: URL { folder.root.appendingPathComponent("data") }

    func host(_ cluster: HostClusterOptions = HostClusterOptions()) throws -> TenantHost {
        var options = HostOptions(
            dataFolder: dataFolder, pluginFolders: [folder.root.appendingPathComponent("plugins")])
        options.cluster = cluster
        return try TenantHost(options: options)
    }

    func writeHostLua(_ text: String) throws {
        try FileManager.default.createDirectory(at: dataFolder, withIntermediateDirectories: true)
        try text.write(to: dataFolder.appendingPathComponent("host.lua"), atomically: true, encoding: .utf8)
    }

    func testAHostOpensItsOwnUsersAndRefusesTheOthersNamingTheirHost() throws {
        let a = try host(HostClusterOptions(hosts: ["a", "b", "c"], selfName: "a"))
        XCTAssertEqual(try a.withTenant("bob") { $0.name }, "bob")
        XCTAssertThrowsError(try a.withTenant("alice") { $0.name }) { error in
            XCTAssertEqual(error as? HostError, .servedElsewhere(user: "alice", host: "c", thisHost: "a"))
            XCTAssertEqual(
                "\(error)", "User 'alice' is served by host 'c', not by this host 'a'; open it on 'c'.")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: try a.fileURL(for: "alice").path))
        XCTAssertEqual(a.openTenants, ["bob"])
    }

    func testTheSessionAndMigrationRefuseUsersServedElsewhere() throws {
        // Realms for everyone first, made by a host in no cluster.
        let plain = try host()
        for user in ["alice", "bob", "ivan", "default"] { try plain.withTenant(user) { _ in } }
        plain.closeAll()

        let a = try host(HostClusterOptions(hosts: ["a", "b", "c"], selfName: "a"))
        let session = TenantSession(host: a, user: "bob", output: { _ in }, warning: { _ in })
        XCTAssertThrowsError(try session.switchUser(to: "default")) { error in
            XCTAssertEqual(error as? HostError, .servedElsewhere(user: "default", host: "b", thisHost: "a"))
        }
        XCTAssertEqual(session.user, "bob")
        let byHost = try a.userNamesByHost()
        XCTAssertEqual(byHost.servedHere, ["bob", "ivan"])
        XCTAssertEqual(byHost.servedElsewhere, ["alice", "default"])
        let results = a.migrate(users: ["bob", "alice"])
        XCTAssertTrue(results[0].succeeded, results[0].error ?? "")
        XCTAssertEqual(results[1].error, "User 'alice' is served by host 'c', not by this host 'a'; open it on 'c'.")
        XCTAssertEqual(try a.users().map(\.servedBy), ["c", "a", "b", "a"])
    }

    func testWithoutAClusterEveryUserIsServed() throws {
        let plain = try host()
        XCTAssertNil(plain.cluster)
        for user in ["alice", "bob", "default"] { XCTAssertEqual(try plain.withTenant(user) { $0.name }, user) }
        XCTAssertEqual(try plain.users().map(\.servedBy), [nil, nil, nil])
    }

    func testAClusterWithoutSelfServesNoUser() throws {
        let anonymous = try host(HostClusterOptions(hosts: ["a", "b", "c"]))
        XCTAssertThrowsError(try anonymous.withTenant("bob") { _ in }) { error in
            XCTAssertEqual(error as? HostError, .servedElsewhere(user: "bob", host: "a", thisHost: nil))
            XCTAssertTrue("\(error)".contains("--cluster-self"), "\(error)")
        }
    }

    func testHostLuaDescribesTheClusterAndTheOptionsWinFieldByField() throws {
        try writeHostLua(#"return { cluster = { hosts = { "a", "b", "c" }, self = "a" } }"#)
        XCTAssertEqual(try host().cluster, try HostCluster(hosts: ["a", "b", "c"], selfName: "a"))
        let c = try host(HostClusterOptions(selfName: "c"))
        XCTAssertEqual(c.cluster, try HostCluster(hosts: ["a", "b", "c"], selfName: "c"))
        XCTAssertEqual(try c.withTenant("alice") { $0.name }, "alice")
        let other = try host(HostClusterOptions(hosts: ["x", "y"], selfName: "x"))
        XCTAssertEqual(other.cluster?.hosts, ["x", "y"])
    }

    func testBadClusterTablesInHostLuaAreRefusedNamingTheField() throws {
        let cases = [
            (#"cluster = "a,b""#, "field 'cluster' must be a table"),
            (#"cluster = { "a", "b" }"#, "field 'cluster' is a table of named fields (hosts, self), not a list"),
            (
                #"cluster = { hosts = { "a" }, name = "a" }"#,
                "field 'cluster.name' is not a known field; cluster has hosts, self"
            ),
            (#"cluster = { hosts = { "a", 2 } }"#, "field 'cluster.hosts' must be a list of host names"),
            (#"cluster = { hosts = { "a", "a" } }"#, "field 'cluster.hosts': the cluster lists host 'a' twice"),
            (#"cluster = { hosts = { "a" }, self = 1 }"#, "field 'cluster.self' must be a host name"),
            (#"cluster = { hosts = { "a", "b" }, self = "c" }"#, "this host 'c' is not one of the cluster's hosts"),
            (#"cluster = { self = "a" }"#, "no cluster hosts are listed"),
        ]
        for (table, expected) in cases {
            try writeHostLua("return { \(table) }")
            XCTAssertThrowsError(try host(), table) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(table): \(error)")
            }
        }
    }
}
