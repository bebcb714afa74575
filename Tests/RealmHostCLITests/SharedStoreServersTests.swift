import Foundation
import RealmDatabase
import RealmSync
import RealmSyncNet
import RealmSyncPostgres
import XCTest

@testable import SyncStoreConformance

#if canImport(Glibc)
    import Glibc
#endif

/// Three `realm-host sync-server` processes on one PostgreSQL database (docs/SYNC.md "Several
/// servers on one store"), all on 127.0.0.1: two replicas of alice write without pause through the
/// two servers that do not integrate; the integrator is SIGKILLed in the middle of the storm (its
/// batches come one after another, so the kill lands in or between them); another server must take
/// the role within 5 s, nothing acknowledged may be lost or doubled, and both replicas converge.
final class SharedStoreServersTests: XCTestCase {
    static let integrating = "sync server: integrating"

    func testThreeServersOnOnePostgresOutliveTheirIntegrator() async throws {
        let database = try TestPostgresDatabase("threeservers")
        let workspace = try Workspace()
        let secretText = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let secret = try SyncSharedSecret(text: secretText, origin: .environment)
        let servers = try (0..<3).map { index in
            try SyncServerProcess(
                [
                    "--listen", "127.0.0.1:0", "--data", "server\(index)", "--plugins", "plugins", "--store",
                    database.location.description,
                ], in: workspace.root, environment: [SyncSharedSecret.environmentVariable: secretText])
        }
        var ports: [Int] = []
        for server in servers {
            let port = await blocking { server.listeningPort() }
            ports.append(try XCTUnwrap(port, "a server did not listen: \(server.standardError)"))
        }
        let elected = await eventually { servers.contains { $0.standardError.contains(Self.integrating) } }
        XCTAssertTrue(elected, "no server took the integrator role")
        guard let integrator = servers.firstIndex(where: { $0.standardError.contains(Self.integrating) }) else {
            return
        }
        let others = [0, 1, 2].filter { $0 != integrator }
        let url = { (index: Int) in "ws://127.0.0.1:\(ports[index])/sync" }
        let a = try await Replicas(folder: workspace.root, secret: secret, url: url(others[0])).start(
            "a", user: "alice")
        let b = try await Replicas(folder: workspace.root, secret: secret, url: url(others[1])).start(
            "b", user: "alice")
        let writers = [storm(a, name: "a"), storm(b, name: "b")]

        try? await Task.sleep(for: .milliseconds(600))
        let killed = servers[integrator]
        XCTAssertFalse(
            others.contains { servers[$0].standardError.contains(Self.integrating) }, "one integrator at a time")
        // Timed from the signal: the others may take the role while the dying process is reaped.
        let killedAt = ContinuousClock.now
        let status = await blocking { killed.stop(with: SIGKILL) }
        XCTAssertEqual(status, 128 + SIGKILL)
        let tookOver = await eventually(timeout: .seconds(10)) {
            others.contains { servers[$0].standardError.contains(Self.integrating) }
        }
        let takeover = ContinuousClock.now - killedAt
        XCTAssertTrue(tookOver, "no server took the role after the integrator died")
        XCTAssertLessThanOrEqual(takeover, .seconds(5), "the takeover took \(takeover)")

        try? await Task.sleep(for: .milliseconds(600))
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
        XCTAssertTrue(
            settled,
            "the replicas did not converge; the servers said:\n"
                + others.map { servers[$0].standardError }.joined(separator: "\n"))
        for host in [a, b] {
            let stopped = await host.stop()
            XCTAssertTrue(stopped, "a client did not stop")
        }
        for index in others {
            let server = servers[index]
            let stopped = await blocking { server.stop(with: SIGTERM) }
            XCTAssertEqual(stopped, 0, server.standardError)
        }
        try checkStore(database, written: all)
        print(
            "SharedStoreServersTests: \(all.count) commits through 2 servers, the integrator killed, "
                + "another integrating after \(takeover)")
    }

    /// The store holds every toy once, and each client file's changesets once each, numbered 1, 2, ….
    private func checkStore(_ database: TestPostgresDatabase, written: [ObjectId]) throws {
        let schema = try Replicas.pluginSchema()
        let store = try PostgresSyncStore(location: database.location, schema: schema)
        defer { store.close() }
        try checkToysInStore(ServerState(store: store, schema: schema), written)
    }
}
