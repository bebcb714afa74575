import Foundation
import RealmDatabase
import Synchronization
import XCTest

@testable import RealmSyncNet

/// A write held open on one user's realm file (a script's `beginWrite` at the REPL) holds back only
/// that file's downloads: the host's other sessions sync meanwhile, and the held one catches up
/// once the write ends.
final class NetBusyFileTests: XCTestCase {
    func testAnOpenWriteOnOneUsersFileDoesNotStallAnotherUsersSync() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let (aliceX, bobX) = (try fixture.replica("alice-x", user: "alice"), try fixture.replica("bob-x", user: "bob"))
        let (aliceY, bobY) = (try fixture.replica("alice-y", user: "alice"), try fixture.replica("bob-y", user: "bob"))
        let (hostX, hostY) = (try fixture.client(url: url), try fixture.client(url: url))
        try await hostX.register(aliceX, session: 1, user: "alice")
        try await hostX.register(bobX, session: 2, user: "bob")
        try await hostY.register(aliceY, session: 1, user: "alice")
        try await hostY.register(bobY, session: 2, user: "bob")
        await hostX.start()
        await hostY.start()
        try aliceY.write("before", "first")
        await hostY.flush()
        let opened = await eventually {
            (try? aliceX.text("before")) == "first" && (try? bobX.text("before")) == "first"
        }
        XCTAssertTrue(opened, "host X's sessions did not sync")

        let holder = try OpenWrite(on: fixture.folder.appendingPathComponent("alice-x.realm"))
        try aliceY.write("a1", "alice's")
        try bobY.write("b1", "bob's")
        await hostY.flush()
        let bobSynced = await eventually(timeout: .seconds(20)) { (try? bobX.text("b1")) == "bob's" }
        // Ended before anything else: a client stuck behind the write would hold alice's endpoint.
        holder.end()
        XCTAssertTrue(bobSynced, "bob's download waited for alice's open write")
        let aliceSynced = await eventually(timeout: .seconds(20)) { (try? aliceX.text("a1")) == "alice's" }
        XCTAssertTrue(aliceSynced, "alice's download was not applied once her write ended")
        await hostX.stop()
        await hostY.stop()
        await server.stop()
    }
}

/// A write transaction held open on a realm file by another instance, on a thread of its own (as
/// a script's `beginWrite` holds it at the REPL), until `end()`.
final class OpenWrite: Sendable {
    private let began = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let ended = Mutex(false)
    private let failure = Mutex<String?>(nil)

    init(on file: URL) throws {
        Thread.detachNewThread { [self] in
            do {
                let realm = try Realm(configuration: Realm.Configuration(fileURL: file, schema: NetFixture.schema))
                try realm.beginWrite()
                began.signal()
                release.wait()
                realm.cancelWrite()
            } catch {
                failure.withLock { $0 = "\(error)" }
                began.signal()
            }
        }
        guard began.wait(timeout: .now() + 30) == .success else {
            throw OpenWriteError(reason: "the write did not begin within 30 s")
        }
        if let reason = failure.withLock({ $0 }) { throw OpenWriteError(reason: reason) }
    }

    /// Cancels the write (once).
    func end() {
        let first = ended.withLock { ended in
            defer { ended = true }
            return !ended
        }
        if first { release.signal() }
    }
}

struct OpenWriteError: Error {
    let reason: String
}
