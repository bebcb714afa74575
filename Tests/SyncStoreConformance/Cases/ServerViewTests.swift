import Foundation
import RealmDatabase
import Testing

@testable import RealmSync

/// The server's views (docs/SYNC.md "Views" and "Routing") between hand-driven sessions: what each
/// user's session receives when objects move into and out of its view, when its subscription set
/// changes, and which sessions an integration concerns at all.
@Suite final class ServerViewTests {
    let aliceConnection = ConnectionID(rawValue: 1)
    let bobConnection = ConnectionID(rawValue: 2)
    var place: TestStorePlace!
    var server: SyncServer!
    var files: [String: (id: UInt64, salt: UInt64)] = [:]
    var versions: [String: UInt64] = [:]

    /// Each test's first step: a place on the store `kind` and a server there.
    private func setUp(on kind: StoreKind) throws {
        place = try TestStorePlace("views", kind: kind)
        server = try makeServer(options: .init())
    }

    private func makeServer(options: SyncServerOptions) throws -> SyncServer {
        let store = try place.open(
            "sync\(UInt32.random(in: 0...UInt32.max))", historySalt: 42, schema: permissionTestSchema)
        var salt: UInt64 = 500
        return try SyncServer(
            store: store, schema: permissionTestSchema, wallClock: ManualWallClock(serverTestNow), options: options,
            permissions: permissionTestRules,
            salts: {
                salt += 1
                return salt
            })
    }

    deinit {
        server = nil
        place = nil
    }

    private func connection(_ user: String) -> ConnectionID { user == "alice" ? aliceConnection : bobConnection }

    /// Binds and identifies `user`'s session 1 with `query`; returns what identify answered.
    @discardableResult
    private func open(_ user: String, _ query: QuerySet) throws -> [SyncMessage] {
        let bound = server.receive(.bind(session: 1, user: user, needsClientFileID: true), on: connection(user))
        guard case .ident(1, let id, let salt)? = bound.first?.message else {
            throw SyncError(.otherError, "no ident: \(bound)")
        }
        files[user] = (id, salt)
        return messages(
            server.receive(
                .identify(session: 1, clientFileID: id, salt: salt, downloadCursor: 0, query: query),
                on: connection(user)), to: user)
    }

    private func messages(_ out: [Outgoing], to user: String) -> [SyncMessage] {
        out.filter { $0.connection == connection(user) }.map(\.message)
    }

    /// `user` uploads one changeset and the server integrates it; returns everything sent.
    private func write(_ user: String, _ instructions: [Instruction]) throws -> [Outgoing] {
        guard let file = files[user] else { throw SyncError(.otherError, "\(user) has no session") }
        let version = (versions[user] ?? 0) + 1
        versions[user] = version
        let latest = try server.state.latestServerVersion()
        let upload = changeset(file.id, version, basedOn: latest, clock: 100 + version, instructions)
        #expect(server.receive(.upload(session: 1, changesets: [upload]), on: connection(user)) == [])
        return server.integratePending()
    }

    private func dogs(_ query: String, version: Int64 = 1) -> QuerySet {
        QuerySet(version: version, subscriptions: [SubscriptionQuery(className: "Dog", query: query)])
    }

    private func downloads(_ messages: [SyncMessage]) -> [(
        changesets: Int, replaced: [ObjectRef], removed: [ObjectRef]
    )] {
        messages.compactMap { message in
            guard case .download(_, _, _, let changesets, let replaced, let removed, _) = message else { return nil }
            return (changesets.count, replaced.map(\.object), removed)
        }
    }

