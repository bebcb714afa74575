import NIOCore
import NIOPosix
import Synchronization
import XCTest

@testable import RealmSyncNet

/// A server that accepts the TCP connection and never answers the WebSocket upgrade (stopped,
/// overloaded) does not hold the client: past `handshakeTimeout` the attempt fails and it backs off.
final class NetHandshakeTests: XCTestCase {
    func testAServerThatNeverAnswersTheUpgradeIsLeftAfterTheHandshakeTimeout() async throws {
        let accepted = AcceptCounter()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                accepted.add()
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try XCTUnwrap(listener.localAddress?.port)
        let client = SyncNetClient(
            url: "ws://127.0.0.1:\(port)/sync", tokens: { _ in "unused" },
            options: SyncNetClientOptions(
                backoff: ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(50)),
                handshakeTimeout: .milliseconds(300)))
        await client.start()

        let retried = await eventually(timeout: .seconds(10)) { accepted.count >= 2 }
        XCTAssertTrue(retried, "the client never gave up its first attempt")
        let error = await client.lastConnectionError
        XCTAssertTrue(error?.contains("did not answer the WebSocket upgrade") == true, error ?? "no error")
        let state = await client.state
        XCTAssertNotEqual(state, .connected)
        if retried { await client.stop() }
        try await listener.close()
    }
}

final class AcceptCounter: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
