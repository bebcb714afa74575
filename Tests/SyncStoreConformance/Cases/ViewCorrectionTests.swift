import Foundation
import RealmDatabase
import Testing

@testable import RealmSync

/// End-to-end regressions found by the view simulation (issue 16): a server with permissions,
/// replicas in `.subscriptions` mode, the in-memory transport. Each test is a bug that was.
@Suite final class ViewCorrectionTests {
    private let folder: URL
    private var place: TestStorePlace!
    private var server: SyncServer!
    private var transport: InMemoryTransport!
    private var clients: [SyncClient] = []
    private let serverClock = ManualWallClock(serverTestNow)

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-view-fix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Each test's first step: a place on the store `kind` and a server there.
    private func setUp(on kind: StoreKind) throws {
        place = try TestStorePlace("view-fix", kind: kind)
        try start()
    }

    /// A server on a new store in `place`, with the permission tests' rules, and its transport.
    private func start(options: SyncServerOptions = .init()) throws {
        let store = try place.open(historySalt: 42, schema: permissionTestSchema)
        var salt: UInt64 = 7
        server = try SyncServer(
            store: store, schema: permissionTestSchema, wallClock: serverClock, options: options,
            permissions: permissionTestRules,
            salts: {
                salt += 1
                return salt
            })
        var random: UInt64 = 1
        transport = InMemoryTransport(
            server: server,
            random: {
                random = random &* 6_364_136_223_846_793_005 &+ 1
                return random >> 33
            })
    }

    deinit {
        clients = []
        transport = nil
        server = nil
        place = nil
        try? FileManager.default.removeItem(at: folder)
    }

    /// A replica of `user` whose clock reads `now`, subscribed to `queries` (class, query).
    private func replica(_ user: String, now: UInt64, _ queries: [(String, String)]) throws -> Int {
        var configuration = Realm.Configuration(
            fileURL: folder.appendingPathComponent("\(user)-\(clients.count).realm"), schema: permissionTestSchema)
        configuration.schemaVersion = 1
        let client = try SyncClient(
            configuration: configuration, user: user, wallClock: ManualWallClock(now), viewSource: .subscriptions)
        try subscribe(client, queries)
        clients.append(client)
        return transport.addClient(client)
    }

    /// Everyone online until nothing is in flight and every change is acknowledged (a replica
    /// uploads only after its session's first download, which a round may end with).
    private func settle() throws {
        try transport.runUntilQuiescent()
        for _ in 0..<5 where clients.contains(where: \.hasUnacknowledgedChanges) {
            try transport.runUntilQuiescent()
        }
    }

    private func subscribe(_ client: SyncClient, _ queries: [(String, String)]) throws {
        try client.realm.subscriptions.update { set in
            try set.removeAll()
            for (className, query) in queries { try set.append(QuerySubscription(className: className, query: query)) }
        }
    }

    private func dogName(_ index: Int, _ key: Int64) throws -> RealmValue? {
        try clients[index].realm.object(ofType: "Dog", forPrimaryKey: .int(key))?.value(forKey: "name")
    }

    @Test(arguments: StoreKind.available)
    func testARefusedWriteIsRevertedEvenWhenTheDownloadCarryingItsCorrectionIsLost(on kind: StoreKind) throws {
        try setUp(on: kind)
        let alice = try replica("alice", now: serverTestNow, [("Dog", "TRUEPREDICATE"), ("Toy", "TRUEPREDICATE")])
        // An allowed write first: the replica's cursor moves, so a reconnection downloads, not bootstraps.
        try clients[alice].realm.write {
            _ = try clients[alice].realm.create("Toy", value: .dictionary(["_id": .int(5)]))
        }
        try settle()
        #expect(clients[alice].downloadCursor > 0)
        // Bob's dog: alice's write rule (owner == $user) refuses it.
        try clients[alice].realm.write {
            _ = try clients[alice].realm.create(
                "Dog", value: .dictionary(["_id": .int(1), "owner": .string("bob"), "name": .string("rex")]))
        }
        transport.flushUploads(alice)
        #expect(try transport.deliverToServer(from: alice))
        transport.integrate()
        #expect(transport.queued(alice).toClient == 1, "the correction is on its way")
        transport.drop(alice)
        try settle()
        #expect((try dogName(alice, 1)) == nil, "the refused create stayed on the replica")
        #expect(!clients[alice].hasUnacknowledgedChanges)
    }

    @Test(arguments: StoreKind.available)
    func testACreateMergedIntoAnObjectTheReplicaGotWholeEndsAsTheServerHasIt(on kind: StoreKind) throws {
        try setUp(on: kind)
        // Alice's replica reads a slower clock: her create of toy 1 loses, field by field, to bob's.
        let alice = try replica("alice", now: serverTestNow - 60_000, [("Toy", "_id == 99")])
        let bob = try replica("bob", now: serverTestNow, [("Toy", "TRUEPREDICATE")])
        try settle()
        try clients[bob].realm.write {
            _ = try clients[bob].realm.create("Toy", value: .dictionary(["_id": .int(1), "name": .string("bob's")]))
        }
        try settle()
        // Outside alice's view: she creates the same toy, then widens her view, which brings bob's
        // whole (without write times: her pending create wins there until the server says otherwise).
        try clients[alice].realm.write {
            _ = try clients[alice].realm.create(
                "Toy", value: .dictionary(["_id": .int(1), "name": .string("alice's")]))
        }
        try subscribe(clients[alice], [("Toy", "TRUEPREDICATE")])
        try settle()
        let serverState = try server.state.canonicalState(classes: ["Toy"])
        #expect((serverState.objects[toy(1)]?.first { $0.name == "name" }?.value) == .string("bob's"))
        #expect((try clients[alice].canonicalState().restricted(to: ["Toy"])) == serverState)
    }

