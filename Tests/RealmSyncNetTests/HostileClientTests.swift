import Foundation
import RealmDatabase
import RealmSync
import XCTest

@testable import RealmSyncNet

/// A client that speaks the protocol directly and lies: another user's client file with its own
/// valid token, client versions going backwards or skipping, a clock far in the future, writes
/// outside its rights, truncated and oversize frames. Each gets its error (or compensating write)
/// and the server's state is unchanged.
final class HostileClientTests: XCTestCase {
    func testAnotherUsersClientFileIsRefusedEvenWithAValidOwnToken() async throws {
        let fixture = try HostileFixture()
        let url = try await fixture.start()
        try await HostilePeer.converse(url: url) { peer in
            let alice = try await fixture.openNewFile(peer, session: 1, user: "alice")
            let stored = try await peer.upload(
                session: 1, [fixture.changeset(1, file: alice.id, [fixture.create("a1", owner: "alice")])])
            XCTAssertEqual(stored.compactMap(\.acknowledged).last, 1, "\(stored)")
            let before = try fixture.state()

            // Bob, signed correctly as bob, claims alice's file: with her salt, then with a guess.
            try await fixture.bind(peer, session: 2, user: "bob")
            try await peer.send(
                .identify(
                    session: 2, clientFileID: alice.id, salt: alice.salt, downloadCursor: 0, query: HostileFixture.items
                ))
            let stolen = try await peer.settle(session: 2, request: 2)
            XCTAssertEqual(stolen.last?.errorCode, .userMismatch, "\(stolen)")
            try await fixture.bind(peer, session: 3, user: "bob")
            try await peer.send(
                .identify(
                    session: 3, clientFileID: alice.id, salt: alice.salt &+ 1, downloadCursor: 0,
                    query: HostileFixture.items))
            let guessed = try await peer.settle(session: 3, request: 3)
            XCTAssertEqual(guessed.last?.errorCode, .badClientFileIdentifier, "\(guessed)")

            // On a file of his own, bob uploads a changeset naming alice's file.
            let bob = try await fixture.openNewFile(peer, session: 4, user: "bob")
            let forged = try await peer.upload(
                session: 4, [fixture.changeset(1, file: alice.id, [fixture.create("a1", owner: "bob", text: "bob's")])])
            XCTAssertEqual(forged.last?.errorCode, .badChangeset, "\(forged)")
            XCTAssertTrue(forged.last?.errorText.contains("uploaded by client file \(bob.id)") == true, "\(forged)")
            XCTAssertEqual(try fixture.state(), before)
        }
        await fixture.stop()
    }

    func testClientVersionsGoingBackwardsOrSkippingAndAFutureClockChangeNothing() async throws {
        let fixture = try HostileFixture()
        let url = try await fixture.start()
        try await HostilePeer.converse(url: url) { peer in
            let file = try await fixture.openNewFile(peer, session: 1, user: "alice")
            let stored = try await peer.upload(
                session: 1,
                [
                    fixture.changeset(1, file: file.id, [fixture.create("a1", owner: "alice")]),
                    fixture.changeset(2, file: file.id, [fixture.create("a2", owner: "alice")]),
                ])
            XCTAssertEqual(stored.compactMap(\.acknowledged).last, 2, "\(stored)")
            let before = try fixture.state()

            // Version 1 again, with other contents: already integrated, acknowledged again, ignored.
            let replayed = try await peer.upload(
                session: 1,
                [fixture.changeset(1, file: file.id, [fixture.create("a1", owner: "alice", text: "rewritten")])])
            XCTAssertNil(replayed.compactMap(\.errorCode).first, "\(replayed)")
            XCTAssertEqual(try fixture.state(), before)

            // Version 4 where 3 is expected.
            let skipped = try await peer.upload(
                session: 1, [fixture.changeset(4, file: file.id, [fixture.create("a4", owner: "alice")])])
            XCTAssertEqual(skipped.last?.errorCode, .badClientVersion, "\(skipped)")
            XCTAssertTrue(skipped.last?.errorText.contains("where 3 was expected") == true, "\(skipped)")

            // Version 3 a day ahead of the server's clock, on a new session of the same file.
            try await fixture.bind(peer, session: 2, user: "alice", needsClientFileID: false)
            try await peer.send(
                .identify(
                    session: 2, clientFileID: file.id, salt: file.salt, downloadCursor: 0, query: HostileFixture.items))
            let tomorrow = HLCTimestamp(milliseconds: HostileFixture.nowMilliseconds + 86_400_000, counter: 0)
            let future = try await peer.upload(
                session: 2,
                [fixture.changeset(3, file: file.id, clock: tomorrow, [fixture.create("a3", owner: "alice")])])
            guard case .error(2, .clockTooFarAhead, let text, true)? = future.last else {
                return XCTFail("no clock refusal (with tryAgain): \(future)")
            }
            XCTAssertTrue(text.contains("ahead of the server's"), text)
            XCTAssertEqual(try fixture.state(), before)
        }
        await fixture.stop()
    }

