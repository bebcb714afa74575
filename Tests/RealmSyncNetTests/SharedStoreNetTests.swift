import Foundation
import RealmSync
import Synchronization
import XCTest

@testable import RealmSyncNet

/// Several network servers on one store (docs/SYNC.md "Several servers on one store"), in one
/// process on one SQLite file: the hubs' inbox, integrator and polling path, whatever the store.
/// PostgreSQL's own election and notifications are tested with its store.
final class SharedStoreNetTests: XCTestCase {
    func testAWriteOnAHostOfOneServerReachesAHostOfAnother() async throws {
        let fixture = try NetFixture()
        let election = TestElection()
        let (first, second) = (try await sharedServer(fixture, election), try await sharedServer(fixture, election))
        let (a, b) = (try fixture.replica("a", user: "alice"), try fixture.replica("b", user: "alice"))
        let (hostA, hostB) = (
            try fixture.client(url: try await fixture.url(of: first)),
            try fixture.client(url: try await fixture.url(of: second))
        )
        try await hostA.register(a, session: 1, user: "alice")
        try await hostB.register(b, session: 1, user: "alice")
        await hostA.start()
        await hostB.start()

        try a.write("x", "through the inbox")
        await hostA.flush()
        let arrived = await eventually { (try? b.text("x")) == "through the inbox" }
        XCTAssertTrue(arrived, "b has \(b.count) items")
        try b.write("y", "and back")
        await hostB.flush()
        let returned = await eventually { (try? a.text("y")) == "and back" }
        XCTAssertTrue(returned, "a has \(a.count) items")
        XCTAssertEqual(try fixture.latestServerVersion(), 2, "each write integrated once")

        await hostA.stop()
        await hostB.stop()
        await first.stop()
        await second.stop()
    }

    func testWhenTheIntegratorStopsAnotherServerTakesOver() async throws {
        let fixture = try NetFixture()
        let election = TestElection()
        let integrator = try await sharedServer(fixture, election)
        XCTAssertTrue(
            election.hold(ObjectIdentifier(integrator)), "the first server is elected before the others start")
        let (spare, front) = (try await sharedServer(fixture, election), try await sharedServer(fixture, election))
        let (a, b) = (try fixture.replica("a", user: "alice"), try fixture.replica("b", user: "alice"))
        let url = try await fixture.url(of: front)
        let (hostA, hostB) = (try fixture.client(url: url), try fixture.client(url: url))
        try await hostA.register(a, session: 1, user: "alice")
        try await hostB.register(b, session: 1, user: "alice")
        await hostA.start()
        await hostB.start()
        try a.write("x", "integrated by the first")
        await hostA.flush()
        let arrived = await eventually { (try? b.text("x")) == "integrated by the first" }
        XCTAssertTrue(arrived, "b has \(b.count) items")

        await integrator.stop()
        try a.write("y", "after the takeover")
        await hostA.flush()
        let afterTakeover = await eventually { (try? b.text("y")) == "after the takeover" }
        XCTAssertTrue(afterTakeover, "b has \(b.count) items")
        let holder = election.holder
        XCTAssertTrue(
            holder == ObjectIdentifier(spare) || holder == ObjectIdentifier(front), "another server holds the role")
        XCTAssertEqual(try fixture.latestServerVersion(), 2, "each write integrated once")
        await hostA.stop()
        await hostB.stop()
        await spare.stop()
        await front.stop()
    }

    /// A server on the fixture's store file, sharing it through `election`, polling every 50 ms.
    private func sharedServer(_ fixture: NetFixture, _ election: TestElection) async throws -> SyncNetServer {
        let engine = try SyncServer(
            store: try SQLiteSyncStore(path: fixture.storePath, schema: NetFixture.schema), schema: NetFixture.schema,
            wallClock: SystemWallClock(), options: SyncServerOptions(sharedStore: true),
            salts: { UInt64.random(in: 1...UInt64.max) })
        let coordination = TestCoordination(election: election)
        let server = try SyncNetServer(
            configuration: SyncNetServerConfiguration(host: "127.0.0.1", port: 0, sharedStorePoll: .milliseconds(50)),
            engine: engine, secret: fixture.secret, coordination: coordination)
        coordination.member = ObjectIdentifier(server)
        try await server.start()
        return server
    }
}

/// The integrator role among the servers of one test: the first to ask holds it until it stops.
final class TestElection: Sendable {
    private let state = Mutex<ObjectIdentifier?>(nil)

    var holder: ObjectIdentifier? { state.withLock { $0 } }

    func hold(_ member: ObjectIdentifier) -> Bool {
        state.withLock { holder in
            if holder == nil { holder = member }
            return holder == member
        }
    }

    func release(_ member: ObjectIdentifier) {
        state.withLock { holder in if holder == member { holder = nil } }
    }
}

/// A coordination without notifications: the servers find changes by polling.
final class TestCoordination: SharedStoreCoordination, @unchecked Sendable {
    let election: TestElection
    /// Set once, before the server starts.
    var member: ObjectIdentifier?
    private let stream = AsyncStream.makeStream(of: SharedStoreWakeUp.self)
    private let stopped = Mutex(false)

    init(election: TestElection) { self.election = election }

    func start() async {}

    /// After `stop`, never again (a lock's connection closed).
    func holdIntegratorRole() async -> Bool {
        guard let member, !stopped.withLock({ $0 }) else { return false }
        return election.hold(member)
    }

    func wakeUps() -> AsyncStream<SharedStoreWakeUp> { stream.stream }

    func stop() async {
        stopped.withLock { $0 = true }
        if let member { election.release(member) }
        stream.continuation.finish()
    }
}
