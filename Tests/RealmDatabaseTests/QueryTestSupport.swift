import Foundation
import XCTest

@testable import RealmDatabase

/// The data set of the query conformance suite: people with every property type, dogs, toys and
/// addresses, linked through to-one links, lists, sets, dictionaries and backlinks.
///
/// People (in creation order):
///
/// | name   | nick  | age | score | height | ratio | balance | active | flag  | born                | any        |
/// |--------|-------|-----|-------|--------|-------|---------|--------|-------|---------------------|------------|
/// | Alice  | Ally  | 30  | 10    | 1.70   | 0.5   | 10.50   | true   | true  | 2020-01-01 00:00:00 | int 5      |
/// | Bob    | nil   | 25  | nil   | nil    | nil   | nil     | false  | nil   | nil                 | string "5" |
/// | carol  | Caz   | 35  | 30    | 1.80   | 1.5   | 99.99   | true   | false | 1999-12-31 23:59:59 | double 5.0 |
/// | Émile  | émi   | 40  | 40    | 1.60   | 2.25  | 100     | false  | true  | 2021-06-15 12:30:00 | bool true  |
/// | dave   | DAVE  | 30  | 20    | 1.70   | 0.5   | 10.5    | true   | nil   | 2020-01-01 00:00:00 | nil        |
/// | Zed    | zed*? | 18  | 0     | 0      | 0     | 0       | false  | false | 1970-01-01 00:00:00 | decimal 5  |
///
/// Collections and links:
///
/// | name  | tags       | nums    | doubles  | decs     | mixes          | tagSet |
/// |-------|------------|---------|----------|----------|----------------|--------|
/// | Alice | red, green | 1, 2, 3 | 1.5, 2.5 | 1.1, 2.2 | 1, "one", true | x, y   |
/// | Bob   | –          | –       | –        | –        | –              | –      |
/// | carol | Blue, red  | nil, 5  | 3        | 10       | 2.5, nil       | y      |
/// | Émile | ÉCOLE      | 10, 20  | –        | –        | "École"        | –      |
/// | dave  | green      | 3       | 0.5      | 0.5      | 5              | x      |
/// | Zed   | *, ?       | 0       | –        | –        | –              | –      |
///
/// | name  | attrs                  | counts     | friend | dogs             | address | petMap          |
/// |-------|------------------------|------------|--------|------------------|---------|-----------------|
/// | Alice | eye: blue, hair: brown | a: 1, b: 2 | Bob    | Rex, Fido        | Paris   | main: Rex       |
/// | Bob   | –                      | –          | nil    | –                | nil     | –               |
/// | carol | eye: green             | a: 5       | Alice  | Rex              | Lyon    | main: Fido      |
/// | Émile | –                      | –          | carol  | Spot, Fido, Spot | Paris2  | a: Spot, b: Rex |
/// | dave  | hair: black            | b: 7       | dave   | –                | nil     | –               |
/// | Zed   | –                      | –          | nil    | Lonely           | Lyon    | –               |
///
/// Dogs: Rex (age 3, breed lab, weight 30.5, mood "happy", toys ball), Fido (5, nil, 10, mood 7,
/// no toys), Spot (1, pug, 8.25, mood nil, toys ball, bone), Lonely (10, lab, 40, mood 2.5, no toys, walked by Zed).
/// Toys: ball 2.5, bone 5. Addresses: Paris (zip 75001, "Rue A"), Lyon (69001, nil), Paris2 ("Paris", nil, "Rue B").
enum QueryFixture {
    static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "name", type: .string, isIndexed: true),
                    Property(name: "nick", type: .string, isOptional: true),
                    Property(name: "age", type: .int, isIndexed: true),
                    Property(name: "score", type: .int, isOptional: true),
                    Property(name: "height", type: .double, isOptional: true),
                    Property(name: "ratio", type: .float, isOptional: true),
                    Property(name: "balance", type: .decimal128, isOptional: true),
                    Property(name: "active", type: .bool),
                    Property(name: "flag", type: .bool, isOptional: true),
                    Property(name: "born", type: .date, isOptional: true),
                    Property(name: "oid", type: .objectId, isOptional: true),
                    Property(name: "uid", type: .uuid, isOptional: true),
                    Property(name: "blob", type: .data, isOptional: true),
                    Property(name: "any", type: .mixed),
                    Property(name: "tags", type: .string, collection: .list),
                    Property(name: "nums", type: .int, isOptional: true, collection: .list),
                    Property(name: "doubles", type: .double, collection: .list),
                    Property(name: "decs", type: .decimal128, collection: .list),
                    Property(name: "mixes", type: .mixed, collection: .list),
                    Property(name: "tagSet", type: .string, collection: .set),
                    Property(name: "attrs", type: .string, collection: .map),
                    Property(name: "counts", type: .int, collection: .map),
                    Property(name: "friend", type: .object, objectClassName: "Person"),
                    Property(name: "dogs", type: .object, objectClassName: "Dog", collection: .list),
                    Property(name: "address", type: .object, objectClassName: "Address"),
                    Property(name: "petMap", type: .object, objectClassName: "Dog", collection: .map),
                    Property(
                        name: "friendOf", type: .linkingObjects, objectClassName: "Person",
                        linkOriginPropertyName: "friend"),
                ]),
            ObjectSchema(
                className: "Dog",
                properties: [
                    Property(name: "name", type: .string),
                    Property(name: "age", type: .int),
                    Property(name: "breed", type: .string, isOptional: true),
                    Property(name: "weight", type: .double),
                    Property(name: "mood", type: .mixed),
                    Property(name: "toys", type: .object, objectClassName: "Toy", collection: .list),
                    Property(
                        name: "walkers", type: .linkingObjects, objectClassName: "Person",
                        linkOriginPropertyName: "dogs"),
                ]),
            ObjectSchema(
                className: "Toy",
                properties: [
                    Property(name: "name", type: .string),
                    Property(name: "price", type: .double),
                ]),
            ObjectSchema(
                className: "Address",
                properties: [
                    Property(name: "city", type: .string),
                    Property(name: "zip", type: .int, isOptional: true),
                    Property(name: "street", type: .string, isOptional: true),
                ]),
        ])
    }

    static func date(_ iso: String) -> RealmValue { .date(Timestamp(iso8601: iso)!) }
    static func dec(_ s: String) -> RealmValue { .decimal128(Decimal128(string: s)!) }
    static func oid(_ last: Int) -> ObjectId { ObjectId(string: String(format: "6000000000000000000000%02x", last))! }
    static func uuid(_ last: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-0000-0000-0000000000%02x", last))!
    }

    /// Opens a fresh in-memory realm with the data set.
    static func makeRealm(_ id: String = UUID().uuidString) throws -> Realm {
        var config = Realm.Configuration(inMemoryIdentifier: "query-\(id)")
        config.schema = schema
        let realm = try Realm(configuration: config)
        try realm.write {
            let ball = try realm.create("Toy", value: ["name": "ball", "price": 2.5])
            let bone = try realm.create("Toy", value: ["name": "bone", "price": 5.0])
            let rex = try realm.create(
                "Dog",
                value: [
                    "name": "Rex", "age": 3, "breed": "lab", "weight": 30.5, "mood": "happy", "toys": [.object(ball)],
                ])
            let fido = try realm.create(
                "Dog", value: ["name": "Fido", "age": 5, "breed": nil, "weight": 10.0, "mood": 7])
            let spot = try realm.create(
                "Dog",
                value: [
                    "name": "Spot", "age": 1, "breed": "pug", "weight": 8.25, "mood": nil,
                    "toys": [.object(ball), .object(bone)],
                ])
            _ = try realm.create(
                "Dog", value: ["name": "Lonely", "age": 10, "breed": "lab", "weight": 40.0, "mood": 2.5])
            let lonely = try realm.objects("Dog").filter("name == 'Lonely'")[0]
            let paris = try realm.create("Address", value: ["city": "Paris", "zip": 75001, "street": "Rue A"])
            let lyon = try realm.create("Address", value: ["city": "Lyon", "zip": 69001, "street": nil])
            let paris2 = try realm.create("Address", value: ["city": "Paris", "zip": nil, "street": "Rue B"])

            let alice = try realm.create(
                "Person",
                value: [
                    "name": "Alice", "nick": "Ally", "age": 30, "score": 10, "height": 1.70, "ratio": .float(0.5),
                    "balance": dec("10.50"),
                    "active": true, "flag": true, "born": date("2020-01-01T00:00:00Z"), "oid": .objectId(oid(1)),
                    "uid": .uuid(uuid(1)),
                    "blob": .data(Data("abc".utf8)), "any": 5, "tags": ["red", "green"], "nums": [1, 2, 3],
                    "doubles": [1.5, 2.5],
                    "decs": [dec("1.1"), dec("2.2")], "mixes": [1, "one", true], "tagSet": ["x", "y"],
                    "attrs": ["eye": "blue", "hair": "brown"], "counts": ["a": 1, "b": 2],
                    "dogs": [.object(rex), .object(fido)], "address": .object(paris), "petMap": ["main": .object(rex)],
                ])
            let bob = try realm.create(
                "Person",
                value: [
                    "name": "Bob", "age": 25, "active": false, "any": "5",
                ])
            let carol = try realm.create(
                "Person",
                value: [
                    "name": "carol", "nick": "Caz", "age": 35, "score": 30, "height": 1.80, "ratio": .float(1.5),
                    "balance": dec("99.99"),
                    "active": true, "flag": false, "born": date("1999-12-31T23:59:59Z"), "oid": .objectId(oid(2)),
                    "uid": .uuid(uuid(2)),
                    "blob": .data(Data("xyz".utf8)), "any": .double(5.0), "tags": ["Blue", "red"], "nums": [nil, 5],
                    "doubles": [3.0],
                    "decs": [dec("10")], "mixes": [2.5, nil], "tagSet": ["y"], "attrs": ["eye": "green"],
                    "counts": ["a": 5],
                    "friend": .object(alice), "dogs": [.object(rex)], "address": .object(lyon),
                    "petMap": ["main": .object(fido)],
                ])
            let emile = try realm.create(
                "Person",
                value: [
                    "name": "Émile", "nick": "émi", "age": 40, "score": 40, "height": 1.60, "ratio": .float(2.25),
                    "balance": dec("100"),
                    "active": false, "flag": true, "born": date("2021-06-15T12:30:00Z"), "oid": .objectId(oid(3)),
                    "uid": .uuid(uuid(3)),
                    "blob": .data(Data("ab".utf8)), "any": true, "tags": ["ÉCOLE"], "nums": [10, 20],
                    "mixes": ["École"],
                    "friend": .object(carol), "dogs": [.object(spot), .object(fido), .object(spot)],
                    "address": .object(paris2),
                    "petMap": ["a": .object(spot), "b": .object(rex)],
                ])
            let dave = try realm.create(
                "Person",
                value: [
                    "name": "dave", "nick": "DAVE", "age": 30, "score": 20, "height": 1.70, "ratio": .float(0.5),
                    "balance": dec("10.5"),
                    "active": true, "born": date("2020-01-01T00:00:00Z"), "oid": .objectId(oid(4)),
                    "uid": .uuid(uuid(4)),
                    "blob": .data(Data()), "any": nil, "tags": ["green"], "nums": [3], "doubles": [0.5],
                    "decs": [dec("0.5")],
                    "mixes": [5], "tagSet": ["x"], "attrs": ["hair": "black"], "counts": ["b": 7],
                ])
            try dave.setValue(.object(dave), forKey: "friend")
            _ = try realm.create(
                "Person",
                value: [
                    "name": "Zed", "nick": "zed*?", "age": 18, "score": 0, "height": 0.0, "ratio": .float(0),
                    "balance": dec("0"),
                    "active": false, "flag": false, "born": date("1970-01-01T00:00:00Z"), "oid": .objectId(oid(5)),
                    "uid": .uuid(uuid(5)),
                    "blob": .data(Data("zzz".utf8)), "any": dec("5"), "tags": ["*", "?"], "nums": [0],
                    "dogs": [.object(lonely)], "address": .object(lyon),
                ])
            try alice.setValue(.object(bob), forKey: "friend")
            _ = emile
        }
        return realm
    }
}

