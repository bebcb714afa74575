import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// The client in subscription mode (`SyncViewSource.subscriptions`), driven by hand-made server
/// messages: subscription set states, query messages, view changes, corrections, refusals.
final class ClientViewTests: XCTestCase {
    private var folder: ClientTestFolder!
    private let wall = ManualWallClock.clientStart()

    override func setUpWithError() throws { folder = try ClientTestFolder() }
    override func tearDown() { folder = nil }

    /// Person (as the client tests' schema) and Dog, two synced classes.
    private func configuration(_ name: String) -> Realm.Configuration {
        var config = folder.configuration(name)
        let dog = ObjectSchema(
            className: "Dog",
            properties: [
                Property(name: "id", type: .string, isPrimaryKey: true), Property(name: "name", type: .string),
            ],
            primaryKey: "id")
        config.schema = Schema(ClientTestSchema.schema.objectSchemas + [dog])
        return config
    }

    private func client(
        _ name: String, errorHandler: ((SyncError, [CompensatingWrite]) -> Void)? = nil
    ) throws -> SyncClient {
        try SyncClient(
            configuration: configuration(name), user: "u", wallClock: wall, viewSource: .subscriptions,
            errorHandler: errorHandler)
    }

    /// A client with file id 1 that downloaded through server version 1 (person "a", created remotely).
    private func downloadedClient(
        _ name: String, errorHandler: ((SyncError, [CompensatingWrite]) -> Void)? = nil
    ) throws -> SyncClient {
        let c = try client(name, errorHandler: errorHandler)
        try c.identify(as: 1)
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 1, uploadAcknowledged: 0,
                changesets: [remote(1, [.create(ref("a"), fields: [SyncField("name", .string("A"))])])]))
        return c
    }

    private func remote(_ serverVersion: UInt64, _ instructions: [Instruction]) -> IntegratedChangeset {
        IntegratedChangeset(
            serverVersion: serverVersion,
            origin: Changeset(
                clientVersion: serverVersion, basedOnServerVersion: serverVersion - 1,
                clock: HLCTimestamp(milliseconds: 10 + serverVersion, counter: 0), clientFileID: 9,
                instructions: instructions))
    }

    private func subscribe(_ client: SyncClient, _ classes: String...) throws {
        try client.realm.subscriptions.update { set in
            try set.removeAll()
            for name in classes { try set.append(QuerySubscription(className: name)) }
        }
    }

    private func query(_ version: Int64, _ classes: String...) -> QuerySet {
        QuerySet(
            version: version, subscriptions: classes.map { SubscriptionQuery(className: $0, query: "TRUEPREDICATE") })
    }

    private func bootstrap(
        _ queryVersion: Int64, serverVersion: UInt64, objects: [ObjectSnapshot] = [], removals: [ObjectRef] = [],
        isLast: Bool = true, ack: UInt64 = 0
    ) -> SyncMessage {
        .bootstrap(
            session: 1, serverVersion: serverVersion, latestClock: HLCTimestamp(milliseconds: 20, counter: 0),
            uploadAcknowledged: ack, objects: objects, isLast: isLast, progress: isLast ? 1 : 0.5,
            queryVersion: queryVersion, removals: removals)
    }

    private func person(_ id: String, name: String) -> ObjectSnapshot {
        ObjectSnapshot(object: ref(id), fields: [SyncField("name", .string(name))])
    }

    private func name(_ client: SyncClient, _ id: String) throws -> RealmValue {
        try client.person(id).value(forKey: "name")
    }

    private func has(_ client: SyncClient, _ id: String) throws -> Bool {
        try client.realm.object(ofType: "Person", forPrimaryKey: .string(id)) != nil
    }

    // MARK: States

    func testTheStatesFollowTheServerPendingBootstrappingComplete() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        let v1 = try c.realm.subscriptions
        XCTAssertEqual(v1.version, 1)
        XCTAssertEqual(v1.state, .pending)
        XCTAssertEqual(try c.pendingUploads(), [.query(session: 1, query: query(1, "Person"))])
        XCTAssertEqual(v1.state, .pending)
        _ = try c.receive(bootstrap(1, serverVersion: 2, objects: [person("b", name: "B")], isLast: false))
        XCTAssertEqual(v1.state, .bootstrapping)
        XCTAssertFalse(try has(c, "b"), "a batch is stored aside until the last one")
        _ = try c.receive(bootstrap(1, serverVersion: 2, objects: [person("c", name: "C")]))
        XCTAssertEqual(v1.state, .complete)
        XCTAssertNil(v1.errorMessage)
        XCTAssertTrue(try has(c, "b"))
        XCTAssertTrue(try has(c, "c"))
        XCTAssertEqual(c.downloadCursor, 2)

        try subscribe(c, "Person", "Dog")
        let v2 = try c.realm.subscriptions
        // realm-core supersedes a set when a newer one completes, not when it is committed.
        XCTAssertEqual(v1.state, .complete, "the active set until the newer one completes")
        XCTAssertEqual(v2.state, .pending)
        XCTAssertEqual(try c.pendingUploads(), [.query(session: 1, query: query(2, "Person", "Dog"))])
        _ = try c.receive(bootstrap(2, serverVersion: 2))
        XCTAssertEqual(v2.state, .complete)
        XCTAssertEqual(v1.state, .superseded)
    }

    /// View simulation seed 973: a file at cursor 0 uploaded after its first (empty) download, then
    /// the bootstrap of its set arrived and rebased the changesets the server had integrated already.
    func testAFileWithSubscriptionsUploadsNothingBeforeItsFirstBootstrap() throws {
        let c = try client("a")
        try c.identify(as: 1)
        try subscribe(c, "Person")
        try c.realm.write { _ = try c.realm.create("Person", value: .dictionary(["id": .string("p")])) }
        XCTAssertEqual(try c.pendingUploads(), [.query(session: 1, query: query(1, "Person"))], "no upload yet")
        let before = try c.storedHistory()
        _ = try c.receive(bootstrap(1, serverVersion: 0))
        let rebased = try c.storedHistory()
        XCTAssertNotEqual(rebased.map(\.clock), before.map(\.clock), "the first bootstrap rebases: nothing was sent")
        XCTAssertEqual(try c.pendingUploads(), [.upload(session: 1, changesets: rebased)])
        // A later set's bootstrap still finds the cursor at 0, but the file has had its first state:
        // the changesets just sent are not rebased again.
        try subscribe(c, "Person", "Dog")
        _ = try c.pendingUploads()
        _ = try c.receive(bootstrap(2, serverVersion: 0))
        XCTAssertEqual(try c.storedHistory(), rebased)
        XCTAssertEqual(try c.realm.subscriptions.state, .complete)
    }

    /// View simulation seed 45 (after the fix above): a file still at cursor 0 reconnected and got
    /// its whole view again. Nothing was uploaded on the new connection, so what the bootstrap does
    /// not acknowledge is not integrated: rebased; the objects the view lacks go.
    func testAWholeViewAfterAReconnectionDeletesWhatItLacksAndRebasesWhatIsUnacknowledged() throws {
        let c = try client("a")
        try c.identify(as: 1)
        try subscribe(c, "Person")
        _ = try c.pendingUploads()
        _ = try c.receive(bootstrap(1, serverVersion: 0))
        try c.realm.write { _ = try c.realm.create("Person", value: .dictionary(["id": .string("refused")])) }
        try c.realm.write { _ = try c.realm.create("Person", value: .dictionary(["id": .string("mine")])) }
        let sent = try c.storedHistory()
        XCTAssertEqual(try c.pendingUploads(), [.upload(session: 1, changesets: sent)])
        // The connection drops before the answer; the server integrated (and refused) the first.
        c.disconnect()
        let reconnect = try c.connect(session: 2)
        XCTAssertFalse(reconnect.contains { if case .upload = $0 { true } else { false } }, "waits for its state")
        XCTAssertEqual(try c.pendingUploads(), [])
        _ = try c.receive(
            .bootstrap(
                session: 2, serverVersion: 3, latestClock: HLCTimestamp(milliseconds: 20, counter: 0),
                uploadAcknowledged: sent[0].clientVersion, objects: [person("b", name: "B")], isLast: true,
                progress: 1, queryVersion: 1, removals: []))
        XCTAssertFalse(try has(c, "refused"), "integrated, and not in the server's view")
        XCTAssertTrue(try has(c, "mine"), "its create is still pending")
        XCTAssertTrue(try has(c, "b"))
        let rebased = try c.storedHistory()
        XCTAssertEqual(rebased.map(\.clientVersion), [sent[1].clientVersion])
        XCTAssertEqual(rebased.first?.basedOnServerVersion, 3, "rebased on the bootstrap")
        XCTAssertEqual(try c.pendingUploads(), [.upload(session: 2, changesets: rebased)])
    }

    func testARefusedSetIsInErrorWithItsMessageAndTheSessionGoesOn() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        _ = try c.pendingUploads()
        XCTAssertEqual(try c.receive(.queryError(session: 1, version: 1, message: "unknown field 'x'")), [])
        let v1 = try c.realm.subscriptions
        XCTAssertEqual(v1.state, .error)
        XCTAssertEqual(v1.errorMessage, "unknown field 'x'")
        // The file keeps it: another client on the same file reads the same state.
        let again = try client("a")
        XCTAssertEqual(try again.realm.subscriptions.state, .error)
        // The refused version is not asked for again on the next connection; a newer one is.
        c.disconnect()
        let reconnect = try c.connect(session: 2)
        XCTAssertEqual(reconnect.count, 2)
        XCTAssertEqual(
            reconnect.last, .identify(session: 2, clientFileID: 1, salt: 7, downloadCursor: 1, query: query(0)))
        try subscribe(c, "Dog")
        XCTAssertEqual(v1.state, .error, "refused, until a newer set completes")
        XCTAssertEqual(try c.pendingUploads(), [.query(session: 2, query: query(2, "Dog"))])
        _ = try c.receive(bootstrap(2, serverVersion: 1))
        XCTAssertEqual(try c.realm.subscriptions.state, .complete)
        XCTAssertEqual(v1.state, .superseded)
    }

    func testALocalRealmsSetIsCompleteAtOnce() throws {
        let realm = try Realm(configuration: configuration("local"))
        try realm.subscriptions.update { try $0.append(QuerySubscription(className: "Person")) }
        XCTAssertEqual(try realm.subscriptions.state, .complete)
        // The all-objects mode of sync leaves the states to the realm too.
        let all = try SyncClient(configuration: configuration("all"), user: "u", wallClock: wall)
        try all.realm.subscriptions.update { try $0.append(QuerySubscription(className: "Person")) }
        XCTAssertEqual(try all.realm.subscriptions.state, .complete)
    }

    // MARK: Messages

    func testANewSetTravelsBetweenTheChangesetsMadeBeforeItAndThoseMadeUnderIt() throws {
        let c = try client("a")
        try subscribe(c, "Person")
        _ = try c.connect(session: 1)
        _ = try c.receive(.ident(session: 1, clientFileID: 1, salt: 7))
        _ = try c.receive(bootstrap(1, serverVersion: 3, objects: [person("b", name: "B")]))
        _ = try c.receive(.download(session: 1, downloadCursor: 3, uploadAcknowledged: 0, changesets: []))
        XCTAssertEqual(try c.pendingUploads(), [])
        try c.realm.write { _ = try c.realm.create("Person", value: ["id": "c", "name": "C"]) }
        try subscribe(c, "Person", "Dog")
        try c.realm.write { _ = try c.realm.create("Dog", value: ["id": "rex", "name": "Rex"]) }
        let sent = try c.pendingUploads()
        guard sent.count == 3, case .upload(1, let before) = sent[0], case .upload(1, let under) = sent[2] else {
            return XCTFail("expected upload, query, upload; got \(sent)")
        }
        XCTAssertEqual(sent[1], .query(session: 1, query: query(2, "Person", "Dog")))
        XCTAssertEqual(before.map(\.clientVersion), [1], "made under set 1: judged in set 1's view")
        XCTAssertEqual(under.map(\.clientVersion), [2], "made under set 2")

        // A new connection waits for the uploads before asking for the set again.
        c.disconnect()
        XCTAssertEqual(try c.connect(session: 2).count, 2, "bind and identify, no query yet")
        XCTAssertEqual(try c.pendingUploads().count, 3)
    }

    /// Several sets made offline, each with writes under it: every one travels, in order, before
    /// the writes made under it, and the latest last (realm-core sends every pending set; flx
    /// "Recover: offline writes with associated subscriptions in the correct order").
    func testEverySetMadeOfflineTravelsBeforeTheWritesMadeUnderIt() throws {
        let c = try client("a")
        try subscribe(c, "Person")
        _ = try c.connect(session: 1)
        _ = try c.receive(.ident(session: 1, clientFileID: 1, salt: 7))
        _ = try c.receive(bootstrap(1, serverVersion: 3))
        _ = try c.receive(.download(session: 1, downloadCursor: 3, uploadAcknowledged: 0, changesets: []))
        c.disconnect()
        try subscribe(c, "Person", "Dog")
        try c.realm.write { _ = try c.realm.create("Dog", value: ["id": "rex", "name": "Rex"]) }
        try subscribe(c, "Dog")
        try c.realm.write { _ = try c.realm.create("Dog", value: ["id": "fido", "name": "Fido"]) }
        try c.realm.write { _ = try c.realm.create("Dog", value: ["id": "max", "name": "Max"]) }
        try subscribe(c, "Person")
        XCTAssertEqual(try c.connect(session: 2).count, 2, "bind and identify: the uploads first")
        let sent = try c.pendingUploads()
        let shape = sent.map { message -> String in
            switch message {
            case .query(_, let set): return "query \(set.version)"
            case .upload(_, let changesets): return "upload \(changesets.map(\.clientVersion))"
            default: return "\(message)"
            }
        }
        XCTAssertEqual(shape, ["query 2", "upload [1]", "query 3", "upload [2, 3]", "query 4"])
        XCTAssertEqual(sent.first, .query(session: 2, query: query(2, "Person", "Dog")))
        // Acknowledged, the sets they were made under are no longer kept.
        _ = try c.receive(.download(session: 2, downloadCursor: 6, uploadAcknowledged: 3, changesets: []))
        XCTAssertTrue(try c.realm.querySQL("SELECT version FROM _sync_made_under").isEmpty)
    }

    func testIdentifySendsTheActiveSetAndEachNewerVersionIsQueriedOnce() throws {
        let c = try client("a")
        try subscribe(c, "Person")
        XCTAssertEqual(try c.connect(session: 1), [.bind(session: 1, user: "u", needsClientFileID: true)])
        XCTAssertEqual(try c.pendingUploads(), [], "no query before the file has its id")
        XCTAssertEqual(
            try c.receive(.ident(session: 1, clientFileID: 1, salt: 7)),
            [
                .identify(session: 1, clientFileID: 1, salt: 7, downloadCursor: 0, query: query(0)),
                .query(session: 1, query: query(1, "Person")),
            ])
        XCTAssertEqual(try c.pendingUploads(), [])
        _ = try c.receive(bootstrap(1, serverVersion: 3, objects: [person("b", name: "B")]))
        XCTAssertEqual(try c.realm.subscriptions.state, .complete)
        try subscribe(c, "Person", "Dog")
        XCTAssertEqual(try c.pendingUploads(), [.query(session: 1, query: query(2, "Person", "Dog"))])
        XCTAssertEqual(try c.pendingUploads(), [])
        // A new connection identifies with the active set (version 1) and asks for version 2 again.
        c.disconnect()
        XCTAssertEqual(
            try c.connect(session: 2),
            [
                .bind(session: 2, user: "u", needsClientFileID: false),
                .identify(session: 2, clientFileID: 1, salt: 7, downloadCursor: 3, query: query(1, "Person")),
                .query(session: 2, query: query(2, "Person", "Dog")),
            ])
    }

    // MARK: View changes

    func testObjectsEnterAndLeaveTheViewAtomicallyAndPendingWritesStay() throws {
        let c = try downloadedClient("a")
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 2, uploadAcknowledged: 0,
                changesets: [remote(2, [.create(ref("leaving"), fields: [SyncField("friend", .link(ref("a")))])])]))
        try subscribe(c, "Person")
        try c.realm.write {
            try c.person("a").setValue(.string("local"), forKey: "name")
            try c.person("a").setValue(.object(try c.person("leaving")), forKey: "friend")
        }
        let pending = try c.storedHistory()
        XCTAssertEqual(pending.count, 1)
        _ = try c.pendingUploads()
        final class Counter { var count = 0 }
        let counter = Counter()
        let token = try c.realm.observe { _, _ in counter.count += 1 }
        defer { token.invalidate() }
        _ = try c.receive(
            bootstrap(
                1, serverVersion: 5, objects: [person("a", name: "server"), person("entering", name: "E")],
                removals: [ref("leaving")]))
        XCTAssertEqual(counter.count, 1, "one transaction")
        XCTAssertEqual(try name(c, "entering"), .string("E"))
        XCTAssertFalse(try has(c, "leaving"))
        XCTAssertEqual(try name(c, "a"), .string("local"), "the pending local write wins")
        XCTAssertEqual(try c.storedHistory(), pending, "the pending changesets are not rebased")
        XCTAssertEqual(c.downloadCursor, 5)
        // The link to the object that left is unresolved: null here, the reference in the dump.
        XCTAssertEqual(try c.person("a").value(forKey: "friend"), .null)
        let dump = try c.canonicalState()
        XCTAssertEqual(dump.objects[ref("a")]?.first { $0.name == "friend" }?.value, .link(ref("leaving")))
    }

    func testDownloadReplacementsAndRemovals() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 2, uploadAcknowledged: 0,
                changesets: [
                    remote(
                        2,
                        [
                            .create(ref("p"), fields: [SyncField("name", .string("P"))]),
                            .setAdd(ref("p"), field: "scores", value: .int(1)),
                            .setAdd(ref("p"), field: "scores", value: .int(2)),
                        ])
                ]))
        let replacement = ObjectSnapshot(
            object: ref("p"), fields: [SyncField("name", .string("server")), SyncField("age", .int(4))],
            sets: [SetSnapshot(field: "scores", values: [.int(1)])])
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 3, uploadAcknowledged: 0, changesets: [],
                replacements: [replacement, person("new", name: "N")], removals: [ref("a")]))
        XCTAssertEqual(try name(c, "p"), .string("server"))
        XCTAssertEqual(try c.person("p").value(forKey: "age"), .int(4))
        XCTAssertEqual(try c.person("p").dynamicMutableSet("scores").values(), [.int(1)])
        XCTAssertEqual(try name(c, "new"), .string("N"))
        XCTAssertFalse(try has(c, "a"))
        XCTAssertEqual(try c.storedHistory(), [], "corrections record nothing")
        XCTAssertEqual(c.downloadCursor, 3)
    }

    /// View simulation seed 2113: an object came whole holding an element inserted by a device
    /// whose clock ran ahead; the replica's clear of the list, made after it saw the element, was
    /// earlier than the insertion, so the server kept the element the replica had removed.
    func testWritesAfterAnObjectSentWholeAreLaterThanEverythingInIt() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        let ahead = HLCTimestamp(milliseconds: wall.nowMilliseconds() + 500_000, counter: 3)
        let element = ElementID(clock: ahead, clientFileID: 9, index: 0)
        let whole = ObjectSnapshot(
            object: ref("a"), fields: [SyncField("name", .string("A"))],
            lists: [
                ListSnapshot(
                    field: "tags",
                    elements: [.init(id: element, position: .between(nil, nil), value: .string("b"))])
            ])
        _ = try c.receive(
            .download(session: 1, downloadCursor: 2, uploadAcknowledged: 0, changesets: [], replacements: [whole]))
        XCTAssertEqual(try c.person("a").dynamicList("tags").values(), [.string("b")])
        try c.realm.write { try c.person("a").dynamicList("tags").removeAll() }
        let clear = try XCTUnwrap(try c.storedHistory().last)
        XCTAssertEqual(clear.instructions, [.listClear(ref("a"), field: "tags")])
        XCTAssertGreaterThan(clear.clock, ahead, "the clear is later than the insertion it saw")
    }

    /// View simulation seed 45: the replica kept an object it was told to remove because a pending
    /// write held it; the object was created again on the server and came as instructions, which
    /// merged into a set value the server had dropped.
    func testARemovedObjectKeepsNothingOfTheServersAndComesBackWithItsPendingWrites() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        try c.realm.write { try c.person("a").dynamicMutableSet("scores").insert(.int(5)) }
        try c.realm.write { try c.person("a").setValue(.string("mine"), forKey: "name") }
        _ = try c.receive(
            .download(session: 1, downloadCursor: 2, uploadAcknowledged: 1, changesets: [], removals: [ref("a")]))
        XCTAssertFalse(try has(c, "a"), "gone, though a pending write names it")
        XCTAssertEqual(try c.storedHistory().count, 1, "the pending write stays pending")
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 3, uploadAcknowledged: 1,
                changesets: [
                    remote(
                        3, [.create(ref("a"), fields: [SyncField("name", .string("B")), SyncField("age", .int(3))])])
                ]))
        XCTAssertEqual(try name(c, "a"), .string("mine"), "the pending write comes back, later than the create")
        XCTAssertEqual(try c.person("a").value(forKey: "age"), .int(3))
        XCTAssertEqual(try c.person("a").dynamicMutableSet("scores").values(), [], "the dropped value is gone")
    }

    /// View simulation seed 168: an object removed, then sent whole, got its pending writes replayed
    /// before the snapshot's list elements existed, so a pending set of an element was lost.
    func testAnObjectSentWholeAfterItsRemovalGetsItsPendingElementWritesAfterItsElements() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        let element = ElementID(clock: HLCTimestamp(milliseconds: 2, counter: 0), clientFileID: 9, index: 0)
        let position = FractionalPosition.between(nil, nil)
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 2, uploadAcknowledged: 0,
                changesets: [
                    remote(
                        2,
                        [
                            .listInsert(
                                ref("a"), field: "tags", element: element, position: position, value: .string("d"))
                        ])
                ]))
        try c.realm.write { try c.person("a").dynamicList("tags").set(.string("b"), at: 0) }
        _ = try c.receive(
            .download(session: 1, downloadCursor: 3, uploadAcknowledged: 0, changesets: [], removals: [ref("a")]))
        XCTAssertFalse(try has(c, "a"))
        let whole = ObjectSnapshot(
            object: ref("a"), fields: [SyncField("name", .string("A"))],
            lists: [
                ListSnapshot(field: "tags", elements: [.init(id: element, position: position, value: .string("d"))])
            ])
        _ = try c.receive(
            .download(session: 1, downloadCursor: 4, uploadAcknowledged: 0, changesets: [], replacements: [whole]))
        XCTAssertEqual(try c.person("a").dynamicList("tags").values(), [.string("b")], "the pending set is later")
        XCTAssertEqual(try name(c, "a"), .string("A"))
    }

    /// View simulation seed 1360: the replica created the object again (a pending create) after its
    /// removal, so it held none of its elements when the object came whole; the pending set of an
    /// element was replayed before the snapshot inserted the element, and lost.
    func testAnObjectSentWholeOverALocalCreateGetsThePendingElementWritesLaterThanTheServers() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        let element = ElementID(clock: HLCTimestamp(milliseconds: 2, counter: 0), clientFileID: 9, index: 0)
        let other = ElementID(clock: HLCTimestamp(milliseconds: 2, counter: 0), clientFileID: 9, index: 1)
        let position = FractionalPosition.between(nil, nil)
        let later = FractionalPosition.between(position, nil)
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 2, uploadAcknowledged: 0,
                changesets: [
                    remote(
                        2,
                        [
                            .listInsert(
                                ref("a"), field: "tags", element: element, position: position, value: .string("d")),
                            .listInsert(ref("a"), field: "tags", element: other, position: later, value: .string("o")),
                        ])
                ]))
        try c.realm.write { try c.person("a").dynamicList("tags").set(.string("b"), at: 0) }
        _ = try c.receive(
            .download(session: 1, downloadCursor: 3, uploadAcknowledged: 0, changesets: [], removals: [ref("a")]))
        try c.realm.write { _ = try c.realm.create("Person", value: .dictionary(["id": .string("a")])) }
        let pending = try XCTUnwrap(try c.storedHistory().first)
        let whole = ObjectSnapshot(
            object: ref("a"), fields: [SyncField("name", .string("A"))],
            lists: [
                ListSnapshot(
                    field: "tags",
                    elements: [
                        .init(id: element, position: position, value: .string("d")),
                        .init(id: other, position: later, value: .string("server")),
                    ])
            ],
            times: SnapshotTimes(elements: [
                .init(
                    field: "tags", id: other, position: .zero,
                    value: RealmSync.WriteTime(
                        clock: HLCTimestamp(rawValue: pending.clock.rawValue + 1), clientFileID: 9))
            ]))
        _ = try c.receive(
            .download(session: 1, downloadCursor: 4, uploadAcknowledged: 0, changesets: [], replacements: [whole]))
        XCTAssertEqual(
            try c.person("a").dynamicList("tags").values(), [.string("b"), .string("server")],
            "the pending set is later than the server's first value, earlier than its second")
    }

    /// View simulation seed 1811: an object sent whole carried an erase by another file later than
    /// the replica's pending erase and create were based on; the create was voided as concurrent with
    /// it, but the server judges it against the replica's own erase (the last when it arrives) and
    /// keeps it.
    func testAnObjectSentWholeKeepsThePendingWritesAfterAPendingEraseOfIt() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        try c.realm.write { try c.realm.delete(try c.person("a")) }
        try c.realm.write {
            _ = try c.realm.create("Person", value: .dictionary(["id": .string("a"), "name": .string("again")]))
        }
        let pending = try c.storedHistory()
        let whole = ObjectSnapshot(
            object: ref("a"), fields: [SyncField("name", .string("server"))],
            times: SnapshotTimes(erasedAt: 2, erasedBy: 9))
        _ = try c.receive(
            .download(session: 1, downloadCursor: 3, uploadAcknowledged: 0, changesets: [], replacements: [whole]))
        XCTAssertEqual(try c.storedHistory(), pending, "nothing voided")
        XCTAssertEqual(try name(c, "a"), .string("again"))
    }

    func testARemovedObjectAPendingChangesetCreatesStaysAsThePendingChangesetsMakeIt() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        try c.realm.write {
            _ = try c.realm.create("Person", value: .dictionary(["id": .string("n"), "age": .int(1)]))
        }
        try c.realm.write { try c.person("n").dynamicMutableSet("scores").insert(.int(2)) }
        try c.realm.write { try c.person("a").setValue(.string("mine"), forKey: "name") }
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 2, uploadAcknowledged: 0, changesets: [],
                replacements: [], removals: [ref("n"), ref("a")]))
        XCTAssertEqual(try c.person("n").value(forKey: "age"), .int(1))
        XCTAssertEqual(try c.person("n").dynamicMutableSet("scores").values(), [.int(2)])
        XCTAssertFalse(try has(c, "a"), "no pending create: it comes back with a remote create or whole")
        XCTAssertEqual(try c.storedHistory().count, 3, "nothing voided, nothing recorded")
    }

    // MARK: Objects sent whole, with their times

    func testAnObjectSentWholeBeatsEarlierPendingWritesAndYieldsToLaterOnes() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        try c.realm.write {
            try c.person("a").setValue(.string("mine"), forKey: "name")
            try c.person("a").setValue(.int(1), forKey: "age")
            try c.person("a").dynamicMutableSet("scores").insert(.int(7))
            try c.person("a").dynamicMap("attrs").setValue(.string("v"), forKey: "k")
        }
        let pending = try XCTUnwrap(try c.storedHistory().last)
        let earlier = RealmSync.WriteTime(clock: HLCTimestamp(rawValue: pending.clock.rawValue - 1), clientFileID: 9)
        let later = RealmSync.WriteTime(clock: HLCTimestamp(rawValue: pending.clock.rawValue + 1), clientFileID: 9)
        let whole = ObjectSnapshot(
            object: ref("a"), fields: [SyncField("name", .string("server")), SyncField("age", .int(2))],
            sets: [SetSnapshot(field: "scores", values: [])], maps: [MapSnapshot(field: "attrs", entries: [])],
            times: SnapshotTimes(
                fields: [.init(path: ["name"], time: later), .init(path: ["age"], time: earlier)],
                entries: [
                    .init(field: "scores", key: .int(7), time: later),
                    .init(field: "attrs", key: .string("k"), time: earlier),
                ]))
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 2, uploadAcknowledged: 0, changesets: [], replacements: [whole]))
        XCTAssertEqual(try name(c, "a"), .string("server"), "the server's write is later")
        XCTAssertEqual(try c.person("a").value(forKey: "age"), .int(1), "the pending write is later")
        XCTAssertEqual(try c.person("a").dynamicMutableSet("scores").values(), [], "removed later on the server")
        XCTAssertEqual(Array(try c.person("a").dynamicMap("attrs").keys), ["k"], "put later here")
        XCTAssertFalse(
            try c.lastInstructions().contains(.set(ref("a"), path: ["name"], value: .string("mine"))),
            "the server drops the earlier write")
    }

    func testAPendingWriteInsideAnEmbeddedObjectSentWholeStaysUnlessTheServerDropsIt() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        let oslo = SyncValue.embedded([SyncField("city", .string("Oslo")), SyncField("zip", .string("0"))])
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 2, uploadAcknowledged: 0,
                changesets: [remote(2, [.set(ref("a"), path: ["address"], value: oslo)])]))
        try c.realm.write {
            guard case .object(let address) = try c.person("a").value(forKey: "address") else {
                return XCTFail("no address")
            }
            try address.setValue("Bergen", forKey: "city")
        }
        func whole(replacedAt: UInt64) -> ObjectSnapshot {
            let time = RealmSync.WriteTime(clock: HLCTimestamp(milliseconds: 12, counter: 0), clientFileID: 9)
            return ObjectSnapshot(
                object: ref("a"), fields: [SyncField("name", .string("A")), SyncField("address", oslo)],
                times: SnapshotTimes(fields: [
                    .init(path: ["address"], time: time, replacedAt: replacedAt, replacedBy: 9)
                ]))
        }
        func city() throws -> RealmValue {
            guard case .object(let address) = try c.person("a").value(forKey: "address") else { return .null }
            return try address.value(forKey: "city")
        }
        let bergen = Instruction.set(ref("a"), path: ["address", "city"], value: .string("Bergen"))
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 3, uploadAcknowledged: 0, changesets: [],
                replacements: [whole(replacedAt: 2)]))
        XCTAssertEqual(try city(), .string("Bergen"), "made after the replacement it saw: the server keeps it")
        XCTAssertEqual(try c.lastInstructions(), [bergen])
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 4, uploadAcknowledged: 0, changesets: [],
                replacements: [whole(replacedAt: 3)]))
        XCTAssertEqual(try city(), .string("Oslo"), "concurrent with a replacement: the server drops it")
        XCTAssertFalse(try c.storedHistory().flatMap(\.instructions).contains(bergen))
    }

    /// View simulation seed 1730: an object sent whole carried a replacement of an embedded object by
    /// another file, later than the replica's pending writes were based on; the pending write inside
    /// was voided as concurrent with it, but the replica's own pending replacement comes first on the
    /// server (it is later), which judges the inner write against that one and keeps it.
    func testAPendingWriteInsideAnEmbeddedObjectThePendingChangesetsReplacedStays() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        let oslo = SyncValue.embedded([SyncField("city", .string("Oslo")), SyncField("zip", .string("0"))])
        try c.realm.write {
            try c.person("a").setValue(.dictionary(["city": .string("Oslo"), "zip": .string("0")]), forKey: "address")
        }
        try c.realm.write {
            guard case .object(let address) = try c.person("a").value(forKey: "address") else {
                return XCTFail("no address")
            }
            try address.setValue("Bergen", forKey: "city")
        }
        let pending = try c.storedHistory()
        let earlier = RealmSync.WriteTime(clock: HLCTimestamp(milliseconds: 12, counter: 0), clientFileID: 9)
        let whole = ObjectSnapshot(
            object: ref("a"), fields: [SyncField("name", .string("A")), SyncField("address", oslo)],
            times: SnapshotTimes(fields: [.init(path: ["address"], time: earlier, replacedAt: 2, replacedBy: 9)]))
        _ = try c.receive(
            .download(session: 1, downloadCursor: 3, uploadAcknowledged: 0, changesets: [], replacements: [whole]))
        XCTAssertEqual(try c.storedHistory(), pending, "nothing voided")
        guard case .object(let address) = try c.person("a").value(forKey: "address") else {
            return XCTFail("no address")
        }
        XCTAssertEqual(try address.value(forKey: "city"), .string("Bergen"))
    }

    // MARK: Compensating writes

    func testCompensatingWritesReachTheHandlerAfterTheCorrection() throws {
        final class Seen {
            var client: SyncClient?
            var reports: [(SyncError, [CompensatingWrite], RealmValue?)] = []
        }
        let seen = Seen()
        let c = try downloadedClient("a") { error, writes in
            let name = try? seen.client?.person("a").value(forKey: "name")
            seen.reports.append((error, writes, name))
        }
        seen.client = c
        try subscribe(c, "Person")
        try c.realm.write { try c.person("a").setValue(.string("mine"), forKey: "name") }
        XCTAssertEqual(try c.pendingUploads().count, 2)
        let refused = CompensatingWrite(
            object: ref("a"), reason: "write not allowed by the rule of Person", serverVersion: 2)
        _ = try c.receive(
            .download(
                session: 1, downloadCursor: 2, uploadAcknowledged: 1, changesets: [],
                replacements: [person("a", name: "A")], compensating: [refused]))
        XCTAssertEqual(try name(c, "a"), .string("A"), "the server's state replaces the refused write")
        XCTAssertEqual(c.compensatingWrites, [refused])
        XCTAssertEqual(seen.reports.count, 1)
        let report = try XCTUnwrap(seen.reports.first)
        XCTAssertEqual(report.0.code, .compensatingWrite)
        XCTAssertTrue(report.0.message.contains("write not allowed by the rule of Person"), report.0.message)
        XCTAssertTrue(report.0.message.contains("\(ref("a"))"), report.0.message)
        XCTAssertEqual(report.1, [refused])
        XCTAssertEqual(report.2, .string("A"), "the handler sees the corrected data")
        XCTAssertEqual(try c.storedHistory(), [])
    }

    // MARK: Refusal

    func testAWriteToAClassWithoutSubscriptionIsRefusedAndRolledBack() throws {
        let c = try downloadedClient("a")
        try subscribe(c, "Person")
        let before = try c.storedHistory()
        XCTAssertThrowsError(
            try c.realm.write {
                try c.person("a").setValue(.string("changed"), forKey: "name")
                _ = try c.realm.create("Dog", value: ["id": "rex"])
            }
        ) { error in
            XCTAssertEqual(
                (error as? RealmError)?.message,
                "Cannot write to class Dog when no flexible sync subscription has been created.")
        }
        XCTAssertEqual(try c.realm.objects("Dog").count, 0)
        XCTAssertEqual(try name(c, "a"), .string("A"))
        XCTAssertEqual(try c.storedHistory(), before)
        // With a subscription the same write commits.
        try subscribe(c, "Person", "Dog")
        try c.realm.write { _ = try c.realm.create("Dog", value: ["id": "rex"]) }
        XCTAssertEqual(try c.realm.objects("Dog").count, 1)
    }
}