    /// Alice edits bob's item and creates one in bob's name: both are compensating writes (231 on the
    /// host: the download's `compensating`), acknowledged, and the store keeps bob's item as it was.
    func testWritesOutsideItsRightsAreCompensatedAndLeaveTheStoreAsItWas() async throws {
        let fixture = try HostileFixture()
        let url = try await fixture.start()
        try await HostilePeer.converse(url: url) { peer in
            let bob = try await fixture.openNewFile(peer, session: 1, user: "bob")
            _ = try await peer.upload(
                session: 1, [fixture.changeset(1, file: bob.id, [fixture.create("b1", owner: "bob")])])
            let alice = try await fixture.openNewFile(peer, session: 2, user: "alice")
            let before = try fixture.state()
            XCTAssertEqual(before.objectCount, 1)

            let b1 = ObjectRef("Item", .string("b1"))
            let answer = try await peer.upload(
                session: 2,
                [
                    fixture.changeset(
                        1, file: alice.id,
                        [.set(b1, path: ["text"], value: .string("hacked")), fixture.create("x", owner: "bob")])
                ])
            XCTAssertNil(answer.compactMap(\.errorCode).first, "\(answer)")
            let refused = answer.flatMap(\.compensatingWrites).map(\.object)
            XCTAssertEqual(Set(refused), [b1, ObjectRef("Item", .string("x"))], "\(answer)")
            XCTAssertEqual(answer.compactMap(\.acknowledged).last, 1, "the refused changeset is acknowledged")
            // Its (empty) history entry takes a server version; the objects are as they were.
            XCTAssertEqual(try fixture.state().canonical, before.canonical)
        }
        await fixture.stop()
    }

    /// A truncated upload and an oversize one each end their connection; the store is unchanged and
    /// the server serves the next connection.
    func testTruncatedAndOversizeFramesEndTheirConnectionAndChangeNothing() async throws {
        let fixture = try HostileFixture()
        let url = try await fixture.start(limits: WireLimits(maxFrameBytes: 64 * 1024))
        let file = try await fixture.withNewFile(url: url, user: "alice")
        let before = try fixture.state()
        let upload = SyncMessage.upload(
            session: 1, changesets: [fixture.changeset(1, file: file.id, [fixture.create("a1", owner: "alice")])])
        let encoded = try WireCodec().encode(upload)
        let huge = SyncMessage.upload(
            session: 1,
            changesets: [
                fixture.changeset(
                    1, file: file.id,
                    [fixture.create("big", owner: "alice", text: String(repeating: "x", count: 200 * 1024))])
            ])
        // Big enough past the limit whether or not the body is deflated: built with a larger limit.
        let oversize = try WireCodec(limits: WireLimits(maxFrameBytes: 1 << 22, deflateAbove: 1 << 22)).encode(huge)
        for bytes in [Array(encoded.dropLast(7)), oversize] {
            try await HostilePeer.converse(url: url) { peer in
                try await fixture.bind(peer, session: 1, user: "alice", needsClientFileID: false)
                try await peer.send(
                    .identify(
                        session: 1, clientFileID: file.id, salt: file.salt, downloadCursor: 0,
                        query: HostileFixture.items))
                try await peer.sendBytes(bytes)
                try await peer.send(.mark(session: 1, requestID: 9))
                let answers = (try? await peer.receive { if case .mark = $0 { true } else { false } }) ?? []
                XCTAssertFalse(answers.contains { if case .mark = $0 { true } else { false } }, "\(answers)")
            }
            XCTAssertEqual(try fixture.state(), before)
        }
        let again = try await fixture.withNewFile(url: url, user: "alice")
        XCTAssertNotEqual(again.id, file.id, "the server serves on")
        await fixture.stop()
    }
}

/// A server on 127.0.0.1 with per-user rights on `Item` (read and write `owner == $user`), its
/// store read from outside, and the pieces of a hand-made conversation.
final class HostileFixture: Sendable {
    let folder: URL
    let secret = Array("a secret shared by the hostile test's server and nobody else".utf8)
    private let server = ServerBox()

