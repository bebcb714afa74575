import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// `SyncClient.bootstrapProgress` (what `Realm.asyncOpen` reports as `progress`) and
/// `pendingCommitCount` (the REPL's `.sync`, `realm-host users`).
final class ClientBootstrapProgressTests: XCTestCase {
    private var folder: ClientTestFolder!
    private let wall = ManualWallClock.clientStart()

    override func setUpWithError() throws { folder = try ClientTestFolder() }
    override func tearDown() { folder = nil }

    private func batch(_ id: String, session: UInt32 = 1, isLast: Bool, progress: Double) -> SyncMessage {
        .bootstrap(
            session: session, serverVersion: 3, latestClock: .zero, uploadAcknowledged: 0,
            objects: [ObjectSnapshot(object: ref(id), fields: [SyncField("name", .string(id))])], isLast: isLast,
            progress: progress)
    }

    func testTheFractionFollowsTheBatchesWithinZeroToOneAndANewSessionStartsAgain() throws {
        let client = try SyncClient(configuration: folder.configuration("a"), user: "u", wallClock: wall)
        try client.identify(as: 1)
        XCTAssertNil(client.bootstrapProgress)
        _ = try client.receive(batch("x", isLast: false, progress: 0.25))
        XCTAssertEqual(client.bootstrapProgress, 0.25)
        _ = try client.receive(batch("y", isLast: false, progress: 7))
        XCTAssertEqual(client.bootstrapProgress, 1, "a figure past 1 is 1")
        _ = try client.receive(batch("z", isLast: false, progress: .nan))
        XCTAssertEqual(client.bootstrapProgress, 0, "NaN is nothing yet")
        _ = try client.receive(batch("w", isLast: true, progress: 0.1))
        XCTAssertEqual(client.bootstrapProgress, 1, "the last batch completes it whatever it says")
        client.disconnect()
        _ = try client.connect(session: 2)
        XCTAssertNil(client.bootstrapProgress, "a new connection has no bootstrap yet")
    }

    func testPendingCommitsAreCountedUntilAcknowledgedAndALocalFileHasNone() throws {
        let client = try SyncClient(configuration: folder.configuration("a"), user: "u", wallClock: wall)
        try client.identify(as: 1)
        XCTAssertEqual(client.pendingCommitCount, 0)
        try client.realm.write { _ = try client.realm.create("Person", value: ["id": "p"]) }
        try client.realm.write { _ = try client.realm.create("Person", value: ["id": "q"]) }
        XCTAssertEqual(client.pendingCommitCount, 2)
        XCTAssertEqual(try SyncClient.pendingCommitCount(in: client.realm), 2)
        _ = try client.receive(.download(session: 1, downloadCursor: 1, uploadAcknowledged: 1, changesets: []))
        XCTAssertEqual(client.pendingCommitCount, 1)
        let local = try Realm(configuration: folder.configuration("local"))
        XCTAssertNil(try SyncClient.pendingCommitCount(in: local), "a file no client opened never synced")
    }
}
