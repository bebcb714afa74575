import Foundation
import XCTest

@testable import RealmDatabase

/// realm-core's parser tests (`test/test_parser.cpp`) through the Swift API, on the data of its
/// `Parser_OperatorIN` and `Parser_Backlinks` tests (the Lua suite `LuaQueryRealmCoreTests` has more).
final class QueryRealmCoreTests: XCTestCase {
    private var realm: Realm!

    override func setUpWithError() throws {
        var config = Realm.Configuration(inMemoryIdentifier: "realm-core-\(UUID().uuidString)")
        config.schema = Schema([
            ObjectSchema(
                className: "Items",
                properties: [Property(name: "name", type: .string), Property(name: "price", type: .double)]),
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "customer_id", type: .int),
                    Property(name: "items", type: .object, objectClassName: "Items", collection: .list),
                    Property(name: "fav item", type: .object, objectClassName: "Items"),
                    Property(name: "scores", type: .int, collection: .list),
                ]),
        ])
        realm = try Realm(configuration: config)
        try realm.write {
            var items = [DynamicObject]()
            for (name, price) in [("milk", 5.5), ("oranges", 4.0), ("pizza", 9.5), ("cereal", 6.5)] {
                items.append(try realm.create("Items", value: ["name": .string(name), "price": .double(price)]))
            }
            let lists = [[0, 1, 2, 3], Array(repeating: 0, count: 10), [2, 2, 3]]
            for (n, list) in lists.enumerated() {
                _ = try realm.create(
                    "Person",
                    value: [
                        "customer_id": .int(Int64(n)), "items": .list(list.map { .object(items[$0]) }),
                        "fav item": .object(items[n]), "scores": [1, 2],
                    ])
            }
        }
    }

    override func tearDown() { realm = nil }

    private func count(_ query: String, _ className: String = "Person") throws -> Int {
        try realm.objects(className).filter(query).countObjects()
    }

    /// Parser_Backlinks: `fav item` is a name Realm accepts; queries escape its space.
    func testNamesWithSpaces() throws {
        XCTAssertEqual(try count("fav\\ item.name == 'oranges'"), 1)
        XCTAssertEqual(try count("@links.Person.fav\\ item.customer_id > 0", "Items"), 2)
    }

    /// Parser_OperatorIN: mixed list literals, quantifier order, ordered list matching.
    func testInCounts() throws {
        XCTAssertEqual(try count("fav\\ item.name IN {0, null, -1, 'not found', 3.14}"), 0)
        XCTAssertEqual(try count("fav\\ item.name IN {0, 'milk', 'pizza'}"), 2)
        XCTAssertEqual(try count("fav\\ item.name != {0, 'milk'}"), 3)
        XCTAssertEqual(try count("ALL {5.5, 4.0} IN items.price"), 1)
        XCTAssertEqual(try count("NONE {6.5} IN ALL items.price"), 3)
        XCTAssertEqual(try count("{5.5, 4.0} IN items.price"), 0)
        XCTAssertEqual(try count("{5.6, 4.1, 9.6, 6.6} > items.price"), 1)
    }

    /// Parser_OperatorIN, "operators on a list" and "list property vs list property".
    func testArithmeticOnLists() throws {
        XCTAssertEqual(try count("ALL {8, 10} / 2 >= ANY items.price"), 1)
        XCTAssertEqual(try count("ALL items.price * 2 > ALL items.price"), 2)
        XCTAssertEqual(try count("ANY {} * 2 == ANY items.price"), 0)
        assertRealmError(try count("{1, 2} * {1, 2} == items.price"), code: .query, containing: ["between two lists"])
    }

    /// Parser_BacklinkCount and Parser_ListOfPrimitives: refusals with realm-core's words.
    func testRefusedComparisons() throws {
        assertRealmError(try count("items == NULL"), code: .query, containing: ["Cannot compare linklist ('items')"])
        assertRealmError(
            try count("scores == scores"), code: .query,
            containing: ["Ordered comparison between two primitive lists is not implemented yet"])
        // pizza (twice): 2 list entries, 1 more list entry and 1 favourite each; cereal: 2 list entries
        XCTAssertEqual(try count("items.@links.@count == 10 && customer_id == 2"), 1)
    }
}