/// One case of the table-driven conformance suite.
struct QueryCase {
    var query: String
    var args: [RealmValue]
    /// Names of the matching objects (sorted unless `ordered`).
    var expected: [String]
    var ordered: Bool
    var className: String
    var line: UInt

    init(
        _ query: String, _ expected: [String], args: [RealmValue] = [], ordered: Bool = false,
        on className: String = "Person", line: UInt = #line
    ) {
        self.query = query
        self.args = args
        self.expected = expected
        self.ordered = ordered
        self.className = className
        self.line = line
    }
}

extension XCTestCase {
    /// Runs every case against the realm; reports each mismatch with its query.
    func run(_ cases: [QueryCase], in realm: Realm, file: StaticString = #filePath) {
        for c in cases {
            do {
                let results = try realm.objects(c.className).filter(c.query, arguments: c.args)
                var names = try results.map { obj -> String in
                    let key = obj.objectSchema?["name"] != nil ? "name" : "city"
                    guard case .string(let s) = try obj[key] else { return "?" }
                    return s
                }
                var expected = c.expected
                if !c.ordered {
                    names.sort()
                    expected.sort()
                }
                XCTAssertEqual(names, expected, "query: \(c.query)", file: file, line: c.line)
            } catch {
                XCTFail("query: \(c.query) threw \(error)", file: file, line: c.line)
            }
        }
    }
}
