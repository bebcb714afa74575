import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync

/// Dog { _id: int (pk), age: int, breed: string?, name: string, weight: double, born: date,
/// vaccinated: bool, chip: uuid, tag: objectId, price: decimal128, photo: data, score: float,
/// owner: Person?, toys: string[], extra: mixed, color: string (not queryable) }.
enum ViewTestSchema {
    static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Dog",
                properties: [
                    Property(name: "_id", type: .int),
                    Property(name: "age", type: .int),
                    Property(name: "breed", type: .string, isOptional: true),
                    Property(name: "name", type: .string),
                    Property(name: "weight", type: .double),
                    Property(name: "born", type: .date),
                    Property(name: "vaccinated", type: .bool),
                    Property(name: "chip", type: .uuid),
                    Property(name: "tag", type: .objectId),
                    Property(name: "price", type: .decimal128),
                    Property(name: "photo", type: .data),
                    Property(name: "score", type: .float),
                    Property(name: "owner", type: .object, objectClassName: "Person"),
                    Property(name: "toys", type: .string, collection: .list),
                    Property(name: "extra", type: .mixed),
                    Property(name: "color", type: .string),
                ], primaryKey: "_id"),
            ObjectSchema(
                className: "Person",
                properties: [Property(name: "_id", type: .string), Property(name: "name", type: .string)],
                primaryKey: "_id"),
            ObjectSchema(className: "Collar", properties: [Property(name: "size", type: .int)], isEmbedded: true),
            ObjectSchema(className: "Note", properties: [Property(name: "text", type: .string)]),
        ])
    }

    static let queryable: Set<String> = [
        "age", "breed", "name", "weight", "born", "vaccinated", "chip", "tag", "price", "photo", "score", "owner",
        "toys", "extra",
    ]
}

final class ViewQueryCompilerTests: XCTestCase {
    private func compile(_ query: String, allowsUser: Bool = false) throws -> ViewPredicate {
        try ViewQueryCompiler.compile(
            query, className: "Dog", schema: ViewTestSchema.schema, queryable: ViewTestSchema.queryable,
            allowsUser: allowsUser)
    }

    private func cmp(_ field: String, _ op: ViewComparison, _ value: SyncValue, c: Bool = false) -> ViewPredicate {
        .compare(field: field, op, .value(value), caseInsensitive: c)
    }

