import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// A replica decides every download against its whole pending history; `DecodedHistory` keeps the
/// decoded changesets between downloads, serving one only while its stored bytes are unchanged.
final class DecodedHistoryTests: XCTestCase {
    private func encoded(_ changeset: Changeset) -> Data { Data(ClientEncodings.encode(changeset)) }

    private func create(_ version: UInt64, _ name: String) -> Changeset {
        changeset(1, version, clock: 100 + version, [.create(ref(name), fields: [SyncField("name", .string(name))])])
    }

    func testTheSameBytesAreDecodedOnceAndChangedBytesAgain() throws {
        let cache = DecodedHistory()
        let first = create(1, "a")
        XCTAssertEqual(try cache.changeset(1, storedAs: encoded(first)), first)
        XCTAssertEqual(try cache.changeset(1, storedAs: encoded(first)), first)
        XCTAssertEqual(cache.decodings, 1)
        // Rewritten in place (a rebase, a commit replacing its version): never served stale.
        let rewritten = create(1, "b")
        XCTAssertEqual(try cache.changeset(1, storedAs: encoded(rewritten)), rewritten)
        XCTAssertEqual(cache.decodings, 2)
    }

    func testItKeepsAtMostItsBytesAndForgetsWhatIsNoLongerStored() throws {
        let one = encoded(create(1, "a"))
        let cache = DecodedHistory(maxBytes: one.count * 2)
        for version in 1...3 {
            _ = try cache.changeset(UInt64(version), storedAs: encoded(create(UInt64(version), "a")))
        }
        XCTAssertEqual(cache.keptBytes, one.count * 2, "the third is past the limit: decoded, not kept")
        _ = try cache.changeset(3, storedAs: encoded(create(3, "a")))
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
}
