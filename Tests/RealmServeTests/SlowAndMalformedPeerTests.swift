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
