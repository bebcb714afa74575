import RealmDatabase
import Testing

@testable import RealmSync

/// The server engine between fake clients: the messages of docs/SYNC.md's protocol, by hand.
@Suite struct ServerEngineTests {
    let alice = ConnectionID(rawValue: 1)
    let bob = ConnectionID(rawValue: 2)

    func server(_ fixture: ServerFixture, options: SyncServerOptions = .init()) throws -> SyncServer {
        var next: UInt64 = 1000
        return try SyncServer(
            store: fixture.store, schema: serverTestSchema, wallClock: fixture.wallClock, options: options,
            salts: {
                next += 1
                return next
            })
    }

    /// Binds session 1 on `connection` asking for a client file, identifies it with `cursor`; returns
    /// the file id and salt and what identify answered.
    func connect(_ server: SyncServer, _ connection: ConnectionID, cursor: UInt64 = 0) throws
        -> (fileID: UInt64, salt: UInt64, replies: [SyncMessage])
    {
        let bound = server.receive(.bind(session: 1, user: "u", needsClientFileID: true), on: connection)
        guard case .ident(1, let fileID, let salt)? = bound.first?.message else {
            Issue.record("expected ident, got \(bound)")
            return (0, 0, [])
        }
        let replies = server.receive(
            .identify(
                session: 1, clientFileID: fileID, salt: salt, downloadCursor: cursor, query: .allObjects(of: ["Item"])),
            on: connection)
        #expect(replies.allSatisfy { $0.connection == connection })
        return (fileID, salt, replies.map(\.message))
    }

    func messages(_ out: [Outgoing], to connection: ConnectionID) -> [SyncMessage] {
        out.filter { $0.connection == connection }.map(\.message)
    }

