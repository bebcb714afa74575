import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import RealmSync
import ServiceLifecycle
import XCTest

@testable import RealmSyncNet

/// A server that sends a malformed frame is not speaking the protocol: the client closes the
/// connection, and nothing that server sent after it reaches a session.
final class NetMalformedServerTests: XCTestCase {
    func testNothingAfterAMalformedFrameReachesASession() async throws {
        let fixture = try NetFixture()
        let malformed = Array("RSYNC/1 upload 1 999 0 999\n".utf8) + [1, 2, 3]
        let fatal = try WireCodec().encode(
            .error(session: 1, code: .otherError, message: "after the malformed frame", tryAgain: false))
        let fake = try await FakeServer.start(sending: [malformed, fatal])
        let a = try fixture.replica("a", user: "alice")
        let host = try fixture.client(url: fake.url)
        try await host.register(a, session: 1, user: "alice")
        let updates = await host.stateUpdates()
        await host.start()
        // Connected, then the connection ended (the client closed it): every frame it read is handled.
        let opened = await states(updates, until: .connected)
        let ended = await states(updates, until: .disconnected)
        XCTAssertEqual(opened.last, .connected)
        XCTAssertEqual(ended.last, .disconnected)
        let error = await host.lastConnectionError
        XCTAssertTrue(error?.contains("wire frame refused") == true, error ?? "no error")
        let errors = await host.sessionErrors
        XCTAssertEqual(errors, [:], "a frame after the malformed one reached the session")
        await host.stop()
        await fake.stop()
    }
}

/// A WebSocket server on 127.0.0.1 that sends fixed frames on each connection and reads until the
/// peer closes.
private struct FakeServer {
    let url: String
    let group: ServiceGroup
    let running: Task<Void, any Error>

    static func start(sending frames: [[UInt8]]) async throws -> FakeServer {
        var logger = Logger(label: "fake-sync-server")
        logger.logLevel = .critical
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("/sync") { _, _ in
            .upgrade([:])
        } onUpgrade: { inbound, outbound, _ in
            for frame in frames { try await outbound.write(.binary(ByteBuffer(bytes: frame))) }
            for try await _ in inbound {}
        }
        let (bound, boundContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: Router(context: BasicWebSocketRequestContext.self),
            server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                boundContinuation.yield(channel.localAddress?.port ?? 0)
                boundContinuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let running = Task { try await group.run() }
        var iterator = bound.makeAsyncIterator()
        let first = await iterator.next()
        let port = try XCTUnwrap(first, "the fake server did not listen")
        return FakeServer(url: "ws://127.0.0.1:\(port)/sync", group: group, running: running)
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await running.result
    }
}
