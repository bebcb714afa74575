import Foundation
import Logging
import NIOCore
import Synchronization
import WSClient
import XCTest

@testable import RealmSyncNet

/// A peer that streams requests and never reads the answers cannot grow the server's memory: the
/// server stops reading it while its queue is over half the limit, and the queue stays under it.
final class NetFloodTests: XCTestCase {
    func testAPeerThatNeverReadsIsHeldUnderTheQueueLimit() async throws {
        let fixture = try NetFixture()
        let limits = WireLimits(maxFrameBytes: 4096)
        let server = try await fixture.startServer(limits: limits)
        let url = try await fixture.url(of: server)
        let sent = FloodCount()
        let bind = try WireCodec().encode(.bind(session: 1, user: "alice", needsClientFileID: true))
        let flood = Task { try await floodWithoutReading(url: url, frame: bind, count: 400_000, sent: sent) }

        var largest = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline && largest <= limits.maxQueuedBytes / 2 {
            largest = max(largest, await server.queuedBytes)
            try await Task.sleep(for: .milliseconds(5))
        }
        // The peer's socket is full and the server stopped reading it: it stays held.
        for _ in 0..<50 {
            largest = max(largest, await server.queuedBytes)
            try await Task.sleep(for: .milliseconds(5))
        }
        XCTAssertGreaterThan(largest, limits.maxQueuedBytes / 2, "the flood never backed up (\(sent.value) sent)")
        XCTAssertLessThanOrEqual(largest, limits.maxQueuedBytes)
        let count = await server.connectionCount
        XCTAssertEqual(count, 1, "the reader waits; the connection is not closed for its own requests")
        flood.cancel()
        _ = await flood.result
        await server.stop()
    }
}

final class FloodCount: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Writes `frame` `count` times and never reads; returns when done, cancelled, or the socket fails.
private func floodWithoutReading(url: String, frame: [UInt8], count: Int, sent: FloodCount) async throws {
    let logger = {
        var logger = Logger(label: "flood")
        logger.logLevel = .critical
        return logger
    }()
    try await WebSocketClient.connect(url: url, logger: logger) { _, outbound, _ in
        for _ in 0..<count {
            try Task.checkCancellation()
            try await outbound.write(.binary(ByteBuffer(bytes: frame)))
            sent.add()
        }
    }
}
