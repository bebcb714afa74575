import Foundation
import XCTest

@testable import RealmDatabase

/// Results: live, lazily evaluated; count, index, first/last, sorting on several keys, distinct,
/// and the aggregates. (Only `prop == $0` filters and TRUEPREDICATE are used: the query language
/// has suites of its own.)
final class ResultsTests: RealmTestCase {
    private var realm: Realm!

    override func setUpWithError() throws {
        try super.setUpWithError()
        realm = try Realm(configuration: itemConfig())
    }

    override func tearDownWithError() throws {
        realm = nil
        try super.tearDownWithError()
    }

    /// Items (id, name, score, weight, rating): 1 b 3 1.5 nil · 2 a 1 2.5 4 · 3 c 3 0.5 2 ·
    /// 4 a 2 4.0 nil · 5 b 1 1.5 5
    private func seed() throws {
        let rows: [(Int64, String, Int64, Double, RealmValue)] = [
            (1, "b", 3, 1.5, nil), (2, "a", 1, 2.5, 4.0), (3, "c", 3, 0.5, 2.0), (4, "a", 2, 4.0, nil),
            (5, "b", 1, 1.5, 5.0),
        ]
        try realm.write {
            for (id, name, score, weight, rating) in rows {
                try realm.create(
                    "Item",
                    value: [
                        "id": .int(id), "name": .string(name), "score": .int(score), "weight": .double(weight),
                        "rating": rating,
                    ])
            }
        }
    }

    private func ids(_ results: Results) throws -> [Int64] { try results.map { try $0["id"].intValue! } }

    // MARK: Live results

    func testResultsFollowLaterCommits() throws {
        let all = try realm.objects("Item")
        let named = try all.filter("name == $0", "a")
        XCTAssertEqual(all.count, 0)
        try seed()
        XCTAssertEqual(all.count, 5)
        XCTAssertEqual(try named.countObjects(), 2)
        let first = try XCTUnwrap(all.first)
        try realm.write { try first.setValue("a", forKey: "name") }
        XCTAssertEqual(try named.countObjects(), 3, "a changed value moves an object into the results")
        try realm.write { try realm.delete(try realm.object(ofType: "Item", forPrimaryKey: 2)!) }
        XCTAssertEqual(try ids(named), [1, 4])
        XCTAssertEqual(all.count, 4)
    }

    func testResultsSeeCommitsOfAnotherInstance() throws {
        let all = try realm.objects("Item")
        XCTAssertEqual(all.count, 0)
        let other = try Realm(configuration: itemConfig())
        try other.write { try other.create("Item", value: ["id": 1, "name": "x"]) }
        XCTAssertEqual(all.count, 1)
        XCTAssertEqual(try all[0]["name"], "x")
        try other.write { try other.object(ofType: "Item", forPrimaryKey: 1)!.setValue("y", forKey: "name") }
        XCTAssertEqual(try all[0]["name"], "y")
    }

    func testResultsSeeUncommittedChangesOfTheirOwnWrite() throws {
        let all = try realm.objects("Item")
        try realm.beginWrite()
        try realm.create("Item", value: ["id": 1])
        XCTAssertEqual(all.count, 1)
        realm.cancelWrite()
        XCTAssertEqual(all.count, 0)
    }

    // MARK: Reading

    func testCountIndexFirstLast() throws {
        try seed()
        let all = try realm.objects("Item")
        XCTAssertEqual(try all.countObjects(), 5)
        XCTAssertFalse(all.isEmpty)
        XCTAssertEqual(try all.first?["id"], 1)
        XCTAssertEqual(try all.last?["id"], 5)
        let third = try all[2]
        XCTAssertEqual(try third["id"], 3)
        XCTAssertEqual(all.index(of: third), 2)
        XCTAssertTrue(all.contains(third))
        let other = try realm.objects("Person")
        XCTAssertNil(other.index(of: third))
        assertRealmError(try all[5], "Index 5 is out of bounds (must be less than 5).")
        assertRealmError(try all[-1], code: .indexOutOfRange)
        let none = try all.filter("name == $0", "zzz")
        XCTAssertTrue(none.isEmpty)
        XCTAssertNil(none.first)
        XCTAssertNil(none.last)
        XCTAssertEqual(try all.filter("TRUEPREDICATE").countObjects(), 5)
        var visited = [Int64]()
        try all.forEach { visited.append(try $0["id"].intValue!) }
        XCTAssertEqual(visited, [1, 2, 3, 4, 5])
    }