    @Test(arguments: StoreKind.available)
    func testAnObjectReachesOnlyTheSessionsWhoseViewHoldsItAndMovesInAndOutWhole(on kind: StoreKind) throws {
        try setUp(on: kind)
        try open("alice", dogs("TRUEPREDICATE"))
        try open("bob", dogs("TRUEPREDICATE"))
        #expect(server.scanSessionCount == 0, "Dog's read rule is an OR of equalities: indexed")

        let created = try write("alice", [createDog(1, owner: "alice")])
        #expect(messages(created, to: "bob") == [], "bob's view does not hold alice's private dog")
        #expect(downloads(messages(created, to: "alice")).map(\.changesets) == [0], "alice gets her ack")

        let shared = try write("alice", [.set(dog(1), path: ["shared"], value: .bool(true))])
        let bobSees = downloads(messages(shared, to: "bob"))
        #expect(bobSees.map(\.replaced) == [[dog(1)]], "the dog enters bob's view whole")
        #expect(bobSees.map(\.changesets) == [0], "not as instructions: bob never had it")

        let renamed = try write("alice", [setName(dog(1), "fido")])
        #expect(downloads(messages(renamed, to: "bob")).map(\.changesets) == [1], "bob holds it now")

        let unshared = try write("alice", [.set(dog(1), path: ["shared"], value: .bool(false))])
        let bobLoses = downloads(messages(unshared, to: "bob"))
        #expect(bobLoses.map(\.removed) == [[dog(1)]], "it leaves bob's view")
        #expect(bobLoses.map(\.changesets) == [0], "without the write that made it leave")
    }

    @Test(arguments: StoreKind.available)
    func testANewSubscriptionSetBringsTheObjectsEnteringAndRemovesThoseLeaving(on kind: StoreKind) throws {
        try setUp(on: kind)
        try open("alice", dogs("TRUEPREDICATE"))
        try open("bob", dogs("_id == 1"))
        _ = try write(
            "alice", [createDog(1, owner: "alice", shared: true), createDog(2, owner: "alice", shared: true)])
        _ = try write("alice", [createDog(3, owner: "alice")])

        let changed = messages(
            server.receive(.query(session: 1, query: dogs("_id >= 2", version: 2)), on: bobConnection), to: "bob")
        guard case .bootstrap(_, _, _, _, let entering, true, _, 2, let removals)? = changed.last else {
            Issue.record("expected the last bootstrap batch of version 2, got \(changed)")
            return
        }
        #expect(entering.map(\.object) == [dog(2)], "dog 3 matches the query but bob may not read it")
        #expect(removals == [dog(1)])
    }

    @Test(arguments: StoreKind.available)
    func testASubscriptionOutsideTheSubsetIsRefusedAndTheSessionGoesOn(on kind: StoreKind) throws {
        try setUp(on: kind)
        try open("bob", dogs("TRUEPREDICATE"))
        let refused = messages(
            server.receive(.query(session: 1, query: dogs("name == 'rex'", version: 2)), on: bobConnection), to: "bob")
        guard case .queryError(1, 2, let message)? = refused.first else {
            Issue.record("expected a query error, got \(refused)")
            return
        }
        #expect(message.contains("'name'"), "\(message)")
        #expect(!(try write("bob", [createDog(7, owner: "bob")]).isEmpty), "the session still uploads")
    }

    @Test(arguments: StoreKind.available)
    func testEverySessionOfAFileHearsOfAnObjectLeavingItsView(on kind: StoreKind) throws {
        try setUp(on: kind)
        try open("alice", dogs("TRUEPREDICATE"))
        try open("bob", dogs("TRUEPREDICATE"))
        // Alice's file on a second connection too (a replica that reconnected before its old
        // connection was seen to drop).
        let second = ConnectionID(rawValue: 3)
        guard let file = files["alice"] else {
            Issue.record("alice has no file")
            return
        }
        _ = server.receive(.bind(session: 1, user: "alice", needsClientFileID: false), on: second)
        _ = server.receive(
            .identify(
                session: 1, clientFileID: file.id, salt: file.salt, downloadCursor: 0, query: dogs("TRUEPREDICATE")),
            on: second)
        let shared = try write("bob", [createDog(1, owner: "bob", shared: true)])
        #expect((shared.filter { $0.connection != bobConnection }.count) == 2, "both of alice's sessions get it")
        // It leaves alice's view: no index key of hers matches it now; only what her file holds does.
        let unshared = try write("bob", [.set(dog(1), path: ["shared"], value: .bool(false))])
        for connection in [aliceConnection, second] {
            let removals = unshared.filter { $0.connection == connection }.compactMap { outgoing -> [ObjectRef]? in
                if case .download(_, _, _, _, _, let removed, _) = outgoing.message { return removed }
                return nil
            }
            #expect(removals == [[dog(1)]], "\(connection)")
        }
    }

