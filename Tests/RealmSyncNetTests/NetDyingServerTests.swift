import XCTest

@testable import RealmSyncNet

/// A server killed just after it answered the WebSocket upgrade (alone, or with part of a frame)
/// leaves its client a socket that reads end-of-file: the client must see the connection end,
/// connect again, and stop when asked, however late in the upgrade the end came.
final class NetDyingServerTests: XCTestCase {
    /// The case `SyncServerKillTests` found: the server read the upgrade request and died. The
    /// client used to wait for the answer for good (half-closed socket in CLOSE-WAIT) or, since
    /// the handshake timeout, for that timeout.
    func testAServerThatDiesBeforeAnsweringTheUpgradeIsConnectedToAgain() async throws {
        try await assertComesBack(after: .beforeUpgrade)
    }

    func testAServerThatDiesRightAfterTheUpgradeIsConnectedToAgain() async throws {
        try await assertComesBack(after: .afterUpgrade)
    }

    func testAServerThatDiesInTheMiddleOfAFrameIsConnectedToAgain() async throws {
        try await assertComesBack(after: .midFrame)
    }

    /// Pings and the handshake timeout are far off, so only noticing the end itself brings the
    /// client back within the test's bound.
    private func assertComesBack(after death: DyingPeer.Death) async throws {
        let fixture = try NetFixture()
        let peer = try await DyingPeer.start(death)
        let client = SyncNetClient(
            url: "ws://127.0.0.1:\(peer.port)/sync", tokens: { _ in "unchecked by this peer" },
            options: SyncNetClientOptions(
                backoff: ReconnectBackoff(initial: .milliseconds(20), maximum: .milliseconds(20)),
                pingInterval: .seconds(120), handshakeTimeout: .seconds(120)))
        try await client.register(try fixture.replica("a", user: "alice"), session: 1, user: "alice")
        await client.start()

        let cameBack = await eventually(timeout: .seconds(20)) { peer.upgradeCount >= 10 }
        XCTAssertTrue(cameBack, "the client stopped connecting after \(peer.upgradeCount) attempts")
        let stopped = await stops(client, within: .seconds(10))
        XCTAssertTrue(stopped, "the client did not stop: its connection is stuck")
        try await peer.stop()
    }
}

/// Whether `client.stop()` returned within `timeout` (a stuck client's stop is left behind).
func stops(_ client: SyncNetClient, within timeout: Duration) async -> Bool {
    let stopped = UpgradeCounter()
    Task {
        await client.stop()
        stopped.add()
    }
    return await eventually(timeout: timeout) { stopped.count > 0 }
}
