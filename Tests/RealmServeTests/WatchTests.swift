import Foundation
import RealmDatabase
import RealmHost
import RealmTestSupport
import XCTest

/// `/v1/watch`: initial results, then Realm's change indices after every commit that changes them,
/// whoever made it.
final class WatchTests: XCTestCase {
    func testAWatchSeesTheInitialResultsThenEachChange() async throws {
        let fixture = try await ServeFixture()
        let token = try await fixture.token("hank")
        let app = fixture.app
        for (id, score) in [(1, 5.0), (2, 1.0)] {
            _ = try await fixture.call {
                try app.request("POST", "/v1/objects/Note", token: token, body: #"{"id": \#(id), "score": \#(score)}"#)
            }
        }
        let watch = WatchClient(port: fixture.appPort, token: token)
        watch.send(#"{"watch": 7, "class": "Note", "where": "score > $0", "args": [2], "sort": "id"}"#)
        let initial = try await watch.messages(atLeast: 1)
        XCTAssertEqual(initial[0][field: "id"], .int(7))
        XCTAssertEqual(initial[0][field: "objects"].map(ids), [1])
        // An API write that enters the results: an insertion at its sorted index.
        _ = try await fixture.call {
            try app.request("POST", "/v1/objects/Note", token: token, body: #"{"id": 0, "score": 9}"#)
        }
        let inserted = try await watch.messages(atLeast: 2)[1]
        XCTAssertEqual(inserted[field: "insertions"], .array([.int(0)]), inserted.text())
        XCTAssertEqual(inserted[field: "deletions"], .array([]))
        XCTAssertEqual(inserted[field: "objects"].map(ids), [0, 1])
        // A function's write that modifies one.
        _ = try await fixture.call {
            try app.request("PATCH", "/v1/objects/Note/1", token: token, body: #"{"text": "changed"}"#)
        }
        let modified = try await watch.messages(atLeast: 3)[2]
        XCTAssertEqual(modified[field: "modifications"], .array([.int(1)]), modified.text())
        // A write that leaves the results: a deletion at its old index.
        _ = try await fixture.call {
            try app.request("PATCH", "/v1/objects/Note/0", token: token, body: #"{"score": 0}"#)
        }
        let left = try await watch.messages(atLeast: 4)[3]
        XCTAssertEqual(left[field: "deletions"], .array([.int(0)]), left.text())
        // A write elsewhere changes nothing here: no message.
        _ = try await fixture.call {
            try app.request("POST", "/v1/objects/Note", token: token, body: #"{"id": 50, "score": 0}"#)
        }
        watch.send(#"{"unwatch": 7}"#)
        // A socket's messages are handled in order: once watch 8 answers, unwatch 7 is done.
        watch.send(#"{"watch": 8, "class": "Note", "where": "score > 100"}"#)
        let eighth = try await watch.messages(atLeast: 5)[4]
        XCTAssertEqual(eighth[field: "id"], .int(8), eighth.text())
        _ = try await fixture.call {
            try app.request("POST", "/v1/objects/Note", token: token, body: #"{"id": 51, "score": 10}"#)
        }
        try await Task.sleep(for: .milliseconds(200))
        XCTAssertEqual(
            watch.all.count, 5,
            "no message for a change outside the results or after unwatch: \(watch.all.map { $0.text() })")
        _ = try await watch.close()
        await fixture.stop()
    }

    func testAFunctionsWriteReachesAnotherSocketsWatch() async throws {
        let fixture = try await ServeFixture()
        let token = try await fixture.token("ivy")
        let watch = WatchClient(port: fixture.appPort, token: token)
        watch.send(#"{"watch": 1, "class": "Dog", "sort": "name"}"#)
        _ = try await watch.messages(atLeast: 1)
        let app = fixture.app
        let adopted = try await fixture.call {
            try app.request("POST", "/v1/functions/adopt", token: token, body: #"{"person": "Ann", "dog": "Rex"}"#)
        }
        XCTAssertEqual(adopted.status, 200)
        let change = try await watch.messages(atLeast: 2)[1]
        XCTAssertEqual(change[field: "insertions"], .array([.int(0)]), change.text())
        XCTAssertEqual(change[field: "objects"]?.arrayValues.first?[field: "name"], .string("Rex"))
        _ = try await watch.close()
        await fixture.stop()
    }

    func testAConsoleLinesCommitReachesAWatch() async throws {
        let fixture = try await ServeFixture()
        let token = try await fixture.token("lola")
        let watch = WatchClient(port: fixture.appPort, token: token)
        watch.send(#"{"watch": 3, "class": "Note"}"#)
        _ = try await watch.messages(atLeast: 1)
        // The path of a console line (`repl --connect` runs it through the same TenantSession).
        let host = fixture.server.host
        try await fixture.call {
            let session = TenantSession(host: host, user: "lola", output: { _ in }, warning: { _ in })
            guard
                case .ready(let chunk) = try session.compile(
                    #"realm:objects("Note"):append{ id = 9 }"#, chunkName: "repl")
            else { throw TestFailure("the line did not compile") }
            try session.run(chunk) { _, _ in }
        }
        let change = try await watch.messages(atLeast: 2)[1]
        XCTAssertEqual(change[field: "insertions"], .array([.int(0)]), change.text())
        _ = try await watch.close()
        await fixture.stop()
    }

    func testBadMessagesGetErrorsAndTheSocketGoesOn() async throws {
        let fixture = try await ServeFixture()
        let token = try await fixture.token("jack")
        let watch = WatchClient(port: fixture.appPort, token: token)
        watch.send("not json")
        watch.send(#"{"watch": 1}"#)
        watch.send(#"{"watch": 2, "class": "Secret"}"#)
        watch.send(#"{"watch": 3, "class": "Note", "where": "id >>"}"#)
        watch.send(#"{"watch": 4, "class": "Note", "colour": "red"}"#)
        watch.send(#"{"unwatch": 99}"#)
        watch.send(#"{"watch": 5, "class": "Note"}"#)
        let messages = try await watch.messages(atLeast: 7)
        let codes = messages.prefix(6).map { $0[field: "error"]?[field: "code"] }
        XCTAssertEqual(
            codes,
            [
                .string("BadRequest"), .string("BadRequest"), .string("Forbidden"), .string("InvalidQuery"),
                .string("BadRequest"), .string("BadRequest"),
            ], messages.map { $0.text() }.joined(separator: "\n"))
        XCTAssertEqual(messages[6][field: "id"], .int(5))
        XCTAssertEqual(messages[6][field: "objects"], .array([]))
        _ = try await watch.close()
        await fixture.stop()
    }

    func testAWatchWithoutAValidTokenIsNeverUpgraded() async throws {
        let fixture = try await ServeFixture()
        let app = fixture.app
        // Refused before the upgrader (`WatchUpgradeGate`): the same 401 and body as any route.
        let upgrade = try await fixture.call {
            try app.request(
                "GET", "/v1/watch", token: "nonsense",
                headers: [
                    "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                ])
        }
        XCTAssertEqual(upgrade.status, 401, "\(upgrade)")
        XCTAssertEqual(upgrade.errorCode, "Unauthorized")
        XCTAssertTrue(upgrade.text.contains("not a JWT"), upgrade.text)
        let bare = try await fixture.call {
            try app.request(
                "GET", "/v1/watch?x=1",
                headers: [
                    "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                ])
        }
        XCTAssertEqual(bare.status, 401, "\(bare)")
        XCTAssertTrue(bare.text.contains("no Authorization header"), bare.text)
        let plain = try await fixture.call { try app.request("GET", "/v1/watch", token: "nonsense") }
        XCTAssertEqual(plain.status, 401, "\(plain)")
        XCTAssertEqual(plain.errorCode, "Unauthorized")
        let valid = try await fixture.token("kim")
        let notUpgraded = try await fixture.call { try app.request("GET", "/v1/watch", token: valid) }
        XCTAssertEqual(notUpgraded.status, 400, "\(notUpgraded)")
        XCTAssertTrue(notUpgraded.text.contains("WebSocket"), notUpgraded.text)
        await fixture.stop()
    }

    /// A browser's WebSocket cannot set a header: the token may come as `access_token` (RFC 6750
    /// §2.3), on /v1/watch only, once.
    func testABrowsersWatchGivesItsTokenInTheQuery() async throws {
        let fixture = try await ServeFixture()
        let app = fixture.app
        let token = try await fixture.token("ivy")
        _ = try await fixture.call {
            try app.request("POST", "/v1/objects/Note", token: token, body: #"{"id": 1, "score": 5}"#)
        }
        let watch = WatchClient(port: fixture.appPort, token: token, tokenInQuery: true)
        watch.send(#"{"watch": 1, "class": "Note"}"#)
        let initial = try await watch.messages(atLeast: 1)
        XCTAssertEqual(initial[0][field: "objects"].map(ids), [1], initial[0].text())
        _ = try await watch.close()
        let upgrade = [
            "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        ]
        let forged = try await fixture.call {
            try app.request("GET", "/v1/watch?access_token=nonsense", headers: upgrade)
        }
        XCTAssertEqual(forged.status, 401, "\(forged)")
        XCTAssertTrue(forged.text.contains("not a JWT"), forged.text)
        let twice = try await fixture.call {
            try app.request("GET", "/v1/watch?access_token=\(token)", token: token, headers: upgrade)
        }
        XCTAssertEqual(twice.status, 401, "\(twice)")
        XCTAssertTrue(twice.text.contains("given twice"), twice.text)
        // Only the watch takes it: other routes want the header.
        let query = try await fixture.call { try app.request("GET", "/v1/objects/Note?access_token=\(token)") }
        XCTAssertEqual(query.status, 401, "\(query)")
        XCTAssertTrue(query.text.contains("no Authorization header"), query.text)
        await fixture.stop()
    }
}

private func ids(_ objects: JSONValue) -> [Int64] {
    objects.arrayValues.compactMap { if case .int(let i)? = $0[field: "id"] { i } else { nil } }
}

extension JSONValue {
    var arrayValues: [JSONValue] { if case .array(let items) = self { items } else { [] } }
}