    /// View simulation seed 3433: an object's erase travelled on a later page than its first
    /// instruction of the round, where the server had recorded it as no longer held; the replica got
    /// the first page only, the object was created again outside its view, and after the
    /// reconnection nothing sent it the erase or a removal.
    @Test(arguments: StoreKind.available)
    func testAnEraseOnALaterPageThanTheObjectsFirstInstructionIsSentAgainIfThatPageIsLost(on kind: StoreKind) throws {
        try setUp(on: kind)
        try start(options: SyncServerOptions(downloadBatchSize: 1))
        let alice = try replica("alice", now: serverTestNow, [("Dog", "TRUEPREDICATE")])
        let bob = try replica("bob", now: serverTestNow, [("Dog", "TRUEPREDICATE")])
        func bobWrites(_ body: (Realm) throws -> Void) throws {
            try clients[bob].realm.write { try body(clients[bob].realm) }
        }
        try bobWrites {
            _ = try $0.create(
                "Dog", value: .dictionary(["_id": .int(1), "owner": .string("bob"), "shared": .bool(true)]))
        }
        try settle()
        #expect(try dogName(alice, 1) != nil, "alice reads bob's shared dog")
        try bobWrites { try $0.objects("Dog").first?.setValue(.string("Rex"), forKey: "name") }
        try bobWrites { realm in if let dog = try realm.objects("Dog").first { try realm.delete(dog) } }
        transport.flushUploads(bob)
        while try transport.deliverToServer(from: bob) {}
        transport.integrate()
        #expect(transport.queued(alice).toClient == 2, "the set and the erase, a page each")
        // Created again, not shared: outside alice's rights.
        try bobWrites {
            _ = try $0.create(
                "Dog", value: .dictionary(["_id": .int(1), "owner": .string("bob"), "shared": .bool(false)]))
        }
        transport.flushUploads(bob)
        while try transport.deliverToServer(from: bob) {}
        transport.integrate()
        #expect(try transport.deliverToClient(alice))
        transport.drop(alice)
        try settle()
        #expect((try clients[alice].realm.object(ofType: "Dog", forPrimaryKey: .int(1))) == nil)
    }

    @Test(arguments: StoreKind.available)
    func testAnOwnWriteKeptUnderTheOldViewIsRemovedFromAReplicaWhoseViewNoLongerHasIt(on kind: StoreKind) throws {
        try setUp(on: kind)
        let alice = try replica("alice", now: serverTestNow, [("Toy", "TRUEPREDICATE")])
        try clients[alice].realm.write {
            _ = try clients[alice].realm.create("Toy", value: .dictionary(["_id": .int(1), "name": .string("a")]))
        }
        try settle()
        // The write leaves before the new set: the server judges it under the view it was made in.
        try clients[alice].realm.write {
            try clients[alice].realm.objects("Toy").first?.setValue(.string("b"), forKey: "name")
        }
        transport.flushUploads(alice)
        try subscribe(clients[alice], [("Toy", "_id == 2")])
        try settle()
        #expect((try server.state.canonicalState(classes: ["Toy"]).objects[toy(1)]?.count) == 2, "the write stood")
        #expect((try clients[alice].realm.object(ofType: "Toy", forPrimaryKey: .int(1))) == nil, "outside the view")
        #expect(!clients[alice].hasUnacknowledgedChanges)
    }

    @Test(arguments: StoreKind.available)
    func testARoundWithWholeObjectsOrRemovalsGoesAsOneMessage(on kind: StoreKind) throws {
        try setUp(on: kind)
        try start(options: SyncServerOptions(downloadBatchSize: 1))
        let alice = try replica("alice", now: serverTestNow, [("Toy", "TRUEPREDICATE"), ("Dog", "TRUEPREDICATE")])
        let bob = try replica("bob", now: serverTestNow, [("Toy", "TRUEPREDICATE")])
        try settle()
        for key in Int64(1)...3 {
            try clients[bob].realm.write {
                _ = try clients[bob].realm.create("Toy", value: .dictionary(["_id": .int(key)]))
            }
        }
        try clients[alice].realm.write {
            _ = try clients[alice].realm.create("Dog", value: .dictionary(["_id": .int(1), "owner": .string("bob")]))
        }
        transport.flushUploads(bob)
        transport.flushUploads(alice)
        while try transport.deliverToServer(from: bob) {}
        while try transport.deliverToServer(from: alice) {}
        transport.integrate()
        // Bob's three changesets (a page each) and alice's refused dog's removal: one message.
        #expect(transport.queued(alice).toClient == 1)
        try settle()
        #expect((try dogName(alice, 1)) == nil)
        #expect((try clients[alice].realm.objects("Toy").count) == 3)
    }
}
