import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// A replica decides every download against its whole pending history; `DecodedHistory` keeps the
/// decoded changesets between downloads, serving one only while its stored stamp is unchanged.
final class DecodedHistoryTests: XCTestCase {
    private func encoded(_ changeset: Changeset) -> Data { Data(ClientEncodings.encode(changeset)) }

    private func create(_ version: UInt64, _ name: String) -> Changeset {
        changeset(1, version, clock: 100 + version, [.create(ref(name), fields: [SyncField("name", .string(name))])])
    }

    func testTheSameStampIsDecodedOnceWithoutReadingItsBytesAndANewStampAgain() throws {
        let cache = DecodedHistory()
        let first = create(1, "a")
        var reads = 0
        func bytes(_ changeset: Changeset) -> () -> Data {
            {
                reads += 1
                return self.encoded(changeset)
            }
        }
        XCTAssertEqual(try cache.changeset(1, stamp: 7, bytes: bytes(first)), first)
        XCTAssertEqual(try cache.changeset(1, stamp: 7, bytes: bytes(first)), first)
        XCTAssertEqual(cache.decodings, 1)
        XCTAssertEqual(reads, 1, "served by its stamp: the bytes are not read again")
        // Rewritten in place (a rebase, a commit replacing its version) under a new stamp: never served stale.
        let rewritten = create(1, "b")
        XCTAssertEqual(try cache.changeset(1, stamp: 8, bytes: bytes(rewritten)), rewritten)
        XCTAssertEqual(cache.decodings, 2)
        // Stamp 0 (a file from before stamps) is decoded every time.
        XCTAssertEqual(try cache.changeset(2, stamp: 0, bytes: bytes(first)), first)
        XCTAssertEqual(try cache.changeset(2, stamp: 0, bytes: bytes(first)), first)
        XCTAssertEqual(cache.decodings, 4)
    }

    func testItKeepsAtMostItsBytesAndForgetsWhatIsNoLongerStored() throws {
        let one = encoded(create(1, "a"))
        let cache = DecodedHistory(maxBytes: one.count * 2)
        for version in 1...3 {
            _ = try cache.changeset(UInt64(version), stamp: 1) { self.encoded(create(UInt64(version), "a")) }
        }
        XCTAssertEqual(cache.keptBytes, one.count * 2, "the third is past the limit: decoded, not kept")
        _ = try cache.changeset(3, stamp: 1) { self.encoded(create(3, "a")) }
        XCTAssertEqual(cache.decodings, 4)
        cache.keep(only: [2])
        XCTAssertEqual(cache.keptBytes, one.count)
        cache.keep(only: [])
        XCTAssertEqual(cache.keptBytes, 0, "all acknowledged: nothing kept")
    }

    /// Through a replica: downloads while commits are pending decode each pending changeset once,
    /// and apply what they applied before: a remote write earlier than the pending local create of
    /// the object loses (the create writes every field), remote creates of others arrive.
    func testDownloadsWhilePendingDecodeEachPendingChangesetOnce() throws {
        let folder = try ClientTestFolder()
        let wall = ManualWallClock.clientStart()
        let client = try SyncClient(configuration: folder.configuration("a"), user: "u", wallClock: wall)
        try client.identify(as: 1)
        try client.realm.write { _ = try client.realm.create("Person", value: ["id": "p", "name": "mine"]) }
        for i in 0..<20 {
            wall.advance(1)
            try client.realm.write { try client.person("p").setValue(.string("mine \(i)"), forKey: "name") }
        }
        let pending = try client.storedHistory().count
        let before = client.decodedHistory.decodings
        for i in 1...10 {
            let remote = Changeset(
                clientVersion: UInt64(i), basedOnServerVersion: UInt64(i - 1),
                clock: HLCTimestamp(milliseconds: 10, counter: 0), clientFileID: 9,
                instructions: [
                    .set(ref("p"), path: ["age"], value: .int(Int64(i))),
                    .create(ref("q\(i)"), fields: [SyncField("name", .string("theirs"))]),
                ])
            _ = try client.receive(
                .download(
                    session: 1, downloadCursor: UInt64(i), uploadAcknowledged: 0,
                    changesets: [IntegratedChangeset(serverVersion: UInt64(i), origin: remote)]))
        }
        XCTAssertEqual(try client.person("p").value(forKey: "name"), .string("mine 19"))
        XCTAssertEqual(try client.person("p").value(forKey: "age"), .int(0))
        XCTAssertEqual(try client.person("q10").value(forKey: "name"), .string("theirs"))
        XCTAssertEqual(pending, 21)
        XCTAssertEqual(
            client.decodedHistory.decodings - before, pending, "once per pending changeset, not per download")
    }

    /// A rewrite whose transaction rolls back leaves its decoded changeset under a stamp no later
    /// write gives: the changeset as stored again is what the next download decides against.
    func testARolledBackRewriteIsNeverServed() throws {
        let folder = try ClientTestFolder()
        let client = try SyncClient(
            configuration: folder.configuration("a"), user: "u", wallClock: ManualWallClock.clientStart())
        try client.identify(as: 1)
        try client.realm.write { _ = try client.realm.create("Person", value: ["id": "p", "name": "mine"]) }
        let stored = try client.storedHistory()
        XCTAssertEqual(stored.count, 1)
        let rewritten = create(stored[0].clientVersion, "rolled back")
        struct Abandon: Error {}
        XCTAssertThrowsError(
            try client.realm.write {
                try client.store.appendHistory(rewritten)
                XCTAssertEqual(try client.store.history(), [rewritten], "read, and kept, inside the write")
                throw Abandon()
            })
        XCTAssertEqual(try client.store.history(), stored, "the stored changeset again, not the rolled-back one")
    }

    /// A file whose history was written before stamps existed gets them when its client opens it,
    /// and its pending changesets still upload and decode.
    func testAHistoryWithoutStampsGetsThemAtOpen() throws {
        let folder = try ClientTestFolder()
        let configuration = folder.configuration("a")
        var stored: [Changeset] = []
        do {
            let client = try SyncClient(
                configuration: configuration, user: "u", wallClock: ManualWallClock.clientStart())
            try client.identify(as: 1)
            try client.realm.write { _ = try client.realm.create("Person", value: ["id": "p", "name": "mine"]) }
            stored = try client.storedHistory()
            try client.realm.write { try client.realm.executeSQL("ALTER TABLE _sync_history DROP COLUMN stamp") }
            XCTAssertTrue(try client.store.lacksHistoryStamps())
        }
        let reopened = try SyncClient(
            configuration: configuration, user: "u", wallClock: ManualWallClock.clientStart())
        XCTAssertFalse(try reopened.store.lacksHistoryStamps())
        XCTAssertEqual(try reopened.store.history(), stored)
        XCTAssertEqual(
            try reopened.realm.querySQL("SELECT count(*) FROM _sync_history WHERE stamp = 0").first?.first,
            .integer(0), "every stored changeset got a stamp")
    }
}
