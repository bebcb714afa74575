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
/// both replicas resume and converge. `SYNC_KILL_COUNT` sets the number of kills (10 by default; the
/// 100-kill run is in docs/RELIABILITY.md).
final class SyncServerKillTests: XCTestCase {
    static var kills: Int {
        ProcessInfo.processInfo.environment["SYNC_KILL_COUNT"].flatMap { Int($0) }.map { max(1, $0) } ?? 10
    }

    func testKillingTheServerDuringAnUploadStormLosesAndDoublesNothing() async throws {
        let workspace = try Workspace()
        let first = try SyncServerProcess(
            ["--listen", "127.0.0.1:0", "--data", "server", "--plugins", "plugins"], in: workspace.root)
        let listened = await blocking { first.listeningPort() }
        var server = first
        let port = try XCTUnwrap(listened)
        let secret = try SyncSharedSecret.read(file: workspace.root.appendingPathComponent("server/sync-secret").path)
        let replicas = Replicas(folder: workspace.root, secret: secret, url: "ws://127.0.0.1:\(port)/sync")
        let a = try await replicas.start("a", user: "alice")
        let b = try await replicas.start("b", user: "alice")
        let writers = [storm(a, name: "a"), storm(b, name: "b")]

        for kill in 1...Self.kills {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 50...300)))
            let killed = server
            let status = await blocking { killed.stop(with: SIGKILL) }
            XCTAssertEqual(status, 128 + SIGKILL, "kill \(kill)")
            server = try SyncServerProcess(
                ["--listen", "127.0.0.1:\(port)", "--data", "server", "--plugins", "plugins"], in: workspace.root)
            let started = server
            let restarted = await blocking { started.listeningPort() }
            XCTAssertEqual(restarted, port, "restart \(kill): \(server.standardError)")
            if restarted == nil { break }
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
        await a.client.stop()
        await b.client.stop()
        let last = server
        let stopped = await blocking { last.stop(with: SIGTERM) }
        XCTAssertEqual(stopped, 0, last.standardError)
        try checkStore(workspace, written: all)
        print("SyncServerKillTests: \(Self.kills) kills, \(all.count) commits from 2 replicas, all in the store once")
    }

    /// One toy per commit, flushed at once, until cancelled; the toys written.
    private func storm(_ host: Replicas.Host, name: String) -> Task<[ObjectId], Never> {
        Task {
            var written: [ObjectId] = []
            while !Task.isCancelled {
                let id = ObjectId.generate()
                do {
                    try host.replica.writeToy(id, name: "\(name)\(written.count)", household: "alice")
                } catch {
                    XCTFail("commit \(written.count) on \(name): \(error)")
                    break
                }
                written.append(id)
                await host.client.flush()
                try? await Task.sleep(for: .milliseconds(5))
            }
            return written
        }
    }

    /// The store holds every toy once, and each client file's changesets once each, numbered 1, 2, ….
    private func checkStore(_ workspace: Workspace, written: [ObjectId]) throws {
        let schema = try Replicas.pluginSchema()
        let path = workspace.root.appendingPathComponent("server/sync.sqlite").path
        let state = ServerState(store: try SQLiteSyncStore(path: path, schema: schema), schema: schema)
        let toys = Set(try state.canonicalState(classes: ["DogToy"]).objects.keys)
        XCTAssertEqual(toys, Set(written.map { ObjectRef("DogToy", .objectId($0)) }), "the store's toys")
        let log = try state.integrationLog()
        let versions = Dictionary(grouping: log.map(\.changeset), by: \.clientFileID).mapValues {
            $0.map(\.clientVersion)
        }
        XCTAssertEqual(versions.count, 2, "two client files uploaded")
        for (file, numbers) in versions {
            XCTAssertEqual(numbers, Array(1...UInt64(numbers.count)), "client file \(file)'s changesets")
        }
        XCTAssertEqual(log.count, written.count, "one changeset per commit")
    }
}
