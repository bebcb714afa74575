import NIOWebSocket
import Synchronization
import XCTest

@testable import RealmSyncNet

/// A connection's send queue is bounded: past its limit the connection closes (1008) and what is
/// queued is dropped; the reader waits while more than half of it is queued.
final class OutboxTests: XCTestCase {
    func testAFrameOverTheQueueLimitClosesWith1008AndDropsWhatIsQueued() async {
        let outbox = Outbox(maxQueuedBytes: 1000)
        XCTAssertTrue(outbox.send([UInt8](repeating: 1, count: 400)))
        XCTAssertTrue(outbox.send([UInt8](repeating: 2, count: 400)))
        XCTAssertFalse(outbox.send([UInt8](repeating: 3, count: 400)), "1200 bytes are over the limit of 1000")
        XCTAssertEqual(outbox.queuedBytes, 800)
        XCTAssertFalse(outbox.send([4]), "the queue ended")

        let written = WrittenItems()
        await outbox.writeAll { written.append($0) }
        XCTAssertEqual(written.frames, [], "the frames queued before the overflow are dropped")
        XCTAssertEqual(written.closes.map(\.code), [.policyViolation])
        XCTAssertTrue(written.closes.first?.reason.contains("over 1000") == true, "\(written.closes)")
        XCTAssertEqual(outbox.queuedBytes, 0)
    }

    func testTheReaderWaitsUntilTheQueueDrainsUnderItsLowWaterMark() async {
        let outbox = Outbox(maxQueuedBytes: 1000)
        XCTAssertTrue(outbox.send([UInt8](repeating: 1, count: 600)))
        let log = WrittenItems()
        let reader = Task {
            await outbox.waitForRoom()
            log.note("room")
        }
        // Give the reader its chance to run ahead: it must not.
        try? await Task.sleep(for: .milliseconds(100))
        let writer = Task {
            await outbox.writeAll { _ in log.note("written") }
        }
        await reader.value
        XCTAssertEqual(log.notes, ["written", "room"])
        outbox.finish()
        await writer.value
    }

    func testAnEndedQueueLetsTheReaderGoAndRefusesFrames() async {
        let outbox = Outbox(maxQueuedBytes: 1000)
        XCTAssertTrue(outbox.send([UInt8](repeating: 1, count: 900)))
        outbox.close(.goingAway, reason: "stopping")
        await outbox.waitForRoom()
        XCTAssertTrue(outbox.hasEnded)
        XCTAssertFalse(outbox.send([1]))
        let written = WrittenItems()
        await outbox.writeAll { written.append($0) }
        XCTAssertEqual(written.frames.map(\.count), [900], "a close queued by this side writes what is queued first")
        XCTAssertEqual(written.closes.map(\.code), [.goingAway])
    }

    func testTheDefaultQueueLimitIsTwiceTheFrameLimit() {
        XCTAssertEqual(WireLimits(maxFrameBytes: 4096).maxQueuedBytes, 8192)
        XCTAssertEqual(WireLimits(maxFrameBytes: 4096, maxQueuedBytes: 5000).maxQueuedBytes, 5000)
        XCTAssertEqual(WireLimits(maxFrameBytes: .max).maxQueuedBytes, .max)
    }
}

/// What a test writer saw, in order.
final class WrittenItems: Sendable {
    private let items = Mutex<[OutboundItem]>([])
    private let log = Mutex<[String]>([])

    func append(_ item: OutboundItem) { items.withLock { $0.append(item) } }
    func note(_ event: String) { log.withLock { $0.append(event) } }

    var notes: [String] { log.withLock { $0 } }
    var frames: [[UInt8]] {
        items.withLock { $0.compactMap { if case .frame(let bytes) = $0 { bytes } else { nil } } }
    }
    var closes: [(code: WebSocketErrorCode, reason: String)] {
        items.withLock { $0.compactMap { if case .close(let code, let reason) = $0 { (code, reason) } else { nil } } }
    }
}
