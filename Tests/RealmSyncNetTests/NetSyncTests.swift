import Foundation
import RealmSync
import XCTest

@testable import RealmSyncNet

/// Two hosts and a server on 127.0.0.1: writes travel both ways over one WebSocket per host.
final class NetSyncTests: XCTestCase {
    func testAWriteOnOneReplicaReachesTheOtherOfTheSameUser() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let (a, b, hostA, hostB) = try await fixture.twoHosts(url: url)

        try a.write("x", "hello from a")
        await hostA.flush()
        let arrived = await eventually { (try? b.text("x")) == "hello from a" }
        XCTAssertTrue(arrived, "b has \(b.count) items")

        try b.write("y", "hello from b")
        await hostB.flush()
        let returned = await eventually { (try? a.text("y")) == "hello from b" }
        XCTAssertTrue(returned, "a has \(a.count) items")
        let connected = await hostA.state
        XCTAssertEqual(connected, .connected)
        let errors = await hostA.sessionErrors
        XCTAssertEqual(errors, [:])

        await hostA.stop()
        await hostB.stop()
        await server.stop()
    }

    func testOneConnectionCarriesManySessions() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let host = try fixture.client(url: url)
        let alice = try fixture.replica("alice", user: "alice")
        let bob = try fixture.replica("bob", user: "bob")
        let aliceElsewhere = try fixture.replica("alice-2", user: "alice")
        try await host.register(alice, session: 1, user: "alice")
        try await host.register(bob, session: 2, user: "bob")
        await host.start()
        let other = try fixture.client(url: url)
        try await other.register(aliceElsewhere, session: 5, user: "alice")
        await other.start()

        // No rules: every user reads everything, so alice's other replica gets bob's item too.
        try alice.write("a1", "alice's")
        try bob.write("b1", "bob's")
        await host.flush()
        let both = await eventually { aliceElsewhere.count == 2 }
        XCTAssertTrue(both, "alice-2 has \(aliceElsewhere.count) items")
        let connections = await server.connectionCount
        XCTAssertEqual(connections, 2)

        await host.stop()
        await other.stop()
        await server.stop()
    }

    func testConnectionStatesAreObservable() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let host = try fixture.client(url: url)
        let updates = await host.stateUpdates()
        await host.start()
        let seen = await states(updates, until: .connected)
        XCTAssertEqual(seen, [.disconnected, .connecting, .connected])
        await host.stop()
        let stopped = await host.state
        XCTAssertEqual(stopped, .disconnected)
        await server.stop()
    }

    func testASessionRegisteredWhileConnectedOpensAtOnce() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let hostA = try fixture.client(url: url)
        let hostB = try fixture.client(url: url)
        await hostA.start()
        await hostB.start()
        let up = await eventually { await hostA.state == .connected }
        XCTAssertTrue(up)
        let a = try fixture.replica("a", user: "alice")
        let b = try fixture.replica("b", user: "alice")
        try await hostA.register(a, session: 3, user: "alice")
        try await hostB.register(b, session: 9, user: "alice")
        try a.write("late", "registered while connected")
        await hostA.flush()
        let arrived = await eventually { (try? b.text("late")) == "registered while connected" }
        XCTAssertTrue(arrived)

        await hostA.stop()
        await hostB.stop()
        await server.stop()
    }

    /// Unregistering unbinds on the server: the same session number binds again, and syncs.
    func testAnUnregisteredSessionCanBindAgain() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let (a, b, hostA, hostB) = try await fixture.twoHosts(url: url)
        try a.write("one", "first")
        await hostA.flush()
        let first = await eventually { (try? b.text("one")) == "first" }
        XCTAssertTrue(first)

        await hostA.unregister(session: 1)
        try a.write("two", "while unregistered")
        try await hostA.register(a, session: 1, user: "alice")
        let second = await eventually { (try? b.text("two")) == "while unregistered" }
        XCTAssertTrue(second)
        let errors = await hostA.sessionErrors
        XCTAssertEqual(errors, [:])

        await hostA.stop()
        await hostB.stop()
        await server.stop()
    }

    func testAServerCannotListenOnABusyPort() async throws {
        let fixture = try NetFixture()
        let first = try await fixture.startServer()
        let url = try await fixture.url(of: first)
        let port = try XCTUnwrap(URLComponents(string: url)?.port)
        do {
            let second = try await fixture.startServer(port: port)
            await second.stop()
            XCTFail("a second server listened on \(port)")
        } catch let error as SyncError {
            XCTAssertTrue(error.message.contains("cannot listen on 127.0.0.1:\(port)"), error.message)
        }
        await first.stop()
    }
}

/// A session registered while the client signs the tokens of a new connection is opened on that
/// connection (its `register` saw no connection yet, and its user had no token signed).
final class NetLateRegistrationTests: XCTestCase {
    func testASessionRegisteredWhileTokensAreSignedIsBoundOnThatConnection() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let gate = TokenGate()
        let signer = try SyncToken(secret: fixture.secret)
        let host = try fixture.client(
            url: url,
            tokens: { user in
                await gate.pass()
                return try await signer.sign(user: user)
            })
        let a = try fixture.replica("a", user: "alice")
        try await host.register(a, session: 1, user: "alice")
        await host.start()
        let signing = await eventually { await gate.calls > 0 }
        XCTAssertTrue(signing)
        let b = try fixture.replica("b", user: "bob")
        try b.write("late", "bob's")
        try await host.register(b, session: 2, user: "bob")
        await gate.open()

        let stored = await eventually { (try? fixture.serverState().objects.count) == 1 }
        XCTAssertTrue(stored, "bob's session was never bound")
        let errors = await host.sessionErrors
        XCTAssertEqual(errors, [:])
        await host.stop()
        await server.stop()
    }
}

/// Holds every token request until opened.
actor TokenGate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private(set) var calls = 0

    func pass() async {
        calls += 1
        guard !isOpen else { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiting { waiter.resume() }
        waiting = []
    }
}
