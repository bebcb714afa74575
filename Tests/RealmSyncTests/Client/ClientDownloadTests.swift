import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

final class ClientDownloadTests: XCTestCase {
    private var folder: ClientTestFolder!
    private let wall = ManualWallClock.clientStart()

    override func setUpWithError() throws { folder = try ClientTestFolder() }
    override func tearDown() { folder = nil }

    private func client(_ name: String, id: UInt64? = nil) throws -> SyncClient {
        let client = try SyncClient(configuration: folder.configuration(name), user: "u", wallClock: wall)
        if let id { try client.identify(as: id) }
        return client
    }

    /// A changeset of another client (file 9) at `clock` milliseconds, integrated at `serverVersion`.
    private func remote(_ serverVersion: UInt64, clock: UInt64, _ instructions: [Instruction]) -> IntegratedChangeset {
        IntegratedChangeset(
            serverVersion: serverVersion,
            origin: Changeset(
                clientVersion: serverVersion, basedOnServerVersion: serverVersion - 1,
                clock: HLCTimestamp(milliseconds: clock, counter: 0), clientFileID: 9, instructions: instructions))
    }

    /// A client that erased and created "p" again (client version 1, pending), then received a
    /// remote erase of it.
    private func clientWhoseRecreateMetARemoteErase() throws -> SyncClient {
        let a = try client("a", id: 1)
        _ = try a.receive(download([remote(1, clock: 10, [.create(ref("p"), fields: [])])], cursor: 1))
        try a.realm.write {
            try a.realm.delete(try a.person("p"))
            _ = try a.realm.create("Person", value: ["id": "p"])
        }
        _ = try a.receive(download([remote(2, clock: 11, [.erase(ref("p"))])], cursor: 2))
        return a
    }

    private func download(_ changesets: [IntegratedChangeset], cursor: UInt64, ack: UInt64 = 0) -> SyncMessage {
        .download(session: 1, downloadCursor: cursor, uploadAcknowledged: ack, changesets: changesets)
    }

    private func name(_ client: SyncClient, _ id: String) throws -> RealmValue {
        try client.person(id).value(forKey: "name")
    }

    func testADownloadIsOneTransactionThatRecordsNothing() throws {
        let a = try client("a", id: 1)
        final class Counter { var count = 0 }
        let counter = Counter()
        let token = try a.realm.observe { _, _ in counter.count += 1 }
        defer { token.invalidate() }
        let message = download(
            [
                remote(1, clock: 10, [.create(ref("x"), fields: [SyncField("name", .string("X"))])]),
                remote(2, clock: 11, [.create(ref("y"), fields: [SyncField("name", .string("Y"))])]),
            ], cursor: 2)
        XCTAssertEqual(try a.receive(message), [])
        XCTAssertEqual(counter.count, 1)
        XCTAssertEqual(try name(a, "x"), .string("X"))
        XCTAssertEqual(try name(a, "y"), .string("Y"))
        XCTAssertEqual(try a.storedHistory(), [])
        XCTAssertFalse(a.hasUnacknowledgedChanges)
        XCTAssertEqual(a.downloadCursor, 2)
        XCTAssertEqual(try a.pendingUploads(), [])
    }

    func testARemoteFieldWriteLosesToALaterPendingLocalWriteOnly() throws {
        let a = try client("a", id: 1)
        _ = try a.receive(download([remote(1, clock: 10, [.create(ref("x"), fields: [])])], cursor: 1))
        try a.realm.write { try a.person("x").setValue(.string("local"), forKey: "name") }
        let earlier = wall.nowMilliseconds() - 100
        _ = try a.receive(
            download(
                [
                    remote(
                        2, clock: earlier,
                        [
                            .set(ref("x"), path: ["name"], value: .string("remote")),
                            .set(ref("x"), path: ["age"], value: .int(4)),
                        ])
                ], cursor: 2))
        XCTAssertEqual(try name(a, "x"), .string("local"))
        XCTAssertEqual(try a.person("x").value(forKey: "age"), .int(4))
        _ = try a.receive(
            download(
                [
                    remote(
                        3, clock: wall.nowMilliseconds() + 100,
                        [.set(ref("x"), path: ["name"], value: .string("later"))])
                ],
                cursor: 3))
        XCTAssertEqual(try name(a, "x"), .string("later"))
    }

