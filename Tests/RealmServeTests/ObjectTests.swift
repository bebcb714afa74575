import Foundation
import RealmDatabase
import RealmTestSupport
import XCTest

/// `/v1/objects/{Class}`: each verb, paging, the `api` table's permissions, and refusals that
/// change nothing.
final class ObjectTests: XCTestCase {
    func testEachVerbIsOneImplicitWrite() async throws {
        let fixture = try await ServeFixture()
        let token = try await fixture.token("dave")
        let app = fixture.app
        let created = try await fixture.call {
            try app.request(
                "POST", "/v1/objects/Note", token: token,
                body:
                    #"{"id": 1, "text": "one", "tags": ["a", "b"], "when": {"$date": "2024-05-01T10:00:00Z"}, "price": {"$numberDecimal": "9.99"}, "blob": {"$binary": {"base64": "AQI=", "subType": "00"}}}"#
            )
        }
        XCTAssertEqual(created.status, 201, "\(created)")
        XCTAssertEqual(created.json?[field: "tags"], .array([.string("a"), .string("b")]))
        XCTAssertEqual(created.json?[field: "price"], .tagged("$numberDecimal", "9.99"))
        XCTAssertEqual(created.json?[field: "blob"]?[field: "$binary"]?[field: "base64"], .string("AQI="))
        let duplicate = try await fixture.call {
            try app.request("POST", "/v1/objects/Note", token: token, body: #"{"id": 1, "text": "again"}"#)
        }
        XCTAssertEqual(duplicate.status, 409, "\(duplicate)")
        XCTAssertEqual(duplicate.errorCode, "ObjectAlreadyExists")
        let patched = try await fixture.call {
            try app.request("PATCH", "/v1/objects/Note/1", token: token, body: #"{"text": "uno", "score": 2.5}"#)
        }
        XCTAssertEqual(patched.status, 200, "\(patched)")
        XCTAssertEqual(patched.json?[field: "text"], .string("uno"))
        XCTAssertEqual(patched.json?[field: "score"], .double(2.5))
        XCTAssertEqual(patched.json?[field: "tags"], .array([.string("a"), .string("b")]), "fields not given stay")
        let changeKey = try await fixture.call {
            try app.request("PATCH", "/v1/objects/Note/1", token: token, body: #"{"id": 2}"#)
        }
        XCTAssertEqual(changeKey.status, 400, "\(changeKey)")
        let missing = try await fixture.call {
            try app.request("PATCH", "/v1/objects/Note/99", token: token, body: "{}")
        }
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.errorCode, "ObjectNotFound")
        let badKey = try await fixture.call { try app.request("DELETE", "/v1/objects/Note/abc", token: token) }
        XCTAssertEqual(badKey.status, 400, "\(badKey)")
        let deleted = try await fixture.call { try app.request("DELETE", "/v1/objects/Note/1", token: token) }
        XCTAssertEqual(deleted.status, 204)
        let gone = try await fixture.call { try app.request("GET", "/v1/objects/Note", token: token) }
        XCTAssertEqual(gone.json?[field: "count"], .int(0), "\(gone)")
        // A link is written as the linked object's primary key.
        let toy = try await fixture.call {
            try app.request("POST", "/v1/objects/DogToy", token: token, body: #"{"name": "Ball"}"#)
        }
        XCTAssertEqual(toy.status, 201, "\(toy)")
        guard let toyID = toy.json?[field: "_id"] else { return XCTFail("no _id: \(toy)") }
        let dog = try await fixture.call {
            try app.request(
                "POST", "/v1/objects/Dog", token: token,
                body: #"{"name": "Rex", "weight": 30, "breed": "Lab", "favoriteToy": "# + toyID.text() + "}")
        }
        XCTAssertEqual(dog.status, 201, "\(dog)")
        XCTAssertEqual(dog.json?[field: "favoriteToy"], toyID)
        let noToy = try await fixture.call {
            try app.request(
                "POST", "/v1/objects/Dog", token: token,
                body: #"{"name": "Max", "favoriteToy": {"$oid": "000000000000000000000000"}}"#)
        }
        XCTAssertEqual(noToy.status, 400, "\(noToy)")
        XCTAssertTrue(noToy.text.contains("no DogToy with primary key"), noToy.text)
        await fixture.stop()
    }

    func testQueriesFilterSortAndPageWithTheTotalCount() async throws {
        let fixture = try await ServeFixture()
        let token = try await fixture.token("erin")
        let app = fixture.app
        for i in 1...12 {
            let r = try await fixture.call {
                try app.request(
                    "POST", "/v1/objects/Note", token: token,
                    body: #"{"id": \#(i), "text": "n\#(i)", "score": \#(Double(i % 4))}"#)
            }
            XCTAssertEqual(r.status, 201, "\(r)")
        }
        let args = "%5B1%5D"  // [1]
        let page = try await fixture.call {
            try app.request(
                "GET", "/v1/objects/Note?where=score%20%3E%20%240&args=\(args)&sort=-score,id&limit=4&offset=2",
                token: token)
        }
        XCTAssertEqual(page.status, 200, "\(page)")
        XCTAssertEqual(page.json?[field: "count"], .int(6), "scores 2 and 3: six notes")
        guard case .array(let objects)? = page.json?[field: "objects"] else { return XCTFail("\(page)") }
        XCTAssertEqual(objects.map { $0[field: "id"] }, [.int(11), .int(2), .int(6), .int(10)])
        let badQuery = try await fixture.call {
            try app.request("GET", "/v1/objects/Note?where=score%20%3E%3E%201", token: token)
        }
        XCTAssertEqual(badQuery.status, 422, "\(badQuery)")
        XCTAssertEqual(badQuery.errorCode, "InvalidQuery")
        let badLimit = try await fixture.call { try app.request("GET", "/v1/objects/Note?limit=-1", token: token) }
        XCTAssertEqual(badLimit.status, 400)
        let unknown = try await fixture.call { try app.request("GET", "/v1/objects/Note?colour=red", token: token) }
        XCTAssertEqual(unknown.status, 400)
        let badArgs = try await fixture.call {
            try app.request("GET", "/v1/objects/Note?where=id%20%3D%3D%20%240&args=5", token: token)
        }
        XCTAssertEqual(badArgs.status, 400, "\(badArgs)")
        await fixture.stop()
    }

    func testTheApiTableDecidesWhatAppsReach() async throws {
        let fixture = try await ServeFixture()
        let token = try await fixture.token("frank")
        let app = fixture.app
        let readOnly = try await fixture.call {
            try app.request("POST", "/v1/objects/Person", token: token, body: #"{"firstName": "Ann"}"#)
        }
        XCTAssertEqual(readOnly.status, 403)
        XCTAssertEqual(readOnly.errorCode, "Forbidden")
        let readable = try await fixture.call { try app.request("GET", "/v1/objects/Person", token: token) }
        XCTAssertEqual(readable.status, 200)
        for path in ["/v1/objects/Secret", "/v1/objects/Company", "/v1/objects/NoSuchClass"] {
            let refused = try await fixture.call { try app.request("GET", path, token: token) }
            XCTAssertEqual(refused.status, 403, "\(path): \(refused)")
        }
        await fixture.stop()
    }

    func testMalformedBodiesAreRefusedAndChangeNothing() async throws {
        let fixture = try await ServeFixture(serve: {
            $0.maxBodyBytes = 4096
            $0.maxJSONDepth = 8
        })
        let token = try await fixture.token("gina")
        let app = fixture.app
        let cases: [(String, Int)] = [
            ("{", 400), ("[]", 400), (#"{"id": "one", "text": "x"}"#, 400), (#"{"id": 5, "nope": 1}"#, 400),
            (#"{"id": 5, "text": 7}"#, 400), (#"{"id": 5, "tags": "a"}"#, 400),
            (#"{"id": 5, "when": {"$date": "yesterday"}}"#, 400),
            (#"{"id": 5, "text": ""# + String(repeating: "x", count: 5000) + #""}"#, 413),
            (String(repeating: "[", count: 20) + String(repeating: "]", count: 20), 400),
        ]
        for (body, status) in cases {
            let answer = try await fixture.call {
                try app.request("POST", "/v1/objects/Note", token: token, body: body)
            }
            XCTAssertEqual(answer.status, status, "\(body.prefix(60)): \(answer)")
            XCTAssertNotNil(answer.errorCode, "an error body: \(answer)")
        }
        let none = try await fixture.call { try app.request("GET", "/v1/objects/Note", token: token) }
        XCTAssertEqual(none.json?[field: "count"], .int(0), "\(none)")
        await fixture.stop()
    }
}
