import Foundation
import RealmDatabase
import Testing

@testable import RealmSync

/// Several servers on one store (docs/SYNC.md "Several servers on one store"), by hand: uploads
/// through the inbox, one integrator, every server routing to its own sessions.
@Suite struct SharedStoreServerTests {
    let alice = ConnectionID(rawValue: 1)
    let bob = ConnectionID(rawValue: 2)

    /// Two servers, each with its own connection to the fixture's store.
    func servers(_ fixture: ServerFixture) throws -> (SyncServer, SyncServer) {
        var next: UInt64 = 1000
        let salts: () -> UInt64 = {
            next += 1
            return next
        }
        let make = {
            try SyncServer(
                store: try fixture.place.open(historySalt: 42, schema: serverTestSchema),
                schema: serverTestSchema, wallClock: fixture.wallClock, options: SyncServerOptions(sharedStore: true),
                salts: salts)
        }
        return (try make(), try make())
    }

    /// Binds session 1 on `connection` of `server` (a new client file unless `file` is given) and
    /// identifies it at `cursor`.
    func connect(
        _ server: SyncServer, _ connection: ConnectionID, file: (id: UInt64, salt: UInt64)? = nil, cursor: UInt64 = 0
    ) throws -> (fileID: UInt64, salt: UInt64) {
        let bound = server.receive(.bind(session: 1, user: "u", needsClientFileID: file == nil), on: connection)
        var identity = file
        if identity == nil, case .ident(1, let fileID, let salt)? = bound.first?.message { identity = (fileID, salt) }
        guard let identity else {
            Issue.record("expected ident, got \(bound)")
            return (0, 0)
        }
        _ = server.receive(
            .identify(
                session: 1, clientFileID: identity.id, salt: identity.salt, downloadCursor: cursor,
                query: .allObjects(of: ["Item"])),
            on: connection)
        return (identity.id, identity.salt)
    }

    func messages(_ out: [Outgoing], to connection: ConnectionID) -> [SyncMessage] {
        out.filter { $0.connection == connection }.map(\.message)
    }