    func testARemoteEraseDeletesAndVoidsPendingWrites() throws {
        let a = try client("a", id: 1)
        _ = try a.receive(download([remote(1, clock: 10, [.create(ref("x"), fields: [])])], cursor: 1))
        try a.realm.write {
            try a.person("x").setValue(.string("local"), forKey: "name")
            try a.person("x").dynamicList("tags").append(.string("t"))
            _ = try a.realm.create("Person", value: ["id": "z"])
        }
        _ = try a.receive(download([remote(2, clock: 20, [.erase(ref("x"))])], cursor: 2))
        XCTAssertNil(try a.realm.object(ofType: "Person", forPrimaryKey: "x"))
        let history = try a.storedHistory()
        XCTAssertEqual(history.count, 1)
        XCTAssertEqual(history.first?.instructions.map(\.object), [ref("z")])
    }

    func testARemoteReplacementOfAnEmbeddedObjectVoidsPendingWritesInsideIt() throws {
        let a = try client("a", id: 1)
        let oslo = SyncValue.embedded([SyncField("city", .string("Oslo")), SyncField("zip", .string("0"))])
        _ = try a.receive(
            download([remote(1, clock: 10, [.create(ref("x"), fields: [SyncField("address", oslo)])])], cursor: 1))
        try a.realm.write {
            guard case .object(let address) = try a.person("x").value(forKey: "address") else {
                return XCTFail("no address")
            }
            try address.setValue("Bergen", forKey: "city")
            try a.person("x").setValue("kept", forKey: "name")
        }
        let rome = SyncValue.embedded([SyncField("city", .string("Rome")), SyncField("zip", .string("1"))])
        _ = try a.receive(
            download(
                [remote(2, clock: wall.nowMilliseconds() - 50, [.set(ref("x"), path: ["address"], value: rome)])],
                cursor: 2))
        XCTAssertEqual(try a.canonicalState().objects[ref("x")]?.first { $0.name == "address" }?.value, rome)
        XCTAssertEqual(try a.lastInstructions(), [.set(ref("x"), path: ["name"], value: .string("kept"))])
    }

    func testALinkToAnErasedObjectIsKeptByReferenceAndResolvesWhenItComesBack() throws {
        let a = try client("a", id: 1)
        _ = try a.receive(
            download(
                [
                    remote(1, clock: 10, [.create(ref("t"), fields: [])]),
                    remote(2, clock: 11, [.create(ref("s"), fields: [SyncField("friend", .link(ref("t")))])]),
                    remote(3, clock: 12, [.erase(ref("t"))]),
                ], cursor: 3))
        XCTAssertEqual(try a.person("s").value(forKey: "friend"), .null)
        let friend = { try a.canonicalState().objects[ref("s")]?.first { $0.name == "friend" }?.value }
        XCTAssertEqual(try friend(), .link(ref("t")), "the dump shows what the server holds")
        _ = try a.receive(download([remote(4, clock: 13, [.create(ref("t"), fields: [])])], cursor: 4))
        guard case .object(let target) = try a.person("s").value(forKey: "friend") else { return XCTFail("unresolved") }
        XCTAssertEqual(try target.value(forKey: "id"), "t")
        try a.realm.write { try a.person("s").setValue(.null, forKey: "friend") }
        XCTAssertEqual(try friend(), .null)
    }

    /// Seed 22 of the simulation: a pending local replacement older than a remote one is dropped by
    /// the server, so it must not hold back a later remote write inside the remote replacement.
    func testAnOlderPendingReplacementDoesNotHoldBackALaterRemoteWriteInsideIt() throws {
        let a = try client("a", id: 1)
        _ = try a.receive(download([remote(1, clock: 10, [.create(ref("p"), fields: [])])], cursor: 1))
        try a.realm.write { try a.person("p").setValue(.null, forKey: "address") }
        let later = wall.nowMilliseconds() + 100
        let address = SyncValue.embedded([SyncField("city", .string("Oslo")), SyncField("zip", .string("0"))])
        _ = try a.receive(
            download(
                [
                    remote(2, clock: later, [.set(ref("p"), path: ["address"], value: address)]),
                    remote(3, clock: later + 1, [.set(ref("p"), path: ["address", "city"], value: .string("Rome"))]),
                ], cursor: 3))
        guard case .object(let kept) = try a.person("p").value(forKey: "address") else { return XCTFail("no address") }
        XCTAssertEqual(try kept.value(forKey: "city"), "Rome")
        XCTAssertFalse(try a.storedHistory().contains { !$0.instructions.isEmpty }, "the doomed write is voided")
    }