    func testUnknownClassIsAnError() {
        assertRealmError(try realm.objects("Nope"), "Object type 'Nope' is not managed by the Realm.")
    }

    // MARK: Sorting and distinct

    func testSortedOnOneKey() throws {
        try seed()
        let all = try realm.objects("Item")
        XCTAssertEqual(try ids(all.sorted(byKeyPath: "weight")), [3, 1, 5, 2, 4])
        XCTAssertEqual(try ids(all.sorted(byKeyPath: "weight", ascending: false)), [4, 2, 1, 5, 3])
        // Ties keep their previous (insertion) order.
        XCTAssertEqual(try ids(all.sorted(byKeyPath: "name")), [2, 4, 1, 5, 3])
        // Nil sorts first ascending.
        XCTAssertEqual(try ids(all.sorted(byKeyPath: "rating")), [1, 4, 3, 2, 5])
    }

    func testSortedOnSeveralKeys() throws {
        try seed()
        let all = try realm.objects("Item")
        let sorted = try all.sorted(by: [
            SortDescriptor(keyPath: "score", ascending: false), SortDescriptor(keyPath: "name"),
        ])
        XCTAssertEqual(try ids(sorted), [1, 3, 4, 2, 5])
        // A later sort is a stable re-sort: its keys come first, the earlier ones break ties.
        let resorted = try all.sorted(byKeyPath: "weight").sorted(byKeyPath: "name")
        XCTAssertEqual(try ids(resorted), [2, 4, 1, 5, 3])
        let byNameThenScore = try all.sorted(byKeyPath: "score").sorted(byKeyPath: "name", ascending: false)
        XCTAssertEqual(try ids(byNameThenScore), [3, 5, 1, 2, 4])
    }

    func testSortedThroughALink() throws {
        try seed()
        try realm.write {
            let zed = try realm.create("Person", value: ["name": "Zed"])
            let amy = try realm.create("Person", value: ["name": "Amy"])
            try realm.object(ofType: "Item", forPrimaryKey: 1)!.setValue(.object(zed), forKey: "owner")
            try realm.object(ofType: "Item", forPrimaryKey: 2)!.setValue(.object(amy), forKey: "owner")
            try realm.object(ofType: "Item", forPrimaryKey: 3)!.setValue(.object(zed), forKey: "owner")
        }
        let sorted = try realm.objects("Item").sorted(by: [
            SortDescriptor(keyPath: "owner.name"), SortDescriptor(keyPath: "id", ascending: false),
        ])
        XCTAssertEqual(try ids(sorted), [5, 4, 2, 3, 1])
    }

