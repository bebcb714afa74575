import Foundation
import XCTest

@testable import RealmDatabase

/// Object literals (`obj('Class', pk)`, `O<key>`), links held in mixed values, binary literals,
/// and the query language used through `Results.where`.
final class QueryFeatureTests: XCTestCase {
    static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Owner",
                properties: [
                    Property(name: "code", type: .string, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                    Property(name: "items", type: .object, objectClassName: "Item", collection: .list),
                ]),
            ObjectSchema(
                className: "Item",
                properties: [
                    Property(name: "id", type: .int, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                    Property(name: "owner", type: .object, objectClassName: "Owner"),
                    Property(name: "payload", type: .data, isOptional: true),
                    Property(name: "extra", type: .mixed),
                    Property(name: "labels", type: .string, collection: .set),
                ]),
        ])
    }

    func makeRealm() throws -> Realm {
        var config = Realm.Configuration(inMemoryIdentifier: "query-features-\(UUID().uuidString)")
        config.schema = Self.schema
        let realm = try Realm(configuration: config)
        try realm.write {
            let a = try realm.create("Owner", value: ["code": "A", "name": "Ann"])
            let b = try realm.create("Owner", value: ["code": "B", "name": "Ben"])
            let i1 = try realm.create(
                "Item",
                value: [
                    "id": 1, "name": "one", "owner": .object(a), "payload": .data(Data("abc".utf8)),
                    "extra": .object(b), "labels": ["x"],
                ])
            let i2 = try realm.create(
                "Item",
                value: ["id": 2, "name": "two", "owner": .object(b), "payload": nil, "extra": 2, "labels": ["x", "y"]])
            _ = try realm.create("Item", value: ["id": 3, "name": "three", "extra": .object(a)])
            try a.dynamicList("items").append(.object(i1))
            try a.dynamicList("items").append(.object(i2))
        }
        return realm
    }

    func testObjectLiteralsAndMixedLinks() throws {
        let realm = try makeRealm()
        let a = try realm.objects("Owner").filter("code == 'A'")[0]
        let b = try realm.objects("Owner").filter("code == 'B'")[0]
        let keyA = try XCTUnwrap(a.objectKey)
        run(
            [
                QueryCase("owner == obj('Owner', 'A')", ["one"], on: "Item"),
                QueryCase("owner != obj('Owner', 'B')", ["one", "three"], on: "Item"),
                QueryCase("owner == O\(keyA)", ["one"], on: "Item"),
                QueryCase("extra == $0", ["one"], args: [.object(b)], on: "Item"),
                QueryCase("extra != $0", ["two", "three"], args: [.object(b)], on: "Item"),
                QueryCase("extra.@type == 'object'", ["one", "three"], on: "Item"),
                QueryCase("extra.@type == 'link'", ["one", "three"], on: "Item"),
                QueryCase("payload == bin('abc')", ["one"], on: "Item"),
                QueryCase("payload CONTAINS B64\"Yg==\"", ["one"], on: "Item"),
                QueryCase("ANY labels == 'y'", ["two"], on: "Item"),
                QueryCase("labels.@count == 0", ["three"], on: "Item"),
                // Backlinks from a to-one link, a list, and a link held in a mixed value.
                // Ann: Item one's owner and Item three's mixed `extra`; Ben: Item two's owner and Item one's `extra`.
                QueryCase("@links.@count == 2", ["Ann", "Ben"], on: "Owner"),
                QueryCase("@links.Item.owner.@count == 1", ["Ann", "Ben"], on: "Owner"),
                QueryCase("ANY items.id == 2", ["Ann"], on: "Owner"),
                QueryCase("@links.Owner.items.@count == 1", ["one", "two"], on: "Item"),
                QueryCase("ANY @links.Owner.items.code == 'A' AND owner.code == 'B'", ["two"], on: "Item"),
            ], in: realm)
    }

    func testResultsWhereAndChainedFilters() throws {
        let realm = try makeRealm()
        let items = try realm.objects("Item").where("id > $0", 1)
        XCTAssertEqual(items.count, 2)
        let chained = try items.filter("name BEGINSWITH $0", "t").filter("owner == nil")
        XCTAssertEqual(chained.count, 1)
        XCTAssertEqual(try chained[0]["name"], "three")
        let sorted = try realm.objects("Item").filter("TRUEPREDICATE SORT(id DESC) LIMIT(2)")
        XCTAssertEqual(try sorted.map { try $0["id"] }, [3, 2])
        XCTAssertThrowsError(try realm.objects("Item").filter("owner == obj('Nope', 'A')")) { error in
            XCTAssertTrue("\(error)".contains("No class named 'Nope'"), "\(error)")
        }
        XCTAssertThrowsError(try realm.objects("Item").filter("owner == obj('Owner', 3)")) { error in
            XCTAssertTrue("\(error)".contains("primary key of 'Owner'"), "\(error)")
        }
    }

    /// A list-based Results (`owner.items`) filtered with a query: the predicate is self-contained.
    func testFilteringAListOfObjects() throws {
        let realm = try makeRealm()
        let a = try realm.objects("Owner").filter("code == 'A'")[0]
        let items = try a.dynamicList("items")
        let filtered = try items.filter("id > 1 AND ANY labels == 'y'")
        XCTAssertEqual(try filtered.map { try $0["name"] }, ["two"])
    }
}