    /// Seed 89 of the simulation: a local erase and re-create lose to a remote erase; a local write
    /// made after seeing that erase stays pending, and a remote create before it reaches the server
    /// brings the object back for it.
    func testAWriteAfterASettledEraseWaitsForARemoteCreate() throws {
        let a = try clientWhoseRecreateMetARemoteErase()
        try a.realm.write { try a.person("p").dynamicMutableSet("scores").insert(.int(5)) }
        // The erase and create (client version 1) reached the server after the remote erase: dropped.
        _ = try a.receive(download([], cursor: 3, ack: 1))
        XCTAssertNil(try a.realm.object(ofType: "Person", forPrimaryKey: "p"))
        var create = remote(4, clock: 12, [.create(ref("p"), fields: [SyncField("name", .string("back"))])])
        create.recipientClientVersion = 1
        _ = try a.receive(download([create], cursor: 4, ack: 1))
        XCTAssertEqual(try a.person("p").dynamicMutableSet("scores").values(), [.int(5)])
        XCTAssertEqual(try name(a, "p"), "back")
        XCTAssertEqual(
            try a.storedHistory().flatMap(\.instructions), [.setAdd(ref("p"), field: "scores", value: .int(5))])
    }

    /// Seed 125 of the simulation: an object this file created, integrated and then erased on the
    /// server before the file's first bootstrap is not in the snapshot: the replica deletes it.
    func testABootstrapDeletesAnIntegratedObjectTheServerErased() throws {
        let a = try client("a", id: 1)
        try a.realm.write { _ = try a.realm.create("Person", value: ["id": "gone"]) }
        try a.realm.write { _ = try a.realm.create("Person", value: ["id": "pending"]) }
        let other = ObjectSnapshot(object: ref("other"), fields: [SyncField("name", .string("O"))])
        _ = try a.receive(
            .bootstrap(
                session: 1, serverVersion: 4, latestClock: HLCTimestamp(milliseconds: 5, counter: 0),
                uploadAcknowledged: 1, objects: [other], isLast: true, progress: 1))
        XCTAssertEqual(Set(try a.canonicalState().objects.keys), [ref("other"), ref("pending")])
        XCTAssertEqual(try a.storedHistory().map(\.clientVersion), [2])
    }

    /// Seed 134 of the simulation: a local create made after a remote erase was seen is not
    /// concurrent with it: when the earlier local erase settles as dropped, the object stays.
    func testACreateAfterSeeingARemoteEraseSurvivesTheSettledLocalErase() throws {
        let a = try client("a", id: 1)
        _ = try a.receive(download([remote(1, clock: 10, [.create(ref("p"), fields: [])])], cursor: 1))
        try a.realm.write { try a.realm.delete(try a.person("p")) }
        _ = try a.receive(download([remote(2, clock: 11, [.erase(ref("p"))])], cursor: 2))
        try a.realm.write { _ = try a.realm.create("Person", value: ["id": "p", "name": "again"]) }
        _ = try a.receive(download([], cursor: 4, ack: 2))
        XCTAssertEqual(try name(a, "p"), "again")
    }

    /// Seed 8916 of the simulation: a local erase and create in one commit, made after a remote
    /// erase was seen, settle after an earlier lost erase: the create follows the erase in its own
    /// changeset and is not concurrent with the remote erase, so the object stays.
    func testACreateAfterAnEraseInOneCommitSurvivesItsSettledErase() throws {
        let a = try clientWhoseRecreateMetARemoteErase()
        try a.realm.write {
            try a.realm.delete(try a.person("p"))
            _ = try a.realm.create("Person", value: ["id": "p", "name": "again"])
        }
        _ = try a.receive(download([], cursor: 3, ack: 1))
        _ = try a.receive(download([], cursor: 4, ack: 2))
        XCTAssertEqual(try name(a, "p"), "again")
    }

