import Foundation
import RealmDatabase
import RealmTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Peers that are slow or speak no HTTP: each is answered or closed, and the host goes on serving.
final class SlowAndMalformedPeerTests: XCTestCase {
    func testAPeerTricklingItsHeadersIsClosedOnBothListeners() async throws {
        let fixture = try await ServeFixture(serve: { $0.headerTimeout = .milliseconds(500) })
        for client in [fixture.app, fixture.admin] {
            let closedAfter = try await fixture.call { () -> Double in
                let fd = try client.connect()
                defer { close(fd) }
                let started = Date()
                try client.send(fd, Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8))
                // One header byte every 100 ms, never the blank line.
                for _ in 0..<40 {
                    usleep(100_000)
                    if (try? client.send(fd, Array("X".utf8))) == nil { break }
                    var byte: UInt8 = 0
                    let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
                    if n == 0 { break }
                }
                return Date().timeIntervalSince(started)
            }
            XCTAssertLessThan(closedAfter, 3, "a trickling peer was closed after the header timeout")
        }
        // Meanwhile and after, the host serves.
        let token = try await fixture.token("quinn")
        let app = fixture.app
        let served = try await fixture.call { try app.request("POST", "/v1/functions/echo", token: token, body: "{}") }
        XCTAssertEqual(served.status, 200)
        await fixture.stop()
    }

    func testBytesThatAreNotHTTPGetAnErrorOrAreClosedAndChangeNothing() async throws {
        let fixture = try await ServeFixture(
            hostLua: "return { limits = { timeSeconds = 0.5 } }",
            serve: {
                $0.headerTimeout = .milliseconds(500)
                $0.consoleWriteTimeout = .milliseconds(500)
            })
        // Each is answered 400, or (Hummingbird's upgrade channel answers no head it cannot parse) closed
        // once the first answer is overdue: the header timeout, the console write timeout and the time limit, plus 1 s.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in [fixture.app, fixture.admin] {
                for garbage in ["NOT HTTP AT ALL\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "\u{0}\u{1}\u{2}\r\n\r\n"] {
                    group.addTask {
                        let started = Date()
                        let answer = try? await fixture.call { try client.exchange(Array(garbage.utf8)) }
                        let took = Date().timeIntervalSince(started)
                        XCTAssertLessThan(took, 5, "\(garbage.debugDescription) held the connection")
                        if let answer {
                            XCTAssertGreaterThanOrEqual(answer.status, 400, "\(garbage.debugDescription): \(answer)")
                            XCTAssertLessThan(answer.status, 500, garbage.debugDescription)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let app = fixture.app
        let token = try await fixture.token("rita")
        let unknown = try await fixture.call { try app.request("GET", "/v2/anything", token: token) }
        XCTAssertEqual(unknown.status, 404)
        XCTAssertNotNil(unknown.errorCode, "an error body on 404: \(unknown)")
        let wrongMethod = try await fixture.call {
            try app.request("PUT", "/v1/objects/Note", token: token, body: "{}")
        }
        XCTAssertGreaterThanOrEqual(wrongMethod.status, 400)
        XCTAssertLessThan(wrongMethod.status, 500)
        let served = try await fixture.call { try app.request("GET", "/v1/objects/Note", token: token) }
        XCTAssertEqual(served.json?[field: "count"], .int(0), "\(served)")
        await fixture.stop()
    }
}

extension SlowAndMalformedPeerTests {
    /// A watch client that never reads: its queue is bounded in bytes, the host closes the socket and
    /// ends its watch, and goes on serving.
    func testAWatchClientThatNeverReadsIsClosed() async throws {
        let fixture = try await ServeFixture(serve: { $0.watchQueueBytes = 64 << 10 })
        let token = try await fixture.token("slow")
        let app = fixture.app
        let admin = fixture.admin
        // A WebSocket by hand: the upgrade, one masked text frame with the watch, then no reading at all.
        let fd = try await fixture.call { () -> Int32 in
            let fd = try app.connect()
            let upgrade =
                "GET /v1/watch HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Authorization: Bearer \(token)\r\n\r\n"
            try app.send(fd, Array(upgrade.utf8))
            let payload = Array(#"{"watch": 1, "class": "Note"}"#.utf8)
            let mask: [UInt8] = [1, 2, 3, 4]
            try app.send(
                fd, [0x81, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $1 ^ mask[$0 % 4] })
            return fd
        }
        defer { close(fd) }
        let watchOpen = #"realmhost_watches_open 1"#
        try await waitFor("the watch is open") { try admin.request("GET", "/metrics").text.contains(watchOpen) }
        // Each commit sends every note again: 100 KB more each time, never read.
        let text = String(repeating: "x", count: 100_000)
        for id in 1...60 {
            let created = try await fixture.call {
                try app.request("POST", "/v1/objects/Note", token: token, body: #"{"id": \#(id), "text": "\#(text)"}"#)
            }
            XCTAssertEqual(created.status, 201)
        }
        try await waitFor("the watch is closed") {
            try admin.request("GET", "/metrics").text.contains("realmhost_watches_open 0")
        }
        // A client that reads gets every message, however large (one message always fits the queue).
        let reader = WatchClient(port: fixture.appPort, token: token)
        reader.send(#"{"watch": 2, "class": "Note", "where": "id > 59"}"#)
        let big = try await reader.messages(atLeast: 1)
        XCTAssertEqual(big.first?[field: "objects"]?.arrayValues.count, 1)
        _ = try await reader.close()
        let served = try await fixture.call { try app.request("GET", "/v1/objects/Note?limit=0", token: token) }
        XCTAssertEqual(served.json?[field: "count"], .int(60))
        await fixture.stop()
    }

    private func waitFor(_ what: String, _ condition: @escaping @Sendable () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? await onThread(condition)) == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTFail("not within 10 s: \(what)")
    }
}
