import Foundation
import RealmDatabase
import RealmHost
import RealmSync
import RealmSyncNet
import RealmTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Three hosts write one user's realm at once, each through its own network client, with the sync
/// simulation's workload (creates colliding on a pool of six primary keys, deletes, list inserts,
/// moves, sets and removes of values and of links, set and map edits of values and of links,
/// embedded objects replaced and written inside, links to objects deleted and created again), while
/// the `realm-host sync-server` process is SIGKILLed and started again (three times a run, 150–450
/// ms apart). Afterwards the three hosts'
/// dumps are identical and the server's, every commit's group of entries is on every host, and the
/// server's log holds each host's changesets once each. `SYNC_THREE_HOST_RUNS` sets the number of
/// runs (3 by default; the 50-run figure is in docs/RELIABILITY.md), each with its own seed.
final class ThreeHostKillTests: XCTestCase {
    private static var runs: Int {
        ProcessInfo.processInfo.environment["SYNC_THREE_HOST_RUNS"].flatMap { Int($0) }.map { max(1, $0) } ?? 3
    }

    func testThreeHostsWritingOneRealmThroughServerKillsEndIdentical() async throws {
        let seed = TestSeed.make("ThreeHostKillTests")
        for run in 0..<UInt64(Self.runs) {
            try await convergeThroughKills(seed: seed &+ run, label: "run \(run + 1) (seed \(seed &+ run))")
        }
    }

    private func convergeThroughKills(seed: UInt64, label: String) async throws {
        let workspace = try Workspace()
        try workspace.write("pool/items/plugin.lua", PluginSource.declaring(SimulationSchema.schema, named: "items"))
        let server = try await KilledServer.start(in: workspace, plugins: "pool")
        var replicas = server.replicas
        replicas.plugins = workspace.root.appendingPathComponent("pool")
        var hosts: [Replicas.Host] = []
        for name in ["a", "b", "c"] { hosts.append(try await replicas.start(name, user: "alice")) }
        let writers = hosts.enumerated().map { index, host in
            writeWithoutPause(host, name: ["a", "b", "c"][index], seed: seed &* 3 &+ UInt64(index))
        }
        var random = SplitMix64(seed: seed)
        for kill in 1...3 {
            try? await Task.sleep(for: .milliseconds(150 + Int(random.next() % 300)))
            guard try await server.killAndRestart(kill) else { break }
        }
        try? await Task.sleep(for: .milliseconds(100 + Int(random.next() % 200)))
        for writer in writers { writer.cancel() }
        var groups: [String] = []
        for writer in writers { groups += try await writer.value }
        for host in hosts { await host.client.flush() }

        let dumps = try await settledDumps(hosts)
        XCTAssertNotNil(dumps, "\(label): the hosts did not converge; the server said:\n\(server.standardError)")
        for host in hosts {
            let stopped = await host.stop()
            XCTAssertTrue(stopped, "\(label): a client did not stop: its connection is stuck")
        }
        await server.stop()
        guard let dumps else { return }
        try checkEntries(groups, on: hosts, label)
        try checkServer(workspace, schema: try replicas.schema(), hosts: hosts, dump: dumps[0], label)
        print(
            "ThreeHostKillTests: \(label): \(groups.count) groups of entries, \(dumps[0].objects.count) objects alike")
    }

    /// Commits of the workload on `host`, flushed at once, until cancelled; the names of the
    /// commits that made a group of entries.
    private func writeWithoutPause(_ host: Replicas.Host, name: String, seed: UInt64) -> Task<[String], Error> {
        Task {
            var workload = Workload(seed: seed)
            var groups: [String] = []
            var commit = 0
            while !Task.isCancelled {
                let commitName = "\(name)\(commit)"
                let madeGroup = try host.replica.withEndpoint { client in
                    try workload.commit(on: client.realm, named: commitName)
                    return try client.realm.object(ofType: "Entry", forPrimaryKey: .string(commitName + "-0")) != nil
                }
                if madeGroup { groups.append(commitName) }
                commit += 1
                await host.client.flush()
                try? await Task.sleep(for: .milliseconds(2))
            }
            return groups
        }
    }