    /// Seed 182 of the simulation: the batches of a bootstrap interrupted by a lost connection are
    /// of an older server version; the next session's bootstrap must not apply them.
    func testAnInterruptedBootstrapIsForgottenOnTheNextSession() throws {
        let a = try client("a", id: 1)
        let x = ObjectSnapshot(object: ref("x"), fields: [SyncField("name", .string("X"))])
        let y = ObjectSnapshot(object: ref("y"), fields: [SyncField("name", .string("Y"))])
        _ = try a.receive(
            .bootstrap(
                session: 1, serverVersion: 3, latestClock: .zero, uploadAcknowledged: 0, objects: [x], isLast: false,
                progress: 0.5))
        a.disconnect()
        _ = try a.connect(session: 2)
        _ = try a.receive(
            .bootstrap(
                session: 2, serverVersion: 5, latestClock: .zero, uploadAcknowledged: 0, objects: [y], isLast: true,
                progress: 1))
        XCTAssertEqual(Set(try a.canonicalState().objects.keys), [ref("y")])
    }

    /// Seed 310 of the simulation: the replica deleted an object when its erase settled as lost and
    /// created it again locally; a remote create before the pending writes of the deleted object
    /// reach the server brings them back, as the server applies them after that create.
    func testARemoteCreateReplaysPendingWritesOnAnObjectCreatedAgainLocally() throws {
        let a = try clientWhoseRecreateMetARemoteErase()
        try a.realm.write { try a.person("p").dynamicMutableSet("scores").insert(.int(5)) }
        _ = try a.receive(download([], cursor: 3, ack: 1))
        try a.realm.write { _ = try a.realm.create("Person", value: ["id": "p", "name": "mine"]) }
        var create = remote(4, clock: 12, [.create(ref("p"), fields: [])])
        create.recipientClientVersion = 1
        _ = try a.receive(download([create], cursor: 4, ack: 1))
        XCTAssertEqual(try a.person("p").dynamicMutableSet("scores").values(), [.int(5)])
        XCTAssertEqual(try name(a, "p"), "mine")
    }

    /// Seed 744397367 of the simulation: the replayed pending writes of the deleted object come
    /// before the local create on the server; the create's fields (an embedded object replaced by
    /// null) overwrite them, so the replay must not bring them back over it.
    func testARemoteCreateDoesNotReplayPendingWritesTheLocalCreateOverwrites() throws {
        let a = try clientWhoseRecreateMetARemoteErase()
        try a.realm.write {
            try a.person("p").setValue(.dictionary(["city": "d", "zip": "3"]), forKey: "address")
            try a.person("p").dynamicMutableSet("scores").insert(.int(5))
        }
        try a.realm.write {
            guard case .object(let address) = try a.person("p").value(forKey: "address") else {
                return XCTFail("no address")
            }
            try address.setValue("e", forKey: "city")
        }
        _ = try a.receive(download([], cursor: 3, ack: 1))
        try a.realm.write { _ = try a.realm.create("Person", value: ["id": "p", "name": "mine"]) }
        var create = remote(4, clock: 12, [.create(ref("p"), fields: [])])
        create.recipientClientVersion = 1
        _ = try a.receive(download([create], cursor: 4, ack: 1))
        XCTAssertEqual(try a.person("p").value(forKey: "address"), .null)
        XCTAssertEqual(try a.person("p").dynamicMutableSet("scores").values(), [.int(5)])
        XCTAssertEqual(try name(a, "p"), "mine")
    }

    /// Seed 72 of the simulation: a remote create of an object the replica kept does not replay
    /// pending writes: a pending insert a later remote clear erased stays erased.
    func testARemoteCreateOfAKeptObjectDoesNotBringBackWhatAClearErased() throws {
        let a = try client("a", id: 1)
        _ = try a.receive(download([remote(1, clock: 10, [.create(ref("p"), fields: [])])], cursor: 1))
        try a.realm.write { try a.person("p").dynamicList("tags").append("d") }
        let later = wall.nowMilliseconds() + 100
        _ = try a.receive(download([remote(2, clock: later, [.listClear(ref("p"), field: "tags")])], cursor: 2))
        XCTAssertEqual(try a.person("p").dynamicList("tags").values(), [])
        _ = try a.receive(download([remote(3, clock: later + 1, [.create(ref("p"), fields: [])])], cursor: 3))
        XCTAssertEqual(try a.person("p").dynamicList("tags").values(), [])
    }

