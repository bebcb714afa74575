import Foundation
import NIOWebSocket
import RealmSync
import XCTest

@testable import RealmSyncNet

/// Faults on the wire: a malformed frame ends only its own connection; a server restarted on the
/// same store gets the writes hosts made while it was away.
final class NetFaultTests: XCTestCase {
    func testAMalformedFrameClosesOnlyThatConnectionAndChangesNothing() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let (a, b, hostA, hostB) = try await fixture.twoHosts(url: url)
        try a.write("before", "one")
        await hostA.flush()
        let settled = await eventually { (try? b.text("before")) == "one" }
        XCTAssertTrue(settled)
        let stateBefore = try fixture.serverState()
        let versionBefore = try fixture.latestServerVersion()

        let signer = try SyncToken(secret: fixture.secret)
        let token = try await signer.sign(user: "alice")
        let good = try WireCodec().encode(.bind(session: 1, user: "alice", needsClientFileID: true), token: token)
        let malformed: [[UInt8]] = [
            Array("RSYNC/1 upload 1 999 0 999\n".utf8) + [1, 2, 3],
            Array("GET / HTTP/1.1\n".utf8),
            Array("RSYNC/1 mark 1 5 1 50\n".utf8) + [9, 9, 9, 9, 9],
        ]
        for bytes in malformed {
            let result = try await rawPeer(url: url, send: [good, bytes])
            XCTAssertEqual(result.closeCode, .protocolError, "\(result)")
            XCTAssertTrue(
                result.closeReason?.hasPrefix("wire frame refused") == true, "\(result.closeReason ?? "none")")
        }

        XCTAssertEqual(try fixture.serverState(), stateBefore)
        XCTAssertEqual(try fixture.latestServerVersion(), versionBefore)
        // The hosts' connection lived on.
        try a.write("after", "two")
        await hostA.flush()
        let delivered = await eventually { (try? b.text("after")) == "two" }
        XCTAssertTrue(delivered)
        let errors = await hostA.sessionErrors
        XCTAssertEqual(errors, [:])

        await hostA.stop()
        await hostB.stop()
        await server.stop()
    }

    func testAnOfflineWriteArrivesAfterTheServerRestartsOnTheSameStore() async throws {
        let fixture = try NetFixture()
        let first = try await fixture.startServer()
        let url = try await fixture.url(of: first)
        let port = try XCTUnwrap(URLComponents(string: url)?.port)
        let (a, b, hostA, hostB) = try await fixture.twoHosts(url: url)
        try a.write("first", "online")
        await hostA.flush()
        let online = await eventually { (try? b.text("first")) == "online" }
        XCTAssertTrue(online)

        await first.stop()
        let offline = await eventually { await hostA.state != .connected }
        XCTAssertTrue(offline)
        try a.write("second", "written offline")
        await hostA.flush()

        let second = try await fixture.startServer(port: port)
        let reconnected = await eventually { await hostA.state == .connected }
        XCTAssertTrue(reconnected)
        let arrived = await eventually { (try? b.text("second")) == "written offline" }
        XCTAssertTrue(arrived, "b has \(b.count) items")
        XCTAssertEqual(try fixture.serverState().objects.count, 2)

        await hostA.stop()
        await hostB.stop()
        await second.stop()
    }

    /// A message over the frame limit, or a text message, closes its connection; the server serves on.
    func testOversizeAndTextMessagesCloseTheirConnection() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer(limits: WireLimits(maxFrameBytes: 8192))
        let url = try await fixture.url(of: server)

        let oversize = try await rawPeer(url: url, send: [[UInt8](repeating: 0x41, count: 20_000)])
        XCTAssertEqual(oversize.closeCode, .messageTooLarge, "\(oversize)")
        let text = try await rawText(url: url, "RSYNC/1 mark 1 0 0 0")
        XCTAssertEqual(text, .unacceptableData)

        let a = try fixture.replica("a", user: "alice")
        let host = try fixture.client(url: url)
        try await host.register(a, session: 1, user: "alice")
        await host.start()
        try a.write("x", "still served")
        await host.flush()
        let stored = await eventually { (try? fixture.serverState().objects.count) == 1 }
        XCTAssertTrue(stored)
        await host.stop()
        await server.stop()
    }

    /// A message over the limit sent in fragments each under it is refused by the WebSocket layer:
    /// the connection closes with 1009 (not 1000), as documented.
    func testAFragmentedMessageOverTheLimitClosesWith1009() async throws {
        let fixture = try NetFixture()
        let server = try await fixture.startServer(limits: WireLimits(maxFrameBytes: 8192))
        let url = try await fixture.url(of: server)
        let fragments = Array(repeating: [UInt8](repeating: 0x41, count: 4000), count: 3)
        let close = try await rawFragments(url: url, fragments)
        XCTAssertEqual(close, .messageTooLarge)
        await server.stop()
    }

    /// A host started while the server is down keeps retrying (with backoff), and connects once it is up.
    func testAClientStartedBeforeTheServerConnectsWhenItComesUp() async throws {
        let fixture = try NetFixture()
        let probe = try await fixture.startServer()
        let url = try await fixture.url(of: probe)
        let port = try XCTUnwrap(URLComponents(string: url)?.port)
        await probe.stop()

        let a = try fixture.replica("a", user: "alice")
        let host = try fixture.client(url: url)
        try await host.register(a, session: 1, user: "alice")
        try a.write("early", "written before any server")
        await host.start()
        let refused = await eventually { await host.lastConnectionError != nil }
        XCTAssertTrue(refused)
        // Said in the project's words: what happened, to which server, and when the next try is.
        let said = await host.lastConnectionError ?? ""
        XCTAssertTrue(said.hasPrefix("connection refused by 127.0.0.1:\(port): no sync server listens at \(url)"), said)
        XCTAssertNotNil(said.range(of: #"; next try at \d\d:\d\d:\d\d$"#, options: .regularExpression), said)
        let waiting = await host.state
        XCTAssertNotEqual(waiting, .connected)

        let server = try await fixture.startServer(port: port)
        let stored = await eventually { (try? fixture.serverState().objects.count) == 1 }
        XCTAssertTrue(stored)
        let state = await host.state
        XCTAssertEqual(state, .connected)
        await host.stop()
        await server.stop()
    }
}