    @Test(arguments: StoreKind.available)
    func testATombstonesCreateAndEraseTravelInOneMessage(on kind: StoreKind) throws {
        try setUp(on: kind)
        server = try makeServer(options: SyncServerOptions(downloadBatchSize: 1))
        try open("alice", dogs("TRUEPREDICATE"))
        try open("bob", dogs("TRUEPREDICATE"))
        guard let file = files["alice"] else {
            Issue.record("alice has no file")
            return
        }
        // Alice's private dog, created and erased before bob hears of either.
        let upload = [
            changeset(file.id, 1, basedOn: 0, clock: 101, [createDog(1, owner: "alice")]),
            changeset(file.id, 2, basedOn: 0, clock: 102, [.erase(dog(1))]),
        ]
        _ = server.receive(.upload(session: 1, changesets: upload), on: aliceConnection)
        let bobGets = messages(server.integratePending(), to: "bob")
        #expect(bobGets.count == 1, "one message, though a page holds one changeset: \(bobGets)")
        guard case .download(_, _, _, let changesets, _, _, _)? = bobGets.first else {
            Issue.record("expected a download, got \(bobGets)")
            return
        }
        #expect(
            changesets.map(\.origin.instructions) == [[.create(dog(1), fields: [])], [.erase(dog(1))]],
            "the create without alice's data, and the erase")
    }

    @Test(arguments: StoreKind.available)
    func testTheIndexTellsEqualitiesFromScans(on kind: StoreKind) throws {
        try setUp(on: kind)
        #expect(SessionIndex.equalities(isUser("owner"), user: "bob")?.map(\.1) == [.string("bob")])
        #expect(
            SessionIndex.equalities(.and([.constant(true), .createdByUser]), user: "bob")?.map(\.0) == [
                SessionIndex.creatorField
            ])
        #expect(SessionIndex.equalities(.or([isUser("owner"), equals("shared", .bool(true))]), user: "u")?.count == 2)
        #expect(SessionIndex.equalities(.or([isUser("owner"), .constant(true)]), user: "u") == nil)
        #expect(SessionIndex.equalities(.not(isUser("owner")), user: "u") == nil)
        #expect(
            SessionIndex.equalities(.compare(field: "owner", .equal, .user, caseInsensitive: true), user: "u") == nil,
            "[c] equality is not SyncValue equality")
        #expect(SessionIndex.equalities(.constant(false), user: "u")?.count == 0)
    }

    @Test(arguments: StoreKind.available)
    func testTheIndexFindsAViewByValueAcrossNumberTypes(on kind: StoreKind) throws {
        try setUp(on: kind)
        var session = ServerSession(connection: aliceConnection, id: 1, user: "alice")
        session.clientFileID = 1
        session.view = SessionView(
            queryVersion: 1,
            predicates: ["Dog": .compare(field: "weight", .equal, .value(.int(5)), caseInsensitive: false)])
        let key = SessionKey(connection: aliceConnection, session: 1)
        let index = SessionIndex([key: session])
        func subject(_ weight: SyncValue) -> ViewSubject {
            ViewSubject(creator: "bob") { $0 == "weight" ? weight : .null }
        }
        #expect(index.candidates(for: dog(1), subject(.double(5.0))) == [key], "5 == 5.0 in Realm")
        #expect(index.candidates(for: dog(1), subject(.float(5))) == [key])
        #expect(index.candidates(for: dog(1), subject(.double(5.5))) == [])
        #expect(index.candidates(for: dog(1), subject(.null)) == [])
        #expect(index.candidates(for: dog(1), nil) == [key], "an erased object concerns every subscriber")
    }

    @Test(arguments: StoreKind.available)
    func testAViewWithoutAnEqualityIsCountedAsAScan(on kind: StoreKind) throws {
        try setUp(on: kind)
        try open(
            "alice", QuerySet(version: 1, subscriptions: [SubscriptionQuery(className: "Toy", query: "TRUEPREDICATE")]))
        #expect(server.scanSessionCount == 1, "Toy is readable by everyone: nothing to index by")
    }
}
