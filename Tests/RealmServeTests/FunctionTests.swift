import Foundation
import RealmDatabase
import RealmTestSupport
import XCTest

/// `POST /v1/functions/{name}` through a real HTTP client on 127.0.0.1.
final class FunctionTests: XCTestCase {
    func testAFunctionRunsInTheCallersRealmAndReturnsItsResult() async throws {
        let fixture = try await ServeFixture()
        let alice = try await fixture.token("alice", claims: ["role": "vet"])
        let bob = try await fixture.token("bob")
        let app = fixture.app
        let adopted = try await fixture.call {
            try app.request("POST", "/v1/functions/adopt", token: alice, body: #"{"person": "Ann", "dog": "Rex"}"#)
        }
        XCTAssertEqual(adopted.status, 200, "\(adopted)")
        XCTAssertEqual(adopted.json?[field: "result"]?[field: "firstName"], .string("Ann"))
        XCTAssertEqual(adopted.json?[field: "result"]?[field: "household"], .string("alice"), "caller.user")
        let who = try await fixture.call { try app.request("POST", "/v1/functions/whoami", token: alice) }
        XCTAssertEqual(who.json?[field: "result"]?[field: "claims"]?[field: "role"], .string("vet"), "\(who)")
        XCTAssertEqual(who.json?[field: "result"]?[field: "user"], .string("alice"))
        // Bob's realm is his own: Ann's adoption is not in it.
        let bobsDogs = try await fixture.call {
            try app.request("POST", "/v1/functions/heavyDogs", token: bob, body: #"{"minWeight": -1}"#)
        }
        XCTAssertEqual(bobsDogs.json?[field: "result"], .array([]), "\(bobsDogs)")
        let alicesDogs = try await fixture.call {
            try app.request("POST", "/v1/functions/heavyDogs", token: alice, body: #"{"minWeight": -1}"#)
        }
        guard case .array(let dogs)? = alicesDogs.json?[field: "result"] else { return XCTFail("\(alicesDogs)") }
        XCTAssertEqual(dogs.map { $0[field: "name"] }, [.string("Rex")])
        XCTAssertTrue(
            fixture.logLines.all.contains {
                $0.contains("\"function\": \"adopt\"") && $0.contains("\"user\": \"alice\"")
            })
        await fixture.stop()
    }

    func testArgumentsAndResultsKeepTheirTypes() async throws {
        let fixture = try await ServeFixture()
        let token = try await fixture.token("typed")
        let body =
            #"{"n": 3, "x": 1.5, "s": "a", "b": true, "list": [1, 2], "when": {"$date": "2024-01-01T00:00:00Z"}, "d": {"$numberDecimal": "2.25"}, "bin": {"$binary": {"base64": "AAE=", "subType": "00"}}}"#
        let app = fixture.app
        let echoed = try await fixture.call { try app.request("POST", "/v1/functions/echo", token: token, body: body) }
        XCTAssertEqual(echoed.status, 200, "\(echoed)")
        let result = echoed.json?[field: "result"]
        XCTAssertEqual(result?[field: "n"], .int(3))
        XCTAssertEqual(result?[field: "x"], .double(1.5))
        XCTAssertEqual(result?[field: "b"], .bool(true))
        XCTAssertEqual(result?[field: "list"], .array([.int(1), .int(2)]))
        XCTAssertEqual(result?[field: "when"], .tagged("$date", "2024-01-01T00:00:00Z"))
        XCTAssertEqual(result?[field: "d"], .tagged("$numberDecimal", "2.25"))
        XCTAssertEqual(result?[field: "bin"]?[field: "$binary"]?[field: "base64"], .string("AAE="))
        await fixture.stop()
    }

    func testErrorsNameWhatWentWrongAndAFailedCallKeepsOnlyWhatItCommitted() async throws {
        let fixture = try await ServeFixture()
        let token = try await fixture.token("carol")
        let app = fixture.app
        let missing = try await fixture.call { try app.request("POST", "/v1/functions/nope", token: token) }
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.errorCode, "FunctionNotFound")
        let failed = try await fixture.call {
            try app.request("POST", "/v1/functions/writeThenFail", token: token, body: #"{"id": 10}"#)
        }
        XCTAssertEqual(failed.status, 422, "\(failed)")
        XCTAssertEqual(failed.errorCode, "ScriptError")
        XCTAssertTrue(failed.text.contains("boom after a commit"), failed.text)
        let kept = try await fixture.call { try app.request("GET", "/v1/objects/Note?sort=id", token: token) }
        XCTAssertEqual(
            kept.json?[field: "count"], .int(1), "the committed write stays, the open one is rolled back: \(kept)")
        let notJSON = try await fixture.call {
            try app.request("POST", "/v1/functions/echo", token: token, body: "{nope")
        }
        XCTAssertEqual(notJSON.status, 400)
        let notObject = try await fixture.call {
            try app.request("POST", "/v1/functions/echo", token: token, body: "[1]")
        }
        XCTAssertEqual(notObject.status, 400)
        XCTAssertTrue(notObject.text.contains("must be a JSON object"), notObject.text)
        await fixture.stop()
    }

    func testAFunctionPastItsTimeLimitIsStoppedWhileOtherUsersAreServed() async throws {
        let fixture = try await ServeFixture()
        let looper = try await fixture.token("looper")
        let other = try await fixture.token("other")
        let app = fixture.app
        async let stopped = fixture.call { try app.request("POST", "/v1/functions/spin", token: looper) }
        // While the loop runs, another user's calls are answered.
        try await Task.sleep(for: .milliseconds(50))
        let served = try await fixture.call {
            try app.request("POST", "/v1/functions/echo", token: other, body: #"{"a": 1}"#)
        }
        XCTAssertEqual(served.status, 200, "\(served)")
        let answer = try await stopped
        XCTAssertEqual(answer.status, 422, "\(answer)")
        XCTAssertEqual(answer.errorCode, "Limit")
        // The looping user's next call is served too.
        let next = try await fixture.call { try app.request("POST", "/v1/functions/echo", token: looper, body: "{}") }
        XCTAssertEqual(next.status, 200, "\(next)")
        await fixture.stop()
    }

    func testAUserWithAFullQueueIsToldToRetry() async throws {
        let fixture = try await ServeFixture(serve: { $0.userQueue = 1 })
        let token = try await fixture.token("busy")
        let app = fixture.app
        async let first = fixture.call {
            try app.request("POST", "/v1/functions/busy", token: token, body: #"{"seconds": 0.8}"#)
        }
        try await Task.sleep(for: .milliseconds(200))
        let second = try await fixture.call { try app.request("POST", "/v1/functions/echo", token: token, body: "{}") }
        XCTAssertEqual(second.status, 429, "\(second)")
        XCTAssertEqual(second.errorCode, "Busy")
        XCTAssertEqual(second.headers["retry-after"], "1")
        let done = try await first
        XCTAssertEqual(done.status, 200, "\(done)")
        await fixture.stop()
    }
}