    /// Seed 798 of the simulation: a remote create whose link points at the created object itself.
    func testARemoteCreateKeepsALinkToItself() throws {
        let a = try client("a", id: 1)
        _ = try a.receive(
            download(
                [remote(1, clock: 10, [.create(ref("p"), fields: [SyncField("friend", .link(ref("p")))])])], cursor: 1))
        guard case .object(let friend) = try a.person("p").value(forKey: "friend") else { return XCTFail("no link") }
        XCTAssertEqual(try friend.value(forKey: "id"), "p")
    }

    /// Seed 934 of the simulation: a map key this file put, integrated and then removed on the
    /// server before its first bootstrap is not in the snapshot: the replica removes it.
    func testABootstrapRemovesIntegratedEntriesTheServerRemoved() throws {
        let a = try client("a", id: 1)
        try a.realm.write {
            let p = try a.realm.create("Person", value: ["id": "p"])
            try p.dynamicMap("attrs").setValue("old", forKey: "gone")
            try p.dynamicMutableSet("scores").insert(.int(1))
        }
        try a.realm.write { try a.person("p").dynamicMap("attrs").setValue("new", forKey: "pending") }
        let p = ObjectSnapshot(
            object: ref("p"), fields: [], sets: [SetSnapshot(field: "scores", values: [])],
            maps: [MapSnapshot(field: "attrs", entries: [])])
        _ = try a.receive(
            .bootstrap(
                session: 1, serverVersion: 4, latestClock: HLCTimestamp(milliseconds: 5, counter: 0),
                uploadAcknowledged: 1, objects: [p], isLast: true, progress: 1))
        XCTAssertEqual(try a.person("p").dynamicMap("attrs").keys, ["pending"])
        XCTAssertEqual(try a.person("p").dynamicMutableSet("scores").values(), [])
    }

    /// Simulation seeds 625612529 and 625612648: an element the server erased after integrating it
    /// (here with its object, re-created later) stayed in the replica's list after the bootstrap.
    func testABootstrapRemovesIntegratedListElementsTheServerErased() throws {
        let a = try client("a", id: 1)
        try a.realm.write {
            let p = try a.realm.create("Person", value: ["id": "p"])
            try p.dynamicList("tags").append("gone")
        }
        try a.realm.write { try a.person("p").dynamicList("tags").append("pending") }
        let p = ObjectSnapshot(object: ref("p"), fields: [], lists: [ListSnapshot(field: "tags", elements: [])])
        _ = try a.receive(
            .bootstrap(
                session: 1, serverVersion: 4, latestClock: HLCTimestamp(milliseconds: 5, counter: 0),
                uploadAcknowledged: 1, objects: [p], isLast: true, progress: 1))
        XCTAssertEqual(try a.person("p").dynamicList("tags").values(), ["pending"])
        // The list's mirror follows: a later edit records against the one element left.
        try a.realm.write { try a.person("p").dynamicList("tags").remove(at: 0) }
        XCTAssertEqual(try a.person("p").dynamicList("tags").values(), [])
    }

    /// Seed 2043 of the simulation: a list element this file inserted (integrated) and then erased
    /// (pending) is in the bootstrap's snapshot; the pending erase will erase it on the server, so
    /// the snapshot's insert does not bring it back.
    func testABootstrapDoesNotBringBackAListElementAPendingEraseRemoves() throws {
        let a = try client("a", id: 1)
        try a.realm.write {
            let p = try a.realm.create("Person", value: ["id": "p"])
            try p.dynamicList("tags").append("x")
            try p.dynamicList("tags").append("kept")
        }
        let inserts = try a.storedHistory().flatMap(\.instructions).compactMap { instruction in
            if case .listInsert(_, _, let id, let position, let value) = instruction {
                return ListSnapshot.Element(id: id, position: position, value: value)
            }
            return nil
        }
        guard inserts.count == 2 else { return XCTFail("inserts recorded: \(inserts)") }
        let element = inserts[0].id
        try a.realm.write { try a.person("p").dynamicList("tags").remove(at: 0) }
        let listed = [
            ListSnapshot.Element(id: element, position: inserts[0].position, value: .string("y")), inserts[1],
        ]
        let p = ObjectSnapshot(object: ref("p"), fields: [], lists: [ListSnapshot(field: "tags", elements: listed)])
        _ = try a.receive(
            .bootstrap(
                session: 1, serverVersion: 4, latestClock: HLCTimestamp(milliseconds: 5, counter: 0),
                uploadAcknowledged: 1, objects: [p], isLast: true, progress: 1))
        XCTAssertEqual(try a.person("p").dynamicList("tags").values(), ["kept"])
        XCTAssertEqual(
            try a.storedHistory().flatMap(\.instructions), [.listErase(ref("p"), field: "tags", element: element)])
    }

