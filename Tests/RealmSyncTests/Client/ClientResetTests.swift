import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// Client reset (docs/SYNC.md "Client reset"): a replica with unsynced offline writes meets a server
/// whose store was replaced (an empty store: its client file is unknown, `badClientFileIdentifier`)
/// or restored from an older copy (its download cursor is past the latest version,
/// `badServerVersion`), in each `ClientResetMode`.
final class ClientResetTests: XCTestCase {
    private var folder: ClientTestFolder!
    private let wall = ManualWallClock.clientStart()
    private var salt: UInt64 = 100

    override func setUpWithError() throws { folder = try ClientTestFolder() }
    override func tearDown() { folder = nil }

    // MARK: Fixture

    private func storePath(_ name: String) -> String { folder.url.appendingPathComponent(name + ".sqlite").path }

    private func server(at path: String) throws -> SyncServer {
        let store = try SQLiteSyncStore(path: path, historySalt: 42, schema: ClientTestSchema.schema)
        return try SyncServer(store: store, schema: ClientTestSchema.schema, wallClock: wall) { [self] in
            salt += 1
            return salt
        }
    }

    private func client(_ name: String, mode: ClientResetMode, errors: ErrorLog) throws -> SyncClient {
        try SyncClient(
            configuration: folder.configuration(name), user: "u", wallClock: wall, clientResetMode: mode,
            errorHandler: { error, _ in errors.append(error) })
    }

    private func person(_ realm: Realm, _ id: String) throws -> DynamicObject? {
        try realm.object(ofType: "Person", forPrimaryKey: .string(id))
    }

    private func write(_ client: SyncClient, _ body: (Realm) throws -> Void) throws {
        try client.realm.write { try body(client.realm) }
    }

    /// The replica's offline writes: `b` created with a tag, `a` renamed.
    private func offlineWrites(_ c: SyncClient) throws {
        try write(c) { realm in
            let b = try realm.create("Person", value: ["id": .string("b"), "name": .string("offline")])
            try b.dynamicList("tags").append(.string("t1"))
        }
        try write(c) { realm in try self.person(realm, "a")?.setValue(.int(5), forKey: "age") }
    }

    /// A replica synced with a first server (it created `a`), offline writes made, then the server
    /// replaced by one on a new empty store where another replica created `s`.
    private func replacedStore(mode: ClientResetMode, errors: ErrorLog) throws -> (
        InMemoryTransport, SyncClient, SyncServer
    ) {
        let first = try server(at: storePath("first"))
        let transport = InMemoryTransport(server: first) { 7 }
        let c = try client("c", mode: mode, errors: errors)
        let ci = transport.addClient(c)
        transport.connect(ci)
        try write(c) { realm in _ = try realm.create("Person", value: ["id": .string("a"), "name": .string("a1")]) }
        try transport.settle([ci])
        XCTAssertFalse(c.hasUnacknowledgedChanges)
        transport.drop(ci)
        try offlineWrites(c)

        let second = try server(at: storePath("second"))
        transport.restartServer(second)
        let other = try client("other", mode: .manual, errors: ErrorLog())
        let oi = transport.addClient(other)
        transport.connect(oi)
        try write(other) { realm in
            _ = try realm.create("Person", value: ["id": .string("s"), "name": .string("server")])
        }
        try transport.settle([oi])
        XCTAssertEqual(try second.state.canonicalState(classes: ["Person"]).objects.count, 1)
        transport.connect(ci)
        try transport.settle([ci, oi])
        return (transport, c, second)
    }

