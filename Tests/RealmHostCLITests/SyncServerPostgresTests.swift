import Foundation
import RealmDatabase
import RealmSync
import RealmSyncNet
import XCTest

@testable import SyncStoreConformance

#if canImport(Glibc)
    import Glibc
#endif

/// `realm-host sync-server --store postgres://…` as a process on 127.0.0.1, on a database of its
/// own on the test PostgreSQL (`TestPostgres`): the data lives in PostgreSQL, not in `--data`.
final class SyncServerPostgresTests: XCTestCase {
    func testTwoReplicasSyncThroughAServerOnPostgresAndAServerWithAnotherFolderServesTheSameData() async throws {
        let database = try TestPostgresDatabase("cli")
        let workspace = try Workspace()
        let environment = [SyncSharedSecret.environmentVariable: String(repeating: "s3cret-", count: 6)]
        let arguments = [
            "--listen", "127.0.0.1:0", "--plugins", "plugins", "--store", database.location.description,
        ]
        let server = try SyncServerProcess(
            arguments + ["--data", "server"], in: workspace.root, environment: environment)
        let listened = await blocking { server.listeningPort() }
        let port = try XCTUnwrap(listened)
        XCTAssertTrue(
            server.standardError.contains("sync server: store \(database.location.description)"), server.standardError)
        let secret = try XCTUnwrap(try SyncSharedSecret.fromEnvironment(environment))
        let replicas = Replicas(folder: workspace.root, secret: secret, url: "ws://127.0.0.1:\(port)/sync")
        let a = try await replicas.start("a", user: "alice")
        let b = try await replicas.start("b", user: "alice")
        let toy = ObjectId.generate()
        try a.replica.writeToy(toy, name: "ball", household: "alice")
        await a.client.flush()
        let arrived = await eventually { b.replica.toyName(toy) == "ball" }
        XCTAssertTrue(arrived, "the toy written on a did not reach b; the server said:\n\(server.standardError)")
        let stopped = await blocking { server.stop(with: SIGTERM) }
        XCTAssertEqual(stopped, 0, "exit status after SIGTERM; standard error:\n\(server.standardError)")
        await a.client.stop()
        await b.client.stop()

        // Another data folder, the same database: the toy is there.
        let other = try SyncServerProcess(
            arguments + ["--data", "other"], in: workspace.root, environment: environment)
        let listenedAgain = await blocking { other.listeningPort() }
        let newPort = try XCTUnwrap(listenedAgain)
        let later = Replicas(folder: workspace.root, secret: secret, url: "ws://127.0.0.1:\(newPort)/sync")
        let c = try await later.start("c", user: "alice")
        let kept = await eventually { c.replica.toyName(toy) == "ball" }
        XCTAssertTrue(kept, "a fresh replica did not get the toy from PostgreSQL:\n\(other.standardError)")
        await c.client.stop()
        let interrupted = await blocking { other.stop(with: SIGINT) }
        XCTAssertEqual(interrupted, 0, other.standardError)
    }
}