    /// The hosts' dumps once every upload is acknowledged and the three are alike (nil after 60 s).
    private func settledDumps(_ hosts: [Replicas.Host]) async throws -> [CanonicalState]? {
        var dumps: [CanonicalState] = []
        let settled = try await eventually(timeout: .seconds(60)) {
            guard hosts.allSatisfy({ host in !host.replica.withEndpoint { $0.hasUnacknowledgedChanges } }) else {
                return false
            }
            dumps = try hosts.map { host in try host.replica.withEndpoint { try $0.canonicalState() } }
            return dumps.dropFirst().allSatisfy { $0 == dumps[0] }
        }
        if !settled, dumps.count == 3 {
            for (index, dump) in dumps.enumerated().dropFirst() where dump != dumps[0] {
                XCTFail("host \(index) differs from host 0: \(difference(dumps[0], dump))")
            }
        }
        return settled ? dumps : nil
    }

    /// Every group of entries a host committed is on every host, whole.
    private func checkEntries(_ groups: [String], on hosts: [Replicas.Host], _ label: String) throws {
        for host in hosts {
            try host.replica.withEndpoint { client in
                if let problem = try SimulationChecks.atomicityProblem(client.realm) { XCTFail("\(label): \(problem)") }
                let missing = try groups.filter { group in
                    try client.realm.object(ofType: "Entry", forPrimaryKey: .string(group + "-0")) == nil
                }
                XCTAssertEqual(missing, [], "\(label): committed groups of entries missing on a host")
            }
        }
    }

    /// The server's store holds what the hosts hold, and each host's changesets once each.
    private func checkServer(
        _ workspace: Workspace, schema: Schema, hosts: [Replicas.Host], dump: CanonicalState, _ label: String
    ) throws {
        let path = workspace.root.appendingPathComponent("server/sync.sqlite").path
        let state = ServerState(store: try SQLiteSyncStore(path: path, schema: schema), schema: schema)
        XCTAssertEqual(try state.canonicalState(classes: ["Item", "Entry"]), dump, "\(label): the server's objects")
        let log = try state.integrationLog()
        if let problem = SimulationChecks.logProblem(log) { XCTFail("\(label): \(problem)") }
        let perFile = Dictionary(grouping: log.map(\.changeset), by: \.clientFileID).values.map(\.count)
        let acknowledged = hosts.map { host in host.replica.withEndpoint { Int($0.uploadAcknowledged) } }
        XCTAssertEqual(perFile.sorted(), acknowledged.sorted(), "\(label): each host's changesets in the log")
    }

    private func difference(_ a: CanonicalState, _ b: CanonicalState) -> String {
        let keys = Set(a.objects.keys).union(b.objects.keys).filter { a.objects[$0] != b.objects[$0] }
        return keys.sorted { "\($0)" < "\($1)" }.prefix(3).map { key in
            "\(key): \(a.objects[key].map { "\($0)" } ?? "absent") vs \(b.objects[key].map { "\($0)" } ?? "absent")"
        }.joined(separator: "; ")
    }
}

/// The text of a plugin that declares a schema and nothing else (no sync rules: every class is
/// private per user).
enum PluginSource {
    static func declaring(_ schema: Schema, named name: String) -> String {
        let classes = schema.objectSchemas.map { objectSchema in
            let key = objectSchema.primaryKey.map { #", primaryKey = "\#($0)""# } ?? ""
            let embedded = objectSchema.isEmbedded ? ", embedded = true" : ""
            let properties = objectSchema.properties.map { #"{ name = "\#($0.name)", type = "\#($0.typeString)" }"# }
            return #"    { name = "\#(objectSchema.className)"\#(key)\#(embedded), properties = {"#
                + " \(properties.joined(separator: ", ")) } },"
        }
        return """
            return {
              name = "\(name)", version = "1.0.0", schemaVersion = 1,
              schema = {
            \(classes.joined(separator: "\n"))
              },
            }

            """
    }
}