    func testAcceptedQueriesCompileToThePredicate() throws {
        let date = try XCTUnwrap(Timestamp(seconds: 1_577_836_800, nanoseconds: 0))
        let uuid = try XCTUnwrap(UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962"))
        let oid = try XCTUnwrap(ObjectId(string: "5f0f1e2d3c4b5a6978879605"))
        let cases: [(String, ViewPredicate)] = [
            ("age == 3", cmp("age", .equal, .int(3))),
            ("age != 3", cmp("age", .notEqual, .int(3))),
            ("age < 3", cmp("age", .less, .int(3))),
            ("age <= 3", cmp("age", .lessEqual, .int(3))),
            ("age > 3", cmp("age", .greater, .int(3))),
            ("age >= 3", cmp("age", .greaterEqual, .int(3))),
            ("3 < age", cmp("age", .greater, .int(3))),
            ("3 == age", cmp("age", .equal, .int(3))),
            ("_id == 7", cmp("_id", .equal, .int(7))),
            ("age > 2.5", cmp("age", .greater, .double(2.5))),
            (
                "weight BETWEEN {1, 2.5}",
                .and([cmp("weight", .greaterEqual, .int(1)), cmp("weight", .lessEqual, .double(2.5))])
            ),
            ("age IN {1, 2}", .or([cmp("age", .equal, .int(1)), cmp("age", .equal, .int(2))])),
            ("age IN {1, 'x'}", .or([cmp("age", .equal, .int(1)), .constant(false)])),
            ("name IN[c] {'a'}", .or([cmp("name", .equal, .string("a"), c: true)])),
            ("name BEGINSWITH 'a'", cmp("name", .beginsWith, .string("a"))),
            ("name ENDSWITH[c] 'a'", cmp("name", .endsWith, .string("a"), c: true)),
            ("name CONTAINS 'a'", cmp("name", .contains, .string("a"))),
            ("name LIKE 'a*?'", cmp("name", .like, .string("a*?"))),
            ("name ==[c] 'Ä'", cmp("name", .equal, .string("Ä"), c: true)),
            ("name !=[c] 'Ä'", cmp("name", .notEqual, .string("Ä"), c: true)),
            ("breed == nil", cmp("breed", .equal, .null)),
            ("breed = null", cmp("breed", .equal, .null)),
            ("vaccinated == true", cmp("vaccinated", .equal, .bool(true))),
            ("born > 2020-01-01@00:00:00", cmp("born", .greater, .date(date))),
            ("chip == uuid(3B241101-E2BB-4255-8CAF-4136C566A962)", cmp("chip", .equal, .uuid(uuid))),
            ("tag == oid(5f0f1e2d3c4b5a6978879605)", cmp("tag", .equal, .objectId(oid))),
            ("price < 1.25", cmp("price", .less, .decimal(try XCTUnwrap(Decimal128(string: "1.25"))))),
            ("price < 2", cmp("price", .less, .decimal(Decimal128(Int64(2))))),
            ("score > 0.1", cmp("score", .greater, .float(0.1))),
            ("weight > 0.1f", cmp("weight", .greater, .float(0.1))),
            ("weight > -inf", cmp("weight", .greater, .double(-.infinity))),
            ("photo == 'ab'", cmp("photo", .equal, .data(Data("ab".utf8)))),
            ("TRUEPREDICATE", .constant(true)),
            ("FALSEPREDICATE", .constant(false)),
            ("age == 1 AND name == 'x'", .and([cmp("age", .equal, .int(1)), cmp("name", .equal, .string("x"))])),
            ("age == 1 && name == 'x'", .and([cmp("age", .equal, .int(1)), cmp("name", .equal, .string("x"))])),
            ("age == 1 OR age == 2", .or([cmp("age", .equal, .int(1)), cmp("age", .equal, .int(2))])),
            ("age == 1 || age == 2", .or([cmp("age", .equal, .int(1)), cmp("age", .equal, .int(2))])),
            ("NOT age == 1", .not(cmp("age", .equal, .int(1)))),
            ("!(age == 1)", .not(cmp("age", .equal, .int(1)))),
        ]
        for (query, expected) in cases {
            XCTAssertEqual(try compile(query), expected, query)
        }
    }

    func testWeightNaNCompilesToANaNConstant() throws {
        guard case .compare("weight", .notEqual, .value(.double(let d)), false) = try compile("weight != nan") else {
            return XCTFail("weight != nan")
        }
        XCTAssertTrue(d.isNaN)
    }

    func testUserIsAcceptedInRulesOnly() throws {
        XCTAssertEqual(
            try compile("name == $user", allowsUser: true),
            .compare(field: "name", .equal, .user, caseInsensitive: false))
        XCTAssertEqual(
            try compile("$user == name", allowsUser: true),
            .compare(field: "name", .equal, .user, caseInsensitive: false))
        assertRefused(
            "name == $user", column: 9, "'$user' is only allowed in sync rules, not in subscriptions")
        assertRefused(
            "age == $user", column: 5, "Unsupported comparison between type 'int' and type 'string'", allowsUser: true)
    }

    private func assertRefused(
        _ query: String, column: Int, _ detail: String, allowsUser: Bool = false, line: UInt = #line
    ) {
        XCTAssertThrowsError(try compile(query, allowsUser: allowsUser), query, line: line) { error in
            guard let error = error as? SyncError else { return XCTFail("\(error)", line: line) }
            XCTAssertEqual(error.code, .badQuery, query, line: line)
            XCTAssertEqual(error.message, "Invalid query '\(query)' at column \(column): \(detail)", line: line)
        }
    }

    func testRefusedQueriesNameThePart() {
        let s = "subscriptions"
        let cases: [(String, Int, String)] = [
            ("owner.name == 'x'", 1, "link paths are not supported in \(s): 'owner.name'"),
            (
                "color == 'red'", 1,
                "'color' is not a queryable field of 'Dog' (queryable: _id, age, born, breed, chip, extra, name, owner, photo, "
                    + "price, score, tag, toys, vaccinated, weight)"
            ),
            ("colour == 'red'", 1, "No property 'colour' found on object type 'Dog'"),
            ("owner == nil", 1, "link fields are not supported in \(s): 'owner'"),
            ("toys == 'ball'", 1, "list, set and map fields are not supported in \(s): 'toys'"),
            ("extra == 1", 1, "mixed fields are not supported in \(s): 'extra'"),
            (
                "toys.@count > 1", 6,
                "collection operators (@count, @size, @sum, @avg, @min, @max, @keys, @values, @type) are not supported in "
                    + "\(s): 'toys.@count'"
            ),
            ("toys[FIRST] == 'a'", 5, "list, set and map fields are not supported in \(s): 'toys[FIRST]'"),
            ("ANY toys == 'a'", 5, "'ANY' quantifiers are not supported in \(s)"),
            ("ALL toys == 'a'", 5, "'ALL' quantifiers are not supported in \(s)"),
            ("NONE toys == 'a'", 6, "'NONE' quantifiers are not supported in \(s)"),
            ("SUBQUERY(toys, $t, $t == 'a').@count > 0", 1, "SUBQUERY expressions are not supported in \(s)"),
            ("age + 1 > 2", 5, "arithmetic operators (+ - * /) are not supported in \(s)"),
            (
                "@links.Person.dogs.@count > 0", 1,
                "backlinks (@links) are not supported in \(s): '@links.Person.dogs.@count'"
            ),
            ("age == weight", 5, "comparing two fields is not supported in \(s): 'age' and 'weight'"),
            ("name ==[d] 'a'", 6, "'[d]' (diacritic-insensitive) comparisons are not supported in \(s)"),
            ("name CONTAINS[cd] 'a'", 6, "'[cd]' (diacritic-insensitive) comparisons are not supported in \(s)"),
            ("age > 1 SORT(age ASC)", 9, "SORT, DISTINCT and LIMIT are not supported in \(s)"),
            ("age > 1 LIMIT(2)", 9, "SORT, DISTINCT and LIMIT are not supported in \(s)"),
            ("age == $0", 8, "arguments such as '$0' are not supported in \(s): queries travel as text"),
            ("age == 'x'", 5, "Unsupported comparison between type 'int' and type 'string'"),
            ("name > 3", 6, "Unsupported comparison between type 'string' and type 'int'"),
            ("vaccinated == 1", 12, "Unsupported comparison between type 'bool' and type 'int'"),
            ("name == nan", 6, "Unsupported comparison between type 'string' and type 'double'"),
            ("age == inf", 8, "Infinity not supported for int"),
            (
                "age BEGINSWITH 'a'", 5,
                "Unsupported comparison operator 'BEGINSWITH' for 'age' of type 'int': it applies to strings and binary data"
            ),
            (
                "name CONTAINS 3", 6,
                "Unsupported comparison operator 'CONTAINS' for 3 of type 'int': it applies to strings and binary data"
            ),
            (
                "age ==[c] 3", 5,
                "Unsupported comparison '==[c]' between type 'int' and type 'int': '[c]' applies to strings"
            ),
            ("name <[c] 'a'", 7, "'<' does not take a '[c]' or '[d]' modifier"),
            ("'a' BEGINSWITH name", 5, "the field must be on the left of 'BEGINSWITH' in \(s)"),
            ("1 == 1", 3, "a comparison in \(s) must name a field"),
            ("age == {1, 2}", 8, "a list {…} can only follow IN or BETWEEN in \(s)"),
            ("age BETWEEN {1}", 13, "BETWEEN needs a list of two values: {low, high}"),
            ("$x == 1", 1, "the only variable of \(s) is '$user'; found '$x'"),
            ("age ==", 7, "expected a value after '==', found end of query"),
        ]
        for (query, column, detail) in cases {
            assertRefused(query, column: column, detail)
        }
    }

    func testUnknownClassIsRefused() {
        XCTAssertThrowsError(
            try ViewQueryCompiler.compile(
                "a == 1", className: "Cat", schema: ViewTestSchema.schema, queryable: [], allowsUser: false)
        ) { error in
            XCTAssertEqual((error as? SyncError)?.message, "unknown class 'Cat'")
        }
    }
}