    /// Two hops: `next.next.name` nests one scalar subquery per link, the last link innermost.
    /// Nodes 1 → 2 → 3 → 4 → 1 named w, z, x, y: sorted by their own, next and next-but-one
    /// names the orders all differ.
    func testSortedThroughTwoLinks() throws {
        var config = Realm.Configuration(fileURL: fileURL("chain"))
        config.schema = Schema([
            ObjectSchema(
                className: "Node",
                properties: [
                    Property(name: "id", type: .int, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                    Property(name: "next", type: .object, objectClassName: "Node"),
                ])
        ])
        let chain = try Realm(configuration: config)
        try chain.write {
            let nodes = try [(1, "w"), (2, "z"), (3, "x"), (4, "y")].map { id, name in
                try chain.create("Node", value: ["id": .int(Int64(id)), "name": .string(name)])
            }
            for (i, node) in nodes.enumerated() {
                try node.setValue(.object(nodes[(i + 1) % nodes.count]), forKey: "next")
            }
        }
        let all = try chain.objects("Node")
        XCTAssertEqual(try ids(all.sorted(byKeyPath: "name")), [1, 3, 4, 2])
        XCTAssertEqual(try ids(all.sorted(byKeyPath: "next.name")), [4, 2, 3, 1])
        XCTAssertEqual(try ids(all.sorted(byKeyPath: "next.next.name")), [3, 1, 2, 4])
        XCTAssertEqual(try ids(all.sorted(byKeyPath: "next.next.name", ascending: false)), [4, 2, 1, 3])
    }

    func testSortAndDistinctNameTheUnknownProperty() throws {
        let all = try realm.objects("Item")
        // RealmSwift's wording (RealmCollectionTypeTests `testSortWithProperty`, issue 13).
        assertRealmError(
            try all.sorted(byKeyPath: "nope"), "Cannot sort on key path 'nope': property 'Item.nope' does not exist.")
        assertRealmError(
            try all.distinct(by: ["nope"]),
            "Cannot distinct on key path 'nope': property 'Item.nope' does not exist.")
        assertRealmError(
            try all.sorted(byKeyPath: "owner.nope"),
            "Cannot sort on key path 'owner.nope': property 'Person.nope' does not exist.")
        assertRealmError(
            try realm.objects("Person").sorted(byKeyPath: "items"), code: .invalidProperty, containing: ["items"])
    }

    func testDistinct() throws {
        try seed()
        let all = try realm.objects("Item")
        XCTAssertEqual(try ids(all.distinct(by: ["name"])), [1, 2, 3], "the first object of each name, in order")
        XCTAssertEqual(try all.distinct(by: ["name"]).countObjects(), 3)
        XCTAssertEqual(try ids(all.distinct(by: ["name", "score"])), [1, 2, 3, 4, 5])
        XCTAssertEqual(try ids(all.distinct(by: ["score"])), [1, 2, 4])
        // Distinct keeps the first in the current order.
        XCTAssertEqual(try ids(all.sorted(byKeyPath: "weight", ascending: false).distinct(by: ["name"])), [4, 1, 3])
        // And stays live.
        let distinct = try all.distinct(by: ["name"])
        try realm.write { try realm.create("Item", value: ["id": 6, "name": "d"]) }
        XCTAssertEqual(try ids(distinct), [1, 2, 3, 6])
    }

    func testResultsOfAListKeepListOrder() throws {
        try seed()
        let person = try realm.write { try realm.create("Person", value: ["name": "p"]) }
        let items = try person.dynamicList("items")
        try realm.write {
            for id in [4, 1, 5] as [Int64] {
                try items.append(.object(try realm.object(ofType: "Item", forPrimaryKey: .int(id))!))
            }
        }
        let results = try items.asResults()
        XCTAssertEqual(try ids(results), [4, 1, 5])
        XCTAssertEqual(try ids(results.sorted(byKeyPath: "id")), [1, 4, 5])
        XCTAssertEqual(try results.sum(ofProperty: "score"), 6)
        try realm.write { try items.move(from: 2, to: 0) }
        XCTAssertEqual(try ids(results), [5, 4, 1])
    }

    // MARK: Aggregates

    func testAggregatesOfIntAndDouble() throws {
        try seed()
        let all = try realm.objects("Item")
        XCTAssertEqual(try all.min(ofProperty: "score"), 1)
        XCTAssertEqual(try all.max(ofProperty: "score"), 3)
        XCTAssertEqual(try all.sum(ofProperty: "score"), .int(10))
        XCTAssertEqual(try all.average(ofProperty: "score"), .double(2))
        XCTAssertEqual(try all.min(ofProperty: "weight"), .double(0.5))
        XCTAssertEqual(try all.max(ofProperty: "weight"), .double(4))
        XCTAssertEqual(try all.sum(ofProperty: "weight"), .double(10))
        XCTAssertEqual(try all.average(ofProperty: "weight"), .double(2))
        // Nils are ignored.
        XCTAssertEqual(try all.min(ofProperty: "rating"), .double(2))
        XCTAssertEqual(try all.sum(ofProperty: "rating"), .double(11))
        XCTAssertEqual(try all.average(ofProperty: "rating")?.numericValue ?? 0, 11.0 / 3.0, accuracy: 1e-12)
        // Over filtered and distinct results.
        let a = try all.filter("name == $0", "a")
        XCTAssertEqual(try a.sum(ofProperty: "score"), .int(3))
        XCTAssertEqual(try all.distinct(by: ["name"]).sum(ofProperty: "score"), .int(7))
    }

    func testAggregatesOfNothing() throws {
        let none = try realm.objects("Item")
        XCTAssertNil(try none.min(ofProperty: "score"))
        XCTAssertNil(try none.max(ofProperty: "weight"))
        XCTAssertEqual(try none.sum(ofProperty: "score"), .int(0))
        XCTAssertEqual(try none.sum(ofProperty: "weight"), .double(0))
        XCTAssertNil(try none.average(ofProperty: "score"))
        try seed()
        let onlyNil = try none.filter("id == $0", 1)
        XCTAssertNil(try onlyNil.min(ofProperty: "rating"))
        XCTAssertNil(try onlyNil.average(ofProperty: "rating"))
        XCTAssertEqual(try onlyNil.sum(ofProperty: "rating"), .double(0))
    }

    func testAggregatesOfOtherTypes() throws {
        let typed = try Realm(configuration: allTypesConfig())
        let dates = [
            Timestamp(seconds: 100, nanoseconds: 5)!, Timestamp(seconds: -50, nanoseconds: 0)!,
            Timestamp(seconds: 100, nanoseconds: 7)!,
        ]
        let decimals = ["1.25", "10.5", "-3.125"].map { Decimal128(string: $0)! }
        let floats: [Float] = [1.5, -2.25, 8]
        try typed.write {
            for i in 0..<3 {
                try typed.create(
                    "AllTypes",
                    value: [
                        "pk": .int(Int64(i)), "date": .date(dates[i]), "decimal128": .decimal128(decimals[i]),
                        "float": .float(floats[i]),
                    ])
            }
        }
        let all = try typed.objects("AllTypes")
        XCTAssertEqual(try all.min(ofProperty: "date"), .date(dates[1]))
        XCTAssertEqual(try all.max(ofProperty: "date"), .date(dates[2]))
        XCTAssertEqual(try all.min(ofProperty: "decimal128"), .decimal128(Decimal128(string: "-3.125")!))
        XCTAssertEqual(try all.max(ofProperty: "decimal128"), .decimal128(Decimal128(string: "10.5")!))
        XCTAssertEqual(try all.sum(ofProperty: "decimal128"), .decimal128(Decimal128(string: "8.625")!))
        XCTAssertEqual(try all.min(ofProperty: "float"), .float(-2.25))
        XCTAssertEqual(try all.sum(ofProperty: "float"), .float(7.25))
        assertRealmError(try all.sum(ofProperty: "date"), code: .invalidProperty, containing: ["AllTypes.date"])
        assertRealmError(try all.min(ofProperty: "string"), code: .invalidProperty, containing: ["AllTypes.string"])
        assertRealmError(try all.average(ofProperty: "list_int"), code: .invalidProperty)
    }

    func testDecimalAggregatesAreExact() throws {
        let typed = try Realm(configuration: allTypesConfig())
        let values = ["12345678901234567890.12345", "0.1", "0.2"].map { Decimal128(string: $0)! }
        try typed.write {
            for (i, d) in values.enumerated() {
                try typed.create("AllTypes", value: ["pk": .int(Int64(i)), "decimal128": .decimal128(d)])
            }
        }
        let all = try typed.objects("AllTypes")
        XCTAssertEqual(try all.max(ofProperty: "decimal128"), .decimal128(values[0]))
        XCTAssertEqual(try all.min(ofProperty: "decimal128"), .decimal128(values[1]))
        XCTAssertEqual(
            try all.sum(ofProperty: "decimal128"), .decimal128(Decimal128(string: "12345678901234567890.42345")!))
        XCTAssertEqual(
            try all.average(ofProperty: "decimal128"), .decimal128(Decimal128(string: "4115226300411522630.14115")!))
        XCTAssertNil(try all.filter("pk == $0", 99).average(ofProperty: "decimal128"))
        XCTAssertNil(try all.filter("pk == $0", 99).max(ofProperty: "decimal128"))
    }
}