    /// A replica synced through server version 3 with a store copied at version 1, offline writes
    /// made, then the server restarted on the copy.
    private func restoredStore(mode: ClientResetMode, errors: ErrorLog) throws -> (
        InMemoryTransport, SyncClient, SyncServer
    ) {
        let path = storePath("live")
        let transport = InMemoryTransport(server: try server(at: path)) { 7 }
        let c = try client("c", mode: mode, errors: errors)
        let ci = transport.addClient(c)
        transport.connect(ci)
        try write(c) { realm in _ = try realm.create("Person", value: ["id": .string("a"), "name": .string("v1")]) }
        try transport.settle([ci])
        let backup = storePath("backup")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: backup + suffix)
        }
        for name in ["v2", "v3"] {
            try write(c) { realm in try self.person(realm, "a")?.setValue(.string(name), forKey: "name") }
            try transport.settle([ci])
        }
        XCTAssertEqual(c.downloadCursor, 3)
        transport.drop(ci)
        try offlineWrites(c)
        let restored = try server(at: backup)
        XCTAssertEqual(try restored.state.latestServerVersion(), 1)
        transport.restartServer(restored)
        transport.connect(ci)
        try transport.settle([ci])
        return (transport, c, restored)
    }

    private func assertConverged(
        _ c: SyncClient, _ server: SyncServer, file: StaticString = #filePath, line: UInt = #line
    )
        throws
    {
        XCTAssertFalse(c.hasUnacknowledgedChanges, "everything uploaded", file: file, line: line)
        XCTAssertEqual(
            try c.canonicalState(), try server.state.canonicalState(classes: ["Person"]), file: file, line: line)
    }

    private func assertReported(
        _ errors: ErrorLog, _ mode: ClientResetMode, cause: SyncErrorCode, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        let resets = errors.all.filter { $0.code == .clientReset }
        XCTAssertEqual(resets.count, 1, "\(errors.all)", file: file, line: line)
        XCTAssertTrue(resets.first?.message.contains(mode.rawValue) == true, "\(resets)", file: file, line: line)
        XCTAssertTrue(
            resets.first?.message.contains("sync error \(cause.rawValue)") == true, "\(resets)", file: file, line: line)
    }

    // MARK: A replaced store (the file is unknown)

    func testRecoverOnAReplacedStoreKeepsTheUnsyncedWritesOnBothSides() throws {
        let errors = ErrorLog()
        let (transport, c, server) = try replacedStore(mode: .recoverUnsyncedChanges, errors: errors)
        XCTAssertTrue(transport.clientErrors.isEmpty, "\(transport.clientErrors)")
        assertReported(errors, .recoverUnsyncedChanges, cause: .badClientFileIdentifier)
        try assertConverged(c, server)
        XCTAssertEqual(try person(c.realm, "b")?.value(forKey: "name"), .string("offline"))
        XCTAssertEqual(try person(c.realm, "b")?.dynamicList("tags").count, 1)
        XCTAssertNotNil(try person(c.realm, "s"), "the server's state arrived")
        XCTAssertNil(try person(c.realm, "a"), "a write to an object the new server lacks is dropped there and here")
        XCTAssertNotEqual(try ClientStore(realm: c.realm).number(.clientFileID), 0)
    }

    func testDiscardOnAReplacedStoreEndsEqualToTheServer() throws {
        let errors = ErrorLog()
        let (_, c, server) = try replacedStore(mode: .discardUnsyncedChanges, errors: errors)
        assertReported(errors, .discardUnsyncedChanges, cause: .badClientFileIdentifier)
        try assertConverged(c, server)
        XCTAssertEqual(try c.canonicalState().objects.keys.sorted { "\($0)" < "\($1)" }, [ref("s")])
    }

    func testManualOnAReplacedStoreLeavesTheFileAndStopsTheSession() throws {
        let errors = ErrorLog()
        let (transport, c, server) = try replacedStore(mode: .manual, errors: errors)
        assertReported(errors, .manual, cause: .badClientFileIdentifier)
        XCTAssertTrue(
            transport.clientErrors.isEmpty, "uploads in flight at the reset fail quietly: \(transport.clientErrors)")
        XCTAssertEqual(c.clientResetRequired?.code, .clientReset)
        XCTAssertEqual(try c.storedHistory().count, 2, "the unsynced commits stay")
        XCTAssertEqual(try person(c.realm, "b")?.value(forKey: "name"), .string("offline"))
        XCTAssertEqual(try person(c.realm, "a")?.value(forKey: "age"), .int(5))
        XCTAssertNil(try person(c.realm, "s"), "nothing downloaded")
        XCTAssertEqual(try server.state.canonicalState(classes: ["Person"]).objects.keys.count, 1, "nothing uploaded")
        // No retry: a new connection sends nothing for it.
        transport.drop(0)
        transport.connect(0)
        XCTAssertEqual(transport.queued(0).toServer, 0)
    }

    // MARK: A restored store (the cursor is past the latest version)

    func testRecoverOnARestoredStoreAppliesTheUnsyncedWritesOverTheBackup() throws {
        let errors = ErrorLog()
        let (_, c, server) = try restoredStore(mode: .recoverUnsyncedChanges, errors: errors)
        assertReported(errors, .recoverUnsyncedChanges, cause: .badServerVersion)
        try assertConverged(c, server)
        let a = try XCTUnwrap(try person(c.realm, "a"))
        XCTAssertEqual(try a.value(forKey: "name"), .string("v1"), "what the backup lost is lost")
        XCTAssertEqual(try a.value(forKey: "age"), .int(5), "the unsynced write is kept")
        XCTAssertEqual(try person(c.realm, "b")?.dynamicList("tags").count, 1)
        XCTAssertEqual(try server.state.canonicalState(classes: ["Person"]).objects.count, 2)
    }

    func testDiscardOnARestoredStoreEndsEqualToTheBackup() throws {
        let errors = ErrorLog()
        let (_, c, server) = try restoredStore(mode: .discardUnsyncedChanges, errors: errors)
        assertReported(errors, .discardUnsyncedChanges, cause: .badServerVersion)
        try assertConverged(c, server)
        XCTAssertNil(try person(c.realm, "b"))
        XCTAssertEqual(try person(c.realm, "a")?.value(forKey: "name"), .string("v1"))
        XCTAssertEqual(try person(c.realm, "a")?.value(forKey: "age"), .int(0))
    }

    func testManualOnARestoredStoreLeavesTheFileUntouched() throws {
        let errors = ErrorLog()
        let (_, c, _) = try restoredStore(mode: .manual, errors: errors)
        assertReported(errors, .manual, cause: .badServerVersion)
        XCTAssertEqual(c.downloadCursor, 3)
        XCTAssertEqual(try c.storedHistory().map(\.clientVersion), [4, 5])
        XCTAssertEqual(try person(c.realm, "a")?.value(forKey: "name"), .string("v3"))
        XCTAssertEqual(try person(c.realm, "a")?.value(forKey: "age"), .int(5))
    }

    // MARK: Failure inside the reset

    func testAFailureInsideTheResetLeavesTheFileAsItWas() throws {
        let errors = ErrorLog()
        let c = try client("c", mode: .recoverUnsyncedChanges, errors: errors)
        try c.identify(as: 9)
        try offlineWrites(c)
        try write(c) { realm in _ = try realm.create("Person", value: ["id": .string("a")]) }
        // A damaged row of the list mirror: the reset fails after renumbering the history.
        try c.realm.write {
            try c.realm.executeSQL(
                "INSERT INTO _sync_list (tbl, row, owner, element, position, value) VALUES ('x', 1, 1, x'00', x'01', x'00')"
            )
        }
        let before = try c.canonicalState()
        let history = try c.storedHistory()
        _ = try c.connect(session: 2)
        XCTAssertThrowsError(
            try c.receive(.error(session: 2, code: .badClientFileIdentifier, message: "unknown", tryAgain: false)))
        XCTAssertEqual(try c.canonicalState(), before)
        XCTAssertEqual(try c.storedHistory(), history)
        XCTAssertEqual(try ClientStore(realm: c.realm).number(.clientFileID), 9)
        XCTAssertTrue(errors.all.isEmpty, "no reset reported")
    }

    func testOtherErrorsStillEndTheSessionWithoutAReset() throws {
        let c = try client("c", mode: .discardUnsyncedChanges, errors: ErrorLog())
        try c.identify(as: 9)
        try offlineWrites(c)
        XCTAssertThrowsError(
            try c.receive(.error(session: 1, code: .badSession, message: "no", tryAgain: false)),
            "a badSession error ends the session unless a reset is rebinding")
        XCTAssertThrowsError(
            try c.receive(.error(session: 1, code: .badChangeset, message: "no", tryAgain: false)))
        XCTAssertEqual(try c.storedHistory().count, 1)
        XCTAssertNil(c.clientResetRequired)
    }
}

/// The errors a client's handler received.
final class ErrorLog: @unchecked Sendable {
    private(set) var all: [SyncError] = []
    func append(_ error: SyncError) { all.append(error) }
}
