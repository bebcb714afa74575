import Foundation
import RealmDatabase
import RealmSync
import RealmSyncNet
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// SIGKILL the `realm-host sync-server` process again and again while two replicas upload without
/// pause: once it stays up, nothing the server acknowledged is lost, nothing is applied twice, and
/// both replicas resume and converge. `SYNC_KILL_COUNT` sets the number of kills of the upload storm,
/// `SYNC_KILL_BOOTSTRAPS` those during bootstraps (10 each by default; the 100-kill runs are in
/// docs/RELIABILITY.md).
final class SyncServerKillTests: XCTestCase {
    static var kills: Int { count("SYNC_KILL_COUNT") }
    static var bootstrapKills: Int { count("SYNC_KILL_BOOTSTRAPS") }

    private static func count(_ variable: String) -> Int {
        ProcessInfo.processInfo.environment[variable].flatMap { Int($0) }.map { max(1, $0) } ?? 10
    }

    func testKillingTheServerDuringAnUploadStormLosesAndDoublesNothing() async throws {
        let workspace = try Workspace()
        let server = try await KilledServer.start(in: workspace)
        let a = try await server.replicas.start("a", user: "alice")
        let b = try await server.replicas.start("b", user: "alice")
        let writers = [storm(a, name: "a"), storm(b, name: "b")]

        for kill in 1...Self.kills {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 50...300)))
            guard try await server.killAndRestart(kill) else { break }
        }
        for writer in writers { writer.cancel() }
        var written: [ObjectId] = []
        for writer in writers { written += await writer.value }
        let all = written
        await a.client.flush()
        await b.client.flush()

        let settled = await eventually(timeout: .seconds(60)) {
            [a, b].allSatisfy { host in
                let pending = host.replica.withEndpoint { $0.hasUnacknowledgedChanges }
                return !pending && all.allSatisfy { host.replica.toyName($0) != nil }
            }
        }
        XCTAssertTrue(settled, "the replicas did not resume and converge; the server said:\n\(server.standardError)")
        for host in [a, b] {
            let stopped = await host.stop()
            XCTAssertTrue(stopped, "a client did not stop: its connection is stuck")
        }
        await server.stop()
        try checkStore(workspace, written: all)
        print("SyncServerKillTests: \(Self.kills) kills, \(all.count) commits from 2 replicas, all in the store once")
    }

    /// A new replica starts bootstrapping 2,500 toys (three bootstrap messages) before each kill:
    /// at every look each replica holds all of them or none, and in the end all of them.
    /// Every client must stop when asked: a client whose connection attempt met the dying server
    /// used to wait for the upgrade's answer for good (`NetDyingServerTests`).
    func testKillingTheServerDuringBootstrapsLeavesEveryReplicaWholeOrEmpty() async throws {
        let workspace = try Workspace()
        let server = try await KilledServer.start(in: workspace)
        let writer = try await server.replicas.start("writer", user: "alice")
        let total = 2_500
        for commit in 0..<50 {
            try writer.replica.withEndpoint { client in
                try client.realm.write {
                    for i in 0..<(total / 50) {
                        _ = try client.realm.create(
                            "DogToy",
                            value: [
                                "_id": .objectId(ObjectId.generate()), "name": .string("toy \(commit).\(i)"),
                                "household": .string("alice"),
                            ])
                    }
                }
            }
        }
        await writer.client.flush()
        let uploaded = await eventually(timeout: .seconds(60)) {
            !writer.replica.withEndpoint { $0.hasUnacknowledgedChanges }
        }
        XCTAssertTrue(uploaded, "the writer's toys did not upload: \(server.standardError)")
        let writerStopped = await writer.stop()
        XCTAssertTrue(writerStopped, "the writer's client did not stop: its connection is stuck")

        var readers: [Replicas.Host] = []
        var seen: Set<Int> = []
        for kill in 1...Self.bootstrapKills {
            readers.append(try await server.replicas.start("reader\(kill)", user: "alice"))
            let until = ContinuousClock.now + .milliseconds(Int.random(in: 0...300))
            while ContinuousClock.now < until {
                seen.formUnion(readers.map(\.replica.toyCount))
                try? await Task.sleep(for: .milliseconds(2))
            }
            guard try await server.killAndRestart(kill) else { break }
        }
        let complete = await eventually(timeout: .seconds(120)) {
            let counts = readers.map(\.replica.toyCount)
            seen.formUnion(counts)
            return counts.allSatisfy { $0 == total }
        }
        XCTAssertTrue(complete, "not every replica got the toys: \(readers.map(\.replica.toyCount))")
        XCTAssertTrue(seen.isSubset(of: [0, total]), "a bootstrap seen in part: \(seen.sorted())")
        let stuck = await withTaskGroup(of: Bool.self) { group in
            for reader in readers { group.addTask { await reader.stop() } }
            return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
        XCTAssertEqual(stuck, 0, "clients that did not stop: their connection is stuck")
        await server.stop()
        print(
            "SyncServerKillTests: \(Self.bootstrapKills) kills during bootstraps of \(readers.count) replicas; counts seen: \(seen.sorted())"
        )
    }

    /// The store holds every toy once, and each client file's changesets once each, numbered 1, 2, ….
    private func checkStore(_ workspace: Workspace, written: [ObjectId]) throws {
        let schema = try Replicas.pluginSchema()
        let path = workspace.root.appendingPathComponent("server/sync.sqlite").path
        try checkToysInStore(
            ServerState(store: try SQLiteSyncStore(path: path, schema: schema), schema: schema), written)
    }
}