    /// Seed 6947 of the simulation: list elements this file inserted (integrated) were moved and set
    /// on the server before the bootstrap; the snapshot's position and value replace the replica's.
    func testABootstrapMovesAndSetsListElementsTheReplicaAlreadyHas() throws {
        let a = try client("a", id: 1)
        try a.realm.write {
            let p = try a.realm.create("Person", value: ["id": "p"])
            try p.dynamicList("tags").append("x")
            try p.dynamicList("tags").append("y")
        }
        let inserts = try a.storedHistory().flatMap(\.instructions).compactMap { instruction in
            if case .listInsert(_, _, let id, let position, let value) = instruction {
                return ListSnapshot.Element(id: id, position: position, value: value)
            }
            return nil
        }
        guard inserts.count == 2 else { return XCTFail("inserts recorded: \(inserts)") }
        let moved = ListSnapshot.Element(
            id: inserts[0].id, position: FractionalPosition.between(inserts[1].position, nil), value: .string("x"))
        let set = ListSnapshot.Element(id: inserts[1].id, position: inserts[1].position, value: .string("z"))
        let p = ObjectSnapshot(
            object: ref("p"), fields: [], lists: [ListSnapshot(field: "tags", elements: [set, moved])])
        _ = try a.receive(
            .bootstrap(
                session: 1, serverVersion: 4, latestClock: HLCTimestamp(milliseconds: 5, counter: 0),
                uploadAcknowledged: 1, objects: [p], isLast: true, progress: 1))
        XCTAssertEqual(try a.person("p").dynamicList("tags").values(), ["z", "x"])
    }

    func testADamagedStoredChangesetIsAnErrorNamingIt() throws {
        let a = try client("a", id: 1)
        try a.realm.write { _ = try a.realm.create("Person", value: ["id": "p"]) }
        try a.realm.write { try a.realm.executeSQL("UPDATE _sync_history SET changeset = x'0001'") }
        XCTAssertThrowsError(try a.pendingUploads()) { error in
            XCTAssertEqual((error as? SyncError)?.code, .badChangeset)
            XCTAssertTrue("\(error)".contains("changeset"), "\(error)")
        }
    }

    func testARemoteListInsertIsPlacedByPositionAndIDAndAClearKeepsLaterInserts() throws {
        let a = try client("a", id: 1)
        let e1 = ElementID(clock: HLCTimestamp(milliseconds: 10, counter: 0), clientFileID: 9, index: 0)
        let e2 = ElementID(clock: HLCTimestamp(milliseconds: 11, counter: 0), clientFileID: 9, index: 0)
        let between = FractionalPosition.between(.first, nil)
        _ = try a.receive(
            download(
                [
                    remote(1, clock: 10, [.create(ref("x"), fields: [])]),
                    remote(
                        2, clock: 11,
                        [.listInsert(ref("x"), field: "tags", element: e2, position: between, value: .string("b"))]),
                    remote(
                        3, clock: 12,
                        [.listInsert(ref("x"), field: "tags", element: e1, position: .first, value: .string("a"))]),
                ], cursor: 3))
        XCTAssertEqual(try a.person("x").dynamicList("tags").values(), ["a", "b"])
        try a.realm.write { try a.person("x").dynamicList("tags").append("c") }
        let clearTime = wall.nowMilliseconds() - 1  // before the local insert of "c", after a and b
        _ = try a.receive(download([remote(4, clock: clearTime, [.listClear(ref("x"), field: "tags")])], cursor: 4))
        XCTAssertEqual(try a.person("x").dynamicList("tags").values(), ["c"])
    }