    static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Item",
                properties: [
                    Property(name: "_id", type: .string), Property(name: "text", type: .string),
                    Property(name: "owner", type: .string),
                ],
                primaryKey: "_id")
        ])
    }
    static let rules = SyncRules(
        queryable: ["Item": ["owner"]],
        permissions: ["Item": .init(read: .query("owner == $user"), write: .query("owner == $user"))])
    static let items = QuerySet(
        version: 1, subscriptions: [SubscriptionQuery(className: "Item", query: "TRUEPREDICATE")])
    static var nowMilliseconds: UInt64 { UInt64(max(0, Date().timeIntervalSince1970 * 1000)) }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func stop() async { await server.stop() }

    /// The server's open connections.
    func connectionCount() async -> Int { await server.connectionCount }
    func queuedBytes() async -> Int { await server.queuedBytes }

    private var storePath: String { folder.appendingPathComponent("sync.sqlite").path }

    /// Starts the server; its URL.
    func start(
        limits: WireLimits = .standard, configure: (inout SyncNetServerConfiguration) -> Void = { _ in }
    ) async throws -> String {
        var configuration = SyncNetServerConfiguration(host: "127.0.0.1", port: 0, limits: limits)
        configure(&configuration)
        let server = try SyncNetServer(
            configuration: configuration,
            storePath: storePath, schema: Self.schema,
            permissions: try SyncPermissions.compile(Self.rules, schema: Self.schema), secret: secret)
        _ = try await server.start()
        await self.server.set(server)
        let url = await server.url
        return try XCTUnwrap(url)
    }

    /// The store's canonical state and latest server version, read through another connection.
    func state() throws -> Snapshot {
        let state = ServerState(store: try SQLiteSyncStore(path: storePath, schema: Self.schema), schema: Self.schema)
        return Snapshot(
            canonical: try state.canonicalState(classes: ["Item"]), version: try state.latestServerVersion())
    }

    struct Snapshot: Equatable {
        let canonical: CanonicalState
        let version: UInt64
        var objectCount: Int { canonical.objects.count }
    }

    func bind(_ peer: HostilePeer, session: UInt32, user: String, needsClientFileID: Bool = false) async throws {
        let token = try await SyncToken(secret: secret).sign(user: user)
        try await peer.send(.bind(session: session, user: user, needsClientFileID: needsClientFileID), token: token)
    }

    /// Binds `user` asking for a new client file and identifies it with `Item` subscribed, as a
    /// replica would; the file's id and salt once the server answered the identify.
    func openNewFile(_ peer: HostilePeer, session: UInt32, user: String) async throws -> (id: UInt64, salt: UInt64) {
        try await bind(peer, session: session, user: user, needsClientFileID: true)
        // Answers to earlier sessions on the connection may come first.
        let answers = try await peer.receive { if case .ident(session, _, _) = $0 { true } else { false } }
        guard case .ident(session, let id, let salt)? = answers.last else {
            throw SyncError(.otherError, "no ident for \(user)'s new file")
        }
        try await peer.send(
            .identify(session: session, clientFileID: id, salt: salt, downloadCursor: 0, query: Self.items))
        let identified = try await peer.settle(session: session, request: 0)
        if let error = identified.first(where: { $0.errorCode != nil }) {
            throw SyncError(.otherError, "the identify of \(user)'s file was refused: \(error)")
        }
        return (id, salt)
    }

    /// A new file of `user` opened on a connection of its own.
    func withNewFile(url: String, user: String) async throws -> (id: UInt64, salt: UInt64) {
        let file = FileBox()
        try await HostilePeer.converse(url: url) { peer in
            file.set(try await self.openNewFile(peer, session: 1, user: user))
        }
        return try XCTUnwrap(file.value)
    }

    func changeset(
        _ version: UInt64, file: UInt64, clock: HLCTimestamp? = nil, _ instructions: [Instruction]
    ) -> Changeset {
        Changeset(
            clientVersion: version, basedOnServerVersion: 0,
            clock: clock
                ?? HLCTimestamp(milliseconds: Self.nowMilliseconds, counter: UInt16(truncatingIfNeeded: version)),
            clientFileID: file, instructions: instructions)
    }

    func create(_ id: String, owner: String, text: String = "made by hand") -> Instruction {
        .create(
            ObjectRef("Item", .string(id)),
            fields: [SyncField("text", .string(text)), SyncField("owner", .string(owner))])
    }
}

extension HostilePeer {
    /// Uploads `changesets` on `session` and reads until the server settled them.
    func upload(session: UInt32, _ changesets: [Changeset]) async throws -> [SyncMessage] {
        try await send(.upload(session: session, changesets: changesets))
        return try await settle(session: session, request: changesets.first?.clientVersion ?? 0)
    }
}

/// The running server, for the fixture to stop.
private actor ServerBox {
    private var server: SyncNetServer?
    func set(_ server: SyncNetServer) { self.server = server }
    func stop() async { await server?.stop() }
    var connectionCount: Int { get async { await server?.connectionCount ?? 0 } }
    var queuedBytes: Int { get async { await server?.queuedBytes ?? 0 } }
}

/// A value set inside a conversation, read after it.
private final class FileBox: @unchecked Sendable {
    private let lock = NSLock()
    private var file: (id: UInt64, salt: UInt64)?
    func set(_ value: (id: UInt64, salt: UInt64)) { lock.withLock { file = value } }
    var value: (id: UInt64, salt: UInt64)? { lock.withLock { file } }
}