/// `realm-host sync-server` on a workspace's `server` folder and one port, killed and started again
/// on both; replicas that sync with it (their URL stays the same).
final class KilledServer: @unchecked Sendable {
    let workspace: Workspace
    let port: Int
    let plugins: String
    let replicas: Replicas
    private(set) var process: SyncServerProcess

    private init(workspace: Workspace, port: Int, plugins: String, process: SyncServerProcess, secret: SyncSharedSecret)
    {
        self.workspace = workspace
        self.port = port
        self.plugins = plugins
        self.process = process
        replicas = Replicas(folder: workspace.root, secret: secret, url: "ws://127.0.0.1:\(port)/sync")
    }

    /// A server on a free port, listening, with the plugins of the workspace's folder `plugins`
    /// (the repository's by default).
    static func start(in workspace: Workspace, plugins: String = "plugins") async throws -> KilledServer {
        let process = try SyncServerProcess(
            ["--listen", "127.0.0.1:0", "--data", "server", "--plugins", plugins], in: workspace.root)
        let listened = await blocking { process.listeningPort() }
        let port = try XCTUnwrap(listened)
        let secret = try SyncSharedSecret.read(file: workspace.root.appendingPathComponent("server/sync-secret").path)
        return KilledServer(workspace: workspace, port: port, plugins: plugins, process: process, secret: secret)
    }

    /// SIGKILL, then a new server on the same folder and port; whether it listens again.
    func killAndRestart(_ kill: Int) async throws -> Bool {
        let killed = process
        let status = await blocking { killed.stop(with: SIGKILL) }
        XCTAssertEqual(status, 128 + SIGKILL, "kill \(kill)")
        let started = try SyncServerProcess(
            ["--listen", "127.0.0.1:\(port)", "--data", "server", "--plugins", plugins], in: workspace.root)
        process = started
        let restarted = await blocking { started.listeningPort() }
        XCTAssertEqual(restarted, port, "restart \(kill): \(started.standardError)")
        return restarted == port
    }

    /// SIGTERM: a graceful stop.
    func stop() async {
        let last = process
        let stopped = await blocking { last.stop(with: SIGTERM) }
        XCTAssertEqual(stopped, 0, last.standardError)
    }

    var standardError: String { process.standardError }
}