    @Test(arguments: StoreKind.available)
    func testAnUploadOnOneServerIsIntegratedByAnotherAndReachesASessionOnIt(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let (a, b) = try servers(fixture)
        let alicesFile = try connect(a, alice)
        _ = try connect(b, bob)
        let create = changeset(
            alicesFile.fileID, 1, clock: 100, [.create(item(1), fields: [SyncField("count", .int(1))])])
        #expect(a.receive(.upload(session: 1, changesets: [create]), on: alice) == [])
        #expect(a.integratePending() == [], "a server of a shared store only puts uploads in the inbox")
        #expect(a.awaitsIntegration)
        #expect(a.receive(.mark(session: 1, requestID: 7), on: alice) == [], "the mark waits for the upload")
        #expect((try fixture.state.latestServerVersion()) == 0)
        #expect(a.catchUp() == [], "nothing is integrated yet")

        #expect((try b.integrateInbox()) == 1, "the integrator takes the upload another server received")
        #expect((try b.integrateInbox()) == 0)
        #expect((try fixture.state.latestServerVersion()) == 1)
        #expect(
            messages(a.catchUp(), to: alice) == [
                .download(session: 1, downloadCursor: 1, uploadAcknowledged: 1, changesets: []),
                .mark(session: 1, requestID: 7),
            ])
        #expect(!a.awaitsIntegration)
        #expect(
            messages(b.catchUp(), to: bob) == [
                .download(
                    session: 1, downloadCursor: 1, uploadAcknowledged: 0,
                    changesets: [IntegratedChangeset(serverVersion: 1, origin: create)])
            ])
        #expect(a.catchUp() == [], "what was routed is not routed again")
    }

    @Test(arguments: StoreKind.available)
    func testARefusedUploadInTheInboxEndsOnlyItsSession(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let (a, b) = try servers(fixture)
        let alicesFile = try connect(a, alice)
        let bobsFile = try connect(a, bob)
        _ = a.receive(.upload(session: 1, changesets: [changeset(alicesFile.fileID, 2, clock: 100, [])]), on: alice)
        _ = a.receive(
            .upload(
                session: 1, changesets: [changeset(bobsFile.fileID, 1, clock: 100, [.create(item(1), fields: [])])]),
            on: bob)
        #expect(a.integratePending() == [])
        #expect((try b.integrateInbox()) == 2)
        let out = a.catchUp()
        guard case .error(1, .badClientVersion, _, false)? = messages(out, to: alice).first else {
            Issue.record("expected badClientVersion for alice, got \(out)")
            return
        }
        #expect(
            messages(out, to: bob) == [.download(session: 1, downloadCursor: 1, uploadAcknowledged: 1, changesets: [])])
    }

    @Test(arguments: StoreKind.available)
    func testAReplicaReconnectingToAnotherServerSendsAgainWhatWaitedInTheInbox(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let (a, b) = try servers(fixture)
        let file = try connect(a, alice)
        let create = changeset(file.fileID, 1, clock: 100, [.create(item(1), fields: [])])
        _ = a.receive(.upload(session: 1, changesets: [create]), on: alice)
        #expect(a.integratePending() == [])
        // Server A's connection dropped unseen; the replica is back, on B, and uploads again.
        let moved = ConnectionID(rawValue: 3)
        _ = try connect(b, moved, file: (file.fileID, file.salt))
        #expect((try b.integrateInbox()) == 0, "the earlier session's upload left the inbox")
        _ = b.receive(.upload(session: 1, changesets: [create]), on: moved)
        #expect(b.integratePending() == [])
        #expect((try a.integrateInbox()) == 1)
        #expect(
            messages(b.catchUp(), to: moved) == [
                .download(session: 1, downloadCursor: 1, uploadAcknowledged: 1, changesets: [])
            ])
        #expect((try fixture.state.latestServerVersion()) == 1, "integrated once")
    }

    @Test(arguments: StoreKind.available)
    func testTheInboxKeepsAnUploadSentTwiceOnceAndRefusesAnUnreadableOne(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let (a, _) = try servers(fixture)
        let ids = try fixture.store.write { transaction in
            [
                try transaction.addUpload(clientFileID: 1, lastClientVersion: 3, body: [1, 2, 3]),
                try transaction.addUpload(clientFileID: 1, lastClientVersion: 3, body: [1, 2, 3]),
                try transaction.addUpload(clientFileID: 2, lastClientVersion: 3, body: [4]),
            ]
        }
        #expect(ids[0] == ids[1])
        #expect(ids[0] != ids[2])
        #expect((try a.integrateInbox()) == 2, "unreadable entries are settled, not left to block the inbox")
        #expect((try a.integrateInbox()) == 0)
        let outcomes = try fixture.store.read { try $0.uploadOutcomes(ids) }
        #expect(Set(outcomes.keys) == Set(ids))
        guard case .refused(let error)? = outcomes[ids[0]].flatMap({ try? InboxCoding.outcome(from: $0) }) else {
            Issue.record("expected a refusal, got \(outcomes)")
            return
        }
        #expect(error.message.contains("inbox upload \(ids[0])"), "\(error.message)")
        #expect((try fixture.state.latestServerVersion()) == 0)
    }

    @Test(arguments: StoreKind.available)
    func testAnUploadSettledTwiceKeepsItsFirstOutcome(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let id = try fixture.store.write { try $0.addUpload(clientFileID: 1, lastClientVersion: 1, body: [1]) }
        try fixture.store.write { transaction in
            try transaction.settleUpload(id, outcome: [7], now: 10)
            try transaction.settleUpload(id, outcome: [8], now: 11)
        }
        #expect((try fixture.store.read { try $0.uploadOutcomes([id]) }) == [id: [7]])
    }

    @Test(arguments: StoreKind.available)
    func testAnUploadAndItsOutcomeSurviveTheInboxEncoding(on kind: StoreKind) throws {
        let query = QuerySet(version: 3, subscriptions: [SubscriptionQuery(className: "Item", query: "count > 2")])
        let upload = Upload(
            clientFileID: 4, changesets: [changeset(4, 1, clock: 100, [.create(item(1), fields: [])])],
            writer: UploadWriter(user: "ann", view: [:], query: query))
        var compiled: (String, QuerySet)?
        let decoded = try InboxCoding.upload(
            from: InboxUpload(id: 9, clientFileID: 4, body: InboxCoding.body(of: upload)),
            compile: { user, query in
                compiled = (user, query)
                return [:]
            })
        #expect(decoded == upload)
        #expect(compiled?.0 == "ann")
        #expect(compiled?.1 == query)
        let compensating = [CompensatingWrite(object: item(1), reason: "read-only", serverVersion: 5)]
        for outcome in [
            UploadOutcome.acknowledged(clientVersion: 7, compensating: compensating),
            .refused(SyncError(.badClientVersion, "client version 2 where 1 was expected")),
        ] {
            #expect((try InboxCoding.outcome(from: InboxCoding.outcome(outcome))) == outcome)
        }
    }
}