    func testTwoClientsExchangingChangesetsByHandConverge() throws {
        let a = try client("a", id: 1)
        let b = try client("b", id: 2)
        var serverVersion: UInt64 = 0
        /// Integrates `from`'s uploads and downloads them to `to`, as a server without conflicts would.
        func exchange(from: SyncClient, to: SyncClient) throws {
            guard case .upload(_, let changesets)? = try from.pendingUploads().first else { return }
            let integrated = changesets.map { changeset -> IntegratedChangeset in
                serverVersion += 1
                return IntegratedChangeset(serverVersion: serverVersion, origin: changeset)
            }
            _ = try to.receive(download(integrated, cursor: serverVersion, ack: to.uploadAcknowledged))
            _ = try from.receive(
                download([], cursor: serverVersion, ack: changesets.last?.clientVersion ?? 0))
        }
        try a.realm.write {
            _ = try a.realm.create(
                "Person",
                value: [
                    "id": "p", "name": "P", "tags": ["1", "2", "3"], "scores": [1], "attrs": ["k": "v"],
                    "address": ["city": "Oslo", "zip": "0"], "addresses": [["city": "Rome", "zip": "1"]],
                ])
        }
        try b.realm.write { _ = try b.realm.create("Person", value: ["id": "q", "name": "Q", "tags": ["x"]]) }
        try exchange(from: a, to: b)
        try exchange(from: b, to: a)
        XCTAssertEqual(try a.canonicalState(), try b.canonicalState())

        wall.advance(10)
        try a.realm.write {
            let q = try a.person("q")
            try q.dynamicList("tags").insert("w", at: 0)
            try q.setValue(.object(try a.person("p")), forKey: "friend")
        }
        try b.realm.write {
            let p = try b.person("p")
            try p.dynamicList("tags").move(from: 0, to: 2)
            try p.dynamicList("tags").remove(at: 0)
            try p.dynamicMutableSet("scores").insert(.int(5))
            try p.dynamicMap("attrs").setValue("v2", forKey: "k")
            guard case .object(let address) = try p.value(forKey: "address") else { return XCTFail("no address") }
            try address.setValue("Bergen", forKey: "city")
            guard case .object(let element) = try p.dynamicList("addresses")[0] else { return XCTFail("no element") }
            try element.setValue("Milan", forKey: "city")
        }
        try exchange(from: a, to: b)
        try exchange(from: b, to: a)
        let state = try a.canonicalState()
        let other = try b.canonicalState()
        XCTAssertEqual(state, other, state.differences(from: other).joined(separator: "\n"))
        XCTAssertEqual(
            state.objects[ref("p")]?.first { $0.name == "tags" }?.value, .list([.string("3"), .string("1")]))
        XCTAssertEqual(
            state.objects[ref("q")]?.first { $0.name == "tags" }?.value, .list([.string("w"), .string("x")]))
        XCTAssertEqual(
            state.objects[ref("p")]?.first { $0.name == "addresses" }?.value,
            .list([.embedded([SyncField("city", .string("Milan")), SyncField("zip", .string("1"))])]))
        XCTAssertFalse(a.hasUnacknowledgedChanges)
        XCTAssertFalse(b.hasUnacknowledgedChanges)
    }

    func testAReopenedClientResumesWithItsHistory() throws {
        var a: SyncClient? = try client("a", id: 1)
        try a?.realm.write { _ = try a?.realm.create("Person", value: ["id": "p"]) }
        try a?.realm.write { try a?.person("p").setValue("n", forKey: "name") }
        guard case .upload(_, let sent)? = try a?.pendingUploads().first else { return XCTFail("nothing uploaded") }
        a = nil  // a crash: no disconnect
        let reopened = try client("a")
        XCTAssertEqual(
            try reopened.connect(session: 3),
            [
                .bind(session: 3, user: "u", needsClientFileID: false),
                .identify(session: 3, clientFileID: 1, salt: 7, downloadCursor: 0, query: .allObjects(of: ["Person"])),
            ])
        _ = try reopened.receiveFirstDownload(session: 3)
        XCTAssertEqual(try reopened.pendingUploads(), [.upload(session: 3, changesets: sent)])
        XCTAssertEqual(sent.map(\.clientVersion), [1, 2])
        XCTAssertEqual(try reopened.pendingUploads(), [], "sent once per connection")
    }