    @Test(arguments: StoreKind.available)
    func testBindIdentIdentifyUploadDownloadFlowBetweenTwoClients(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let server = try server(fixture)
        let a = try connect(server, alice)
        let b = try connect(server, bob)
        #expect([a.fileID, b.fileID] == [1, 2])
        #expect(a.replies == [.download(session: 1, downloadCursor: 0, uploadAcknowledged: 0, changesets: [])])

        let create = changeset(1, 1, clock: 100, [.create(item(1), fields: [SyncField("count", .int(1))])])
        #expect(server.receive(.upload(session: 1, changesets: [create]), on: alice) == [])
        #expect(server.receive(.mark(session: 1, requestID: 7), on: alice) == [], "the mark waits for the upload")
        #expect(server.hasPendingUploads)
        let first = server.integratePending()
        #expect(!server.hasPendingUploads)
        #expect(
            messages(first, to: alice) == [
                .download(session: 1, downloadCursor: 1, uploadAcknowledged: 1, changesets: []),
                .mark(session: 1, requestID: 7),
            ])
        #expect(
            messages(first, to: bob) == [
                .download(
                    session: 1, downloadCursor: 1, uploadAcknowledged: 0,
                    changesets: [IntegratedChangeset(serverVersion: 1, origin: create)])
            ])

        let set = changeset(2, 1, basedOn: 1, clock: 200, [.set(item(1), path: ["name"], value: .string("b"))])
        _ = server.receive(.upload(session: 1, changesets: [set]), on: bob)
        let second = server.integratePending()
        #expect(
            messages(second, to: alice) == [
                .download(
                    session: 1, downloadCursor: 2, uploadAcknowledged: 1,
                    // Alice's changeset 1 was integrated before Bob's: not pending relative to it.
                    changesets: [IntegratedChangeset(serverVersion: 2, origin: set, recipientClientVersion: 1)])
            ])
        #expect(
            messages(second, to: bob) == [
                .download(session: 1, downloadCursor: 2, uploadAcknowledged: 1, changesets: [])
            ])
        #expect(
            server.receive(.mark(session: 1, requestID: 8), on: bob) == [
                Outgoing(connection: bob, message: .mark(session: 1, requestID: 8))
            ])
    }

    @Test(arguments: StoreKind.available)
    func testWrongSaltIsRefused(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let server = try server(fixture)
        let a = try connect(server, alice)
        _ = server.receive(.bind(session: 2, user: "u", needsClientFileID: false), on: bob)
        let replies = server.receive(
            .identify(
                session: 2, clientFileID: a.fileID, salt: a.salt + 1, downloadCursor: 0,
                query: .allObjects(of: ["Item"])),
            on: bob)
        guard case .error(2, .badClientFileIdentifier, _, false)? = replies.first?.message else {
            Issue.record("expected badClientFileIdentifier, got \(replies)")
            return
        }
        // The refused session is gone: its uploads are refused too, and nothing is queued.
        let upload = server.receive(.upload(session: 2, changesets: []), on: bob)
        guard case .error(2, .badSession, _, _)? = upload.first?.message else {
            Issue.record("\(upload)")
            return
        }
        #expect(!server.hasPendingUploads)
    }

    @Test(arguments: StoreKind.available)
    func testIdentifyWithCursorZeroBootstrapsInBatchesAtOneServerVersion(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let server = try server(fixture, options: SyncServerOptions(bootstrapBatchSize: 2))
        let a = try connect(server, alice)
        let creates = (1...3).map { Instruction.create(item(Int64($0)), fields: []) }
        _ = server.receive(.upload(session: 1, changesets: [changeset(a.fileID, 1, clock: 100, creates)]), on: alice)
        _ = server.integratePending()

        let b = try connect(server, bob)
        #expect(b.replies.count == 3)
        guard case .bootstrap(1, 1, _, _, let first, false, let progress, _, _)? = b.replies.first,
            case .bootstrap(1, 1, _, _, let second, true, 1.0, _, _) = b.replies[1]
        else {
            Issue.record("expected two bootstrap batches at server version 1, got \(b.replies)")
            return
        }
        #expect(progress == 0.5)
        #expect((first + second).map(\.object) == [item(1), item(2), item(3)])
        #expect(b.replies[2] == .download(session: 1, downloadCursor: 1, uploadAcknowledged: 0, changesets: []))
    }

    @Test(arguments: StoreKind.available)
    func testDownloadsAreBoundedInSize(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let server = try server(fixture, options: SyncServerOptions(downloadBatchSize: 2))
        let a = try connect(server, alice)
        _ = try connect(server, bob)
        let uploads = (1...5).map {
            changeset(a.fileID, UInt64($0), clock: 100 + UInt64($0), [.create(item(Int64($0)), fields: [])])
        }
        _ = server.receive(.upload(session: 1, changesets: uploads), on: alice)
        let out = messages(server.integratePending(), to: bob)
        let sizes = out.compactMap { message -> Int? in
            if case .download(_, _, _, let changesets, _, _, _) = message { return changesets.count }
            return nil
        }
        #expect(sizes == [2, 2, 1])
        #expect(
            out.last
                == .download(
                    session: 1, downloadCursor: 5, uploadAcknowledged: 0,
                    changesets: [IntegratedChangeset(serverVersion: 5, origin: uploads[4])]))
    }

    @Test(arguments: StoreKind.available)
    func testDisconnectBeforeIntegrationLosesQueuedUploads(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let server = try server(fixture)
        let a = try connect(server, alice)
        _ = server.receive(
            .upload(session: 1, changesets: [changeset(a.fileID, 1, clock: 100, [.create(item(1), fields: [])])]),
            on: alice)
        server.disconnect(alice)
        #expect(!server.hasPendingUploads)
        #expect(server.integratePending() == [])
        #expect((try fixture.state.latestServerVersion()) == 0)
    }

    @Test(arguments: StoreKind.available)
    func testARefusedUploadIsAnErrorToItsSessionOnly(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let server = try server(fixture)
        let a = try connect(server, alice)
        let b = try connect(server, bob)
        _ = server.receive(.upload(session: 1, changesets: [changeset(a.fileID, 2, clock: 100, [])]), on: alice)
        _ = server.receive(
            .upload(session: 1, changesets: [changeset(b.fileID, 1, clock: 100, [.create(item(1), fields: [])])]),
            on: bob)
        let out = server.integratePending()
        guard case .error(1, .badClientVersion, _, false)? = messages(out, to: alice).first else {
            Issue.record("expected badClientVersion for alice, got \(out)")
            return
        }
        #expect(
            messages(out, to: bob) == [.download(session: 1, downloadCursor: 1, uploadAcknowledged: 1, changesets: [])])
    }

    @Test(arguments: StoreKind.available)
    func testClientInputNeverTraps(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let server = try server(fixture)
        let hostile: [(SyncMessage, SyncErrorCode)] = [
            (.download(session: 3, downloadCursor: 0, uploadAcknowledged: 0, changesets: []), .unknownMessage),
            (.upload(session: 3, changesets: []), .badSession),
            (.mark(session: 3, requestID: 1), .badSession),
            (
                .identify(session: 3, clientFileID: 1, salt: 1, downloadCursor: 0, query: .allObjects(of: [])),
                .badSession
            ),
        ]
        for (message, code) in hostile {
            let out = server.receive(message, on: alice)
            guard case .error(3, code, _, _)? = out.first?.message else {
                Issue.record("\(message): \(out)")
                return
            }
        }
        let a = try connect(server, alice)
        _ = server.receive(.bind(session: 4, user: "u", needsClientFileID: false), on: alice)
        let note = server.receive(
            .identify(
                session: 4, clientFileID: a.fileID, salt: a.salt, downloadCursor: 0, query: .allObjects(of: ["Note"])),
            on: alice
        )
        guard case .error(4, .badQuery, _, _)? = note.first?.message else {
            Issue.record("\(note)")
            return
        }
        _ = server.receive(.bind(session: 5, user: "u", needsClientFileID: false), on: alice)
        let ahead = server.receive(
            .identify(
                session: 5, clientFileID: a.fileID, salt: a.salt, downloadCursor: 9, query: .allObjects(of: ["Item"])),
            on: alice
        )
        guard case .error(5, .badServerVersion, _, _)? = ahead.first?.message else {
            Issue.record("\(ahead)")
            return
        }
    }

    @Test(arguments: StoreKind.available)
    func testRestartKeepsHistory(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let first = try server(fixture)
        let a = try connect(first, alice)
        let b = try connect(first, bob)
        let create = changeset(a.fileID, 1, clock: 100, [.create(item(1), fields: [])])
        _ = first.receive(.upload(session: 1, changesets: [create]), on: alice)
        _ = first.integratePending()

        try fixture.reopen()
        let restarted = try server(fixture)
        let stale = restarted.receive(.upload(session: 1, changesets: []), on: bob)
        guard case .error(1, .badSession, _, _)? = stale.first?.message else {
            Issue.record("\(stale)")
            return
        }
        _ = restarted.receive(.bind(session: 1, user: "u", needsClientFileID: false), on: bob)
        let replies = restarted.receive(
            .identify(
                session: 1, clientFileID: b.fileID, salt: b.salt, downloadCursor: 0, query: .allObjects(of: ["Item"])),
            on: bob)
        #expect(replies.count == 2, "a bootstrap and a download: \(replies)")
        guard case .bootstrap(1, 1, _, _, let objects, true, _, _, _)? = replies.first?.message else {
            Issue.record("\(replies)")
            return
        }
        #expect(objects.map(\.object) == [item(1)])
        #expect((try restarted.state.history(after: 0, limit: 10).map(\.kept)) == [create])
    }
}

extension ServerEngineTests {
    @Test(arguments: StoreKind.available)
    func testUploadsOfOneSessionBeforeAnIntegrationAreIntegratedAsOne(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        let server = try server(fixture)
        let a = try connect(server, alice)
        for version in UInt64(1)...3 {
            let write = changeset(a.fileID, version, clock: 100 + version, [.create(item(Int64(version)), fields: [])])
            _ = server.receive(.upload(session: 1, changesets: [write]), on: alice)
        }
        #expect(
            messages(server.integratePending(), to: alice) == [
                .download(session: 1, downloadCursor: 3, uploadAcknowledged: 3, changesets: [])
            ])
    }
}
