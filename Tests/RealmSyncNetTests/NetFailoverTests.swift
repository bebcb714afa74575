import Foundation
import XCTest

@testable import RealmSyncNet

/// A client given several servers connects to one and fails over to the next, in turn, when one
/// refuses (stopped) or its connection drops. The servers take turns on one store (as servers on
/// one PostgreSQL store would serve it together).
final class NetFailoverTests: XCTestCase {
    func testWritesReachTheSecondServerWhenTheFirstIsStopped() async throws {
        let fixture = try NetFixture()
        let stopped = try await fixture.startServer()
        let stoppedURL = try await fixture.url(of: stopped)
        await stopped.stop()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let signer = try SyncToken(secret: fixture.secret)
        let client = SyncNetClient(
            url: stoppedURL, fallbackURLs: [url], tokens: { try await signer.sign(user: $0) },
            options: SyncNetClientOptions(
                backoff: ReconnectBackoff(initial: .milliseconds(20), maximum: .milliseconds(20))))
        let replica = try fixture.replica("a", user: "alice")
        try await client.register(replica, session: 1, user: "alice")
        await client.start()
        try replica.write("x", "through the second server")
        await client.flush()

        let stored = await eventually { (try? fixture.serverState().objects.count) == 1 }
        XCTAssertTrue(stored, "the write did not reach the second server")
        let current = await client.currentURL
        XCTAssertEqual(current, url)

        // The second one goes away and the first comes back on its port: the client returns to it.
        await server.stop()
        let port = try XCTUnwrap(URLComponents(string: stoppedURL)?.port)
        let restarted = try await fixture.startServer(port: port)
        try replica.write("y", "back on the first")
        await client.flush()
        let back = await eventually { (try? fixture.serverState().objects.count) == 2 }
        XCTAssertTrue(back, "the client did not fail over to the first server again")
        let returned = await client.currentURL
        XCTAssertEqual(returned, stoppedURL)
        await client.stop()
        await restarted.stop()
    }
}