    func testTheAllocatedIDReplacesTheProvisionalOneBeforeUpload() throws {
        let a = try client("a")
        try a.realm.write { _ = try a.realm.create("Person", value: ["id": "p", "tags": ["t", "u"]]) }
        XCTAssertEqual(try a.connect(session: 1), [.bind(session: 1, user: "u", needsClientFileID: true)])
        XCTAssertEqual(try a.pendingUploads(), [], "no upload before the file has its id")
        _ = try a.receive(.ident(session: 1, clientFileID: 5, salt: 7))
        XCTAssertEqual(try a.pendingUploads(), [], "a file that never downloaded waits for its first download")
        _ = try a.receiveFirstDownload(session: 1)
        guard case .upload(_, let changesets)? = try a.pendingUploads().first else { return XCTFail("no upload") }
        XCTAssertEqual(changesets.map(\.clientFileID), [5])
        guard case .listInsert(_, _, let e, _, _)? = changesets.first?.instructions.dropFirst().first else {
            return XCTFail("\(changesets)")
        }
        XCTAssertEqual(e.clientFileID, 5)
        try a.realm.write { try a.person("p").dynamicList("tags").remove(at: 0) }
        XCTAssertEqual(try a.lastInstructions(), [.listErase(ref("p"), field: "tags", element: e)])
    }

    func testABootstrapAppliesAfterItsLastBatchAndRebasesLocalCommits() throws {
        let a = try client("a", id: 1)
        try a.realm.write { _ = try a.realm.create("Person", value: ["id": "mine", "name": "M"]) }
        let e = ElementID(clock: HLCTimestamp(milliseconds: 3, counter: 0), clientFileID: 9, index: 0)
        let e2 = ElementID(clock: HLCTimestamp(milliseconds: 3, counter: 0), clientFileID: 9, index: 1)
        let x = ObjectSnapshot(
            object: ref("x"), fields: [SyncField("name", .string("X"))],
            lists: [
                ListSnapshot(
                    field: "tags",
                    elements: [
                        .init(id: e, position: .first, value: .string("t")),
                        .init(id: e2, position: .between(.first, nil), value: .string("u")),
                    ])
            ],
            sets: [SetSnapshot(field: "scores", values: [.int(2)])],
            maps: [MapSnapshot(field: "attrs", entries: [SyncField("k", .string("v"))])])
        let y = ObjectSnapshot(object: ref("y"), fields: [SyncField("name", .string("Y"))])
        let latest = HLCTimestamp(milliseconds: 9_000_000, counter: 4)
        _ = try a.receive(
            .bootstrap(
                session: 1, serverVersion: 7, latestClock: latest, uploadAcknowledged: 0, objects: [x], isLast: false,
                progress: 0.5))
        XCTAssertNil(try a.realm.object(ofType: "Person", forPrimaryKey: "x"))
        _ = try a.receive(
            .bootstrap(
                session: 1, serverVersion: 7, latestClock: latest, uploadAcknowledged: 0, objects: [y], isLast: true,
                progress: 1))
        XCTAssertEqual(a.downloadCursor, 7)
        let state = try a.canonicalState()
        XCTAssertEqual(Set(state.objects.keys), [ref("x"), ref("y"), ref("mine")])
        XCTAssertEqual(
            state.objects[ref("x")], CanonicalState.fields(of: x).mergedWithDefaults(from: state.objects[ref("x")]))
        // The pending commit is rebased after everything the bootstrap holds.
        let rebased = try a.storedHistory()
        XCTAssertEqual(rebased.count, 1)
        XCTAssertEqual(rebased.first?.basedOnServerVersion, 7)
        XCTAssertGreaterThan(rebased.first?.clock ?? .zero, latest)
        try a.realm.write { try a.person("x").dynamicList("tags").remove(at: 0) }
        XCTAssertEqual(try a.lastInstructions(), [.listErase(ref("x"), field: "tags", element: e)])
    }
}

extension [SyncField] {
    /// These fields, plus those of `other` missing here (schema defaults a snapshot leaves out), by name.
    func mergedWithDefaults(from other: [SyncField]?) -> [SyncField] {
        let names = Set(map(\.name))
        return (self + (other ?? []).filter { !names.contains($0.name) }).sorted { $0.name < $1.name }
    }
}
