import Foundation
import XCTest

@testable import RealmDatabase

/// `Results.queryText`: the filters as one query, `$n` arguments written in as literals that select
/// the same objects (what a flexible-sync subscription stores).
final class ResultsQueryTextTests: XCTestCase {
    var realm: Realm!

    override func setUpWithError() throws { realm = try QueryFixture.makeRealm() }
    override func tearDown() { realm = nil }

    private func names(_ results: Results) throws -> [String] {
        try results.map { try $0.value(forKey: "name").stringValue ?? "?" }
    }

    func testEveryArgumentTypeIsWrittenAsALiteralThatSelectsTheSameObjects() throws {
        let cases: [(String, [RealmValue])] = [
            ("name == $0", [.string("Émile")]),
            ("name == $0", [.string("quote \" backslash \\ newline \n tab \t bell \u{7}")]),
            ("age > $0 AND height < $1", [.int(20), .double(1.75)]),
            ("ratio == $0", [.float(0.5)]), ("ratio > $0", [.float(1e-5)]),
            ("height < $0", [.double(.infinity)]), ("height > $0", [.double(-.infinity)]),
            ("height == $0", [.double(.nan)]), ("height > $0", [.double(1e-300)]),
            ("balance == $0", [QueryFixture.dec("10.50")]), ("balance > $0", [QueryFixture.dec("-1E+3")]),
            ("born == $0", [QueryFixture.date("2021-06-15T12:30:00Z")]),
            ("born > $0", [.date(try XCTUnwrap(Timestamp(seconds: -5, nanoseconds: -3)))]),
            ("oid == $0", [.objectId(QueryFixture.oid(2))]), ("uid == $0", [.uuid(QueryFixture.uuid(4))]),
            ("blob == $0", [.data(Data([0, 1, 2, 255]))]), ("score == $0", [.null]), ("flag == $0", [.bool(false)]),
            ("any == $0", [.string("5")]), ("any == $0", [.int(5)]),
            ("name IN $0", [.list([.string("Alice"), .string("Zed")])]),
            ("ANY nums IN $0", [.list([.int(3), .null])]),
        ]
        for (query, arguments) in cases {
            let results = try realm.objects("Person").filter(query, arguments: arguments)
            let text = try XCTUnwrap(results.queryText, query)
            XCTAssertFalse(text.contains("$"), text)
            let again = try realm.objects("Person").filter(text)
            XCTAssertEqual(try names(again), try names(results), "\(query) written as \(text)")
        }
    }

    func testFiltersJoinWithAndAndSortingIsNotPartOfTheQuery() throws {
        let all = try realm.objects("Person")
        XCTAssertEqual(all.queryText, "TRUEPREDICATE")
        let one = try all.filter("age > $0", .int(20)).sorted(byKeyPath: "name")
        XCTAssertEqual(one.queryText, "age > 20")
        XCTAssertEqual(try one.filter("active == true").queryText, "(age > 20) AND (active == true)")
    }

    func testAnObjectArgumentOrACollectionsObjectsHaveNoQueryText() throws {
        let alice = try realm.objects("Person").filter("name == 'Alice'")[0]
        XCTAssertNil(try realm.objects("Person").filter("friend == $0", .object(alice)).queryText)
        XCTAssertNil((try? realm.objects("Person").filter("attrs == $0", .dictionary(["a": .int(1)])))?.queryText)
        XCTAssertNil(try alice.dynamicList("dogs").asResults().queryText)
    }
}
