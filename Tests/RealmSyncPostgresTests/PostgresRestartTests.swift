import Foundation
import RealmSyncPostgres
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// PostgreSQL restarted under a running server, as a process (`.ci/postgres restart` on a server of
/// this test's own, so no other test's connections are cut): the store's connection and the
/// integrator's lock are gone. The next integration, on a connection opened again, integrates;
/// nothing acknowledged before is lost or doubled; and the integrator role is taken again once
/// PostgreSQL answers.
final class PostgresRestartTests: XCTestCase {
    private var folder: String!
    private var location: PostgresStoreLocation!

    override func setUpWithError() throws {
        _ = try TestPostgres.location()  // Skips (or fails, in CI) when PostgreSQL cannot run here.
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-restart-\(UUID().uuidString)").path
        let url = try script("start")
        location = try PostgresStoreLocation(parsing: url.split(separator: "\n").last.map(String.init) ?? "")
    }

    override func tearDown() {
        if folder != nil { _ = try? script("stop") }
    }

    private func script(_ command: String) throws -> String {
        do {
            return try PostgresScript.run(TestPostgres.scriptURL, command, folder: folder)
        } catch {
            throw XCTSkip(".ci/postgres \(command): \(error.reason)")
        }
    }

    private func upload(_ version: UInt64, key: Int64) -> Upload {
        Upload(
            clientFileID: 1,
            changesets: [
                changeset(
                    1, version, clock: serverTestNow, [.create(item(key), fields: [SyncField("count", .int(key))])])
            ])
    }

    func testAfterPostgreSQLRestartsTheServerIntegratesAgainAndLosesNothingAcknowledged() async throws {
        let store = try PostgresSyncStore(location: location, historySalt: 42, schema: serverTestSchema)
        defer { store.close() }
        let integrator = Integrator(
            store: store, schema: serverTestSchema, wallClock: ManualWallClock(serverTestNow))
        let state = ServerState(store: store, schema: serverTestSchema)
        _ = try state.allocateClient(salt: 100, user: "u")
        let roles = RoleLog()
        let coordination = PostgresCoordination(location: location) { roles.append($0) }
        await coordination.start()
        let holdsRole = await coordination.holdIntegratorRole()
        XCTAssertTrue(holdsRole)
        XCTAssertEqual(
            try integrator.integrate([upload(1, key: 1)]).outcomes, [.acknowledged(clientVersion: 1)])

        _ = try script("restart")

        // The store's connection died with the server. The next transaction connects again; had it
        // begun before the connection was seen closed, it fails whole, saying why, and the upload
        // (sent again by its session's retry) integrates then.
        let outcomes: [UploadOutcome]
        do {
            outcomes = try integrator.integrate([upload(2, key: 2)]).outcomes
        } catch {
            XCTAssertTrue("\(error)".contains("PostgreSQL store"), "\(error)")
            outcomes = try integrator.integrate([upload(2, key: 2)]).outcomes
        }
        XCTAssertEqual(outcomes, [.acknowledged(clientVersion: 2)])
        XCTAssertEqual(
            try integrator.integrate([upload(2, key: 2)]).outcomes, [.acknowledged(clientVersion: 2)],
            "integrated already: acknowledged again, not doubled")
        let history = try state.history(after: 0, limit: 10)
        XCTAssertEqual(history.map(\.serverVersion), [1, 2])
        XCTAssertEqual(history.map(\.kept.clientVersion), [1, 2])
        XCTAssertEqual(try state.canonicalState(classes: ["Item"]).objects.keys.sorted(), [item(1), item(2)])

        // The lock's session ended with the restart: the role is found lost, then taken again.
        var regained = false
        for _ in 0..<50 where !regained {
            regained = await coordination.holdIntegratorRole()
            if !regained { try await Task.sleep(nanoseconds: 100_000_000) }
        }
        XCTAssertTrue(regained, "the integrator role is taken again once PostgreSQL answers")
        XCTAssertEqual(roles.values.first, true)
        // The restart dropped every lock: the one held now was taken on a new connection.
        let admin = try BlockingPostgresConnection(location)
        defer { admin.close() }
        let locks = try admin.rows(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted", [], "reading the locks")
        XCTAssertEqual(try locks.first?.int(0), 1)
        await coordination.stop()
    }
}

/// The role changes `PostgresCoordination` told, from its actor.
private final class RoleLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [Bool] = []

    func append(_ value: Bool) { lock.withLock { log.append(value) } }
    var values: [Bool] { lock.withLock { log } }
}
