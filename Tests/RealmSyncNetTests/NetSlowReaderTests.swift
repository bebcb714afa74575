import Foundation
import RealmSync
import Synchronization
import XCTest

@testable import RealmSyncNet

/// A peer that never reads what the server sends it: once its queue passes the limit the server
/// closes it (1008), and its socket is gone within the close timeout, not held until the ping
/// timeout (set far off here).
final class NetSlowReaderTests: XCTestCase {
    func testAPeerThatNeverReadsIsDisconnectedSoonAfterItsQueueOverflows() async throws {
        let fixture = try HostileFixture()
        let url = try await fixture.start(limits: WireLimits(maxQueuedBytes: 64 << 10)) {
            $0.pingInterval = .seconds(600)
            $0.closeTimeout = .milliseconds(500)
        }
        let subscribed = FloodCount()
        let stalled = Task {
            try await HostilePeer.converse(url: url, timeout: .seconds(600)) { peer in
                _ = try await fixture.openNewFile(peer, session: 1, user: "alice")
                subscribed.add()
                // Reads nothing more: the downloads of the writer's items pile up for it.
                try await Task.sleep(for: .seconds(600))
            }
        }
        defer { stalled.cancel() }
        let ready = await eventually(timeout: .seconds(20)) { subscribed.value == 1 }
        XCTAssertTrue(ready, "the stalled peer did not subscribe")

        // A second peer of alice's uploads items of about 16 KB (hex, so deflate halves them at most)
        // until the stalled peer's connection is gone, or 12 MB went.
        try await HostilePeer.converse(url: url, timeout: .seconds(120)) { peer in
            let file = try await fixture.openNewFile(peer, session: 1, user: "alice")
            for version in UInt64(1)...200 {
                let items = (0..<4).map { fixture.create("v\(version).\($0)", owner: "alice", text: Self.noise()) }
                _ = try await peer.upload(session: 1, [fixture.changeset(version, file: file.id, items)])
                if await fixture.connectionCount() == 1 { return }
            }
        }
        let closed = await eventually(timeout: .seconds(10)) { await fixture.connectionCount() <= 1 }
        XCTAssertTrue(closed, "the peer that never reads still holds its connection")
        // A server holding such a connection cannot stop (its close waits behind the writer).
        if closed { await fixture.stop() }
    }

    private static func noise() -> String {
        (0..<450).map { _ in UUID().uuidString }.joined()
    }
}
