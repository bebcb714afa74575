import Foundation
import XCTest

@testable import RealmDatabase

/// Malformed queries, unknown properties, type mismatches and wrong arguments: each error says what
/// is wrong and where (`Invalid query '…' at column N: …`), and never crashes.
final class QueryErrorTests: XCTestCase {
    struct ErrorCase {
        var query: String
        var args: [RealmValue]
        var column: Int?
        var fragment: String
        var className: String
        var line: UInt

        init(
            _ query: String, args: [RealmValue] = [], column: Int?, _ fragment: String, on className: String = "Person",
            line: UInt = #line
        ) {
            self.query = query
            self.args = args
            self.column = column
            self.fragment = fragment
            self.className = className
            self.line = line
        }
    }

    static var cases: [ErrorCase] {
        [
            // Syntax.
            ErrorCase("", column: 1, "the query is empty"),
            ErrorCase("   ", column: 4, "the query is empty"),
            ErrorCase("age >", column: 6, "expected a value"),
            ErrorCase("age > 3 AND", column: 12, "expected a value or predicate, found end of query"),
            ErrorCase("(age > 3", column: 9, "expected ')'"),
            ErrorCase("age > 3)", column: 8, "unbalanced ')'"),
            ErrorCase("age", column: 4, "expected a comparison operator"),
            ErrorCase(
                "age 3", column: 5,
                "expected a comparison operator (==, !=, <, >, BEGINSWITH, IN, …) after 'age', found '3'"),
            ErrorCase("age > 3 &", column: 9, "invalid character '&'"),
            ErrorCase("age > 3 | age < 2", column: 9, "invalid character '|'"),
            ErrorCase("age >[c] 3", column: 6, "does not take a '[c]' or '[d]' modifier"),
            ErrorCase("name == 'abc", column: 9, "unterminated string literal"),
            ErrorCase("name == 'a\\qb'", column: 11, "invalid escape sequence '\\q'"),
            ErrorCase("name == '\\u12'", column: 10, "invalid unicode escape"),
            ErrorCase("a==aORa==a", column: 8, "comparisons can't be chained"),
            ErrorCase(
                "age > 3 age < 5", column: 9,
                "expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query, found 'age'"),
            ErrorCase("age = = 3", column: 7, "expected a value or predicate, found '=='"),
            ErrorCase("SORT(age ASC)", column: 1, "expected a predicate before 'SORT'"),
            ErrorCase("age > 3 SORT(age)", column: 17, "expected ASC or DESC after 'age' in SORT"),
            ErrorCase("age > 3 SORT(age ASC", column: 21, "',' or ')' in SORT"),
            ErrorCase("age > 3 LIMIT(-1)", column: 15, "expected a natural number in LIMIT"),
            ErrorCase("age > 3 LIMIT(2.7)", column: 15, "expected a natural number in LIMIT"),
            ErrorCase("age > 3 LIMIT(0x10)", column: 15, "expected a natural number in LIMIT"),
            ErrorCase("age > 3 LIMIT(word)", column: 15, "expected a natural number in LIMIT"),
            ErrorCase("age > 3 DISTINCT()", column: 18, "expected a property name in DISTINCT"),
            ErrorCase("@prop > 2", column: 1, "unknown operator '@prop'"),
            ErrorCase(
                "NOT", column: 4,
                "expected a comparison operator (==, !=, <, >, BEGINSWITH, IN, …) after 'NOT', found end of query"),
            ErrorCase("(age > 1) + 2 > 3", column: 11, "needs values on both sides"),
            ErrorCase("age > (name == 'x')", column: 7, "a predicate can't be compared"),
            ErrorCase("age IN {1, name}", column: 12, "a list can only hold constants"),
            ErrorCase("uid == uuid(123)", column: 8, "invalid UUID literal"),
            ErrorCase("oid == oid(12)", column: 8, "invalid ObjectId literal"),
            ErrorCase("name TEXT 'a'", column: 6, "full-text search (TEXT) is not supported"),
            // Dates.
            ErrorCase("born == 1899-12-31@00:00:00", column: 9, "Conversion of dates before 1900 is not supported."),
            ErrorCase("born == T-1:1", column: 9, "seconds and nanoseconds must have the same sign"),
            ErrorCase("born == 2020-01-01T00:00", column: 9, "invalid date"),
            ErrorCase("born == 2020-01-01", column: 9, "expected '@' or 'T' and a time"),
            ErrorCase("born == 2020-13-01@00:00:00", column: 9, "invalid date"),
            // Unknown properties, key paths.
            ErrorCase("agee > 3", column: 1, "No property 'agee' found on object type 'Person'"),
            ErrorCase("friend.nme == 'x'", column: 8, "No property 'nme' found on object type 'Person'"),
            ErrorCase("name.first == 'x'", column: 6, "'name' is of type 'string' and has no property 'first'"),
            ErrorCase(
                "tags.size == 'x'", column: 6,
                "Property 'Person.tags' is a collection of 'string' and has no property 'size'"),
            ErrorCase(
                "age > 3 SORT(agee ASC)", column: 14,
                "No property 'agee' found on object type 'Person' specified in 'sort' clause"),
            ErrorCase(
                "age > 3 DISTINCT(balance2)", column: 18,
                "No property 'balance2' found on object type 'Person' specified in 'distinct' clause"),
            ErrorCase("age > 3 SORT(dogs ASC)", column: 14, "property 'Person.dogs' is a collection"),
            ErrorCase(
                "age > 3 SORT(friend.nope DESC)", column: 21,
                "No property 'nope' found on object type 'Person' specified in 'sort' clause"),
            ErrorCase("@links.Nope.dogs.@count > 1", column: 1, "No class named 'Nope'", on: "Dog"),
            ErrorCase("@links.Person.name.@count > 1", column: 1, "'Person.name' is not a link to 'Dog'", on: "Dog"),
            ErrorCase("@links == nil", column: 1, "'@links' on its own must be followed by '.@count'", on: "Dog"),
            ErrorCase("tags[FIRST].x == 1", column: 13, "has no property 'x'"),
            ErrorCase("tagSet[0] == 'x'", column: 7, "an index ([FIRST], [LAST], [n]) can only follow a list property"),
            ErrorCase("age.@keys == 'x'", column: 5, "'@keys' and '@values' can only follow a dictionary property"),
            ErrorCase("name.@type == 'x'", column: 6, "'@type' can only follow a mixed property"),
            ErrorCase("any.@type == 'integerz'", column: 14, "Unable to parse the type attribute string 'integerz'"),
            // Types.
            ErrorCase(
                "age BEGINSWITH 3", column: 5, "Unsupported comparison operator 'BEGINSWITH' for 'age' of type 'int'"),
            ErrorCase(
                "name BEGINSWITH 3", column: 6, "Unsupported comparison operator 'BEGINSWITH' for 3 of type 'int'"),
            ErrorCase("age == 'x'", column: 5, "Unsupported comparison between type 'int' and type 'string'"),
            ErrorCase("name == 3", column: 6, "Unsupported comparison between type 'string' and type 'int'"),
            ErrorCase("active == 1", column: 8, "Unsupported comparison between type 'bool' and type 'int'"),
            ErrorCase("born > 3", column: 6, "Unsupported comparison between type 'timestamp' and type 'int'"),
            ErrorCase("name == age", column: 6, "Unsupported comparison between type 'string' and type 'int'"),
            ErrorCase("age == infinity", column: 8, "Infinity not supported for int"),
            ErrorCase("age ==[c] 3", column: 5, "'[c]' applies to strings"),
            ErrorCase("friend > O1", column: 8, "only == and != can compare objects"),
            ErrorCase("age * 'x' > 3", column: 7, "Cannot apply '*' to 'x' of type 'string'"),
            ErrorCase("name + 1 > 3", column: 6, "Cannot apply '+' to 'name' of type 'string'"),
            // realm-core's parser tests: arithmetic between two lists throws (one list is per element).
            ErrorCase(
                "{1, 2, 3} * {1, 2} == dogs.age", column: 11,
                "arithmetic ('*') between two lists or collections is not supported"),
            // Lists and quantifiers.
            ErrorCase("ANY age > 3", column: 5, "The keypath following 'ANY' must contain a list"),
            ErrorCase("ALL name == 'x'", column: 5, "The keypath following 'ALL' must contain a list"),
            ErrorCase("age IN 5.5", column: 8, "The keypath following 'IN' must contain a list. Found '5.5'"),
            ErrorCase("age IN name", column: 8, "The keypath following 'IN' must contain a list. Found 'name'"),
            ErrorCase("age BETWEEN {1}", column: 13, "BETWEEN needs a list of two values"),
            ErrorCase("ANY dogs.age BETWEEN {1, 2}", column: 5, "BETWEEN can't be used on a list with 'ANY'"),
            ErrorCase("dogs.age BETWEEN {1, 2}", column: 1, "BETWEEN can't be used on a list with no quantifier"),
            // Aggregates and subqueries.
            ErrorCase("name.@sum > 3", column: 6, "'@sum' can only be used on a collection property"),
            ErrorCase("tags.@sum > 3", column: 6, "Cannot sum values of type 'string'"),
            ErrorCase("tags.@avg > 3", column: 6, "Cannot average values of type 'string'"),
            ErrorCase("dogs.@sum > 3", column: 6, "'@sum' on a collection of 'Dog' objects needs a property"),
            ErrorCase("dogs.@sum.nope > 3", column: 6, "No property 'nope' found on object type 'Dog'"),
            ErrorCase("nums.@sum.x > 3", column: 6, "takes no property"),
            ErrorCase("dogs.@count.age > 3", column: 13, "nothing can follow '@count' / '@size'"),
            ErrorCase(
                "age.@count > 3", column: 5,
                "'@count' / '@size' can only follow a collection, a link, a string or binary data"),
            ErrorCase(
                "SUBQUERY(friend, $x, $x.age > 3).@count > 0", column: 10,
                "A subquery must operate on a list of objects"),
            ErrorCase(
                "SUBQUERY(tags, $x, $x == 'a').@count > 0", column: 10, "A subquery must operate on a list of objects"),
            ErrorCase("SUBQUERY(dogs, $x, $x.age > 3) > 0", column: 32, "'.@count' or '.@size' after SUBQUERY"),
            ErrorCase("SUBQUERY(dogs, $x, $x.age > 3).@min > 0", column: 32, "'@count' or '@size' after SUBQUERY"),
            ErrorCase("SUBQUERY(dogs, x, x.age > 3).@count > 0", column: 16, "a variable name starting with '$'"),
            ErrorCase(
                "SUBQUERY(dogs, $x, SUBQUERY($x.toys, $x, $x.price > 1).@count > 0).@count > 0", column: 20,
                "an identical variable already exists in this context"),
            ErrorCase(
                "SUBQUERY(dogs, $x, $x.nope > 3).@count > 0", column: 23,
                "No property 'nope' found on object type 'Dog'"),
            // Arguments.
            ErrorCase("age == $0", column: 8, "Attempt to retreive an argument when no arguments were given"),
            ErrorCase(
                "age == $2", args: [1], column: 8, "Request for argument at index 2 but only 1 argument is provided"),
            ErrorCase(
                "age == $3", args: [1, 2], column: 8,
                "Request for argument at index 3 but only 2 arguments are provided"),
            ErrorCase(
                "age == $0", args: ["x"], column: 5, "Unsupported comparison between type 'int' and type 'string'"),
            ErrorCase("age == $0", args: [["a": 1]], column: 8, "argument $0 is a dictionary"),
            ErrorCase("friend == $0", args: [.object(DynamicObject(className: "Person"))], column: 11, "argument $0"),
            ErrorCase("ANY $0 == 3", args: [3], column: 5, "argument $0 is not a list"),
            // Non-ASCII text before the error: columns count characters, not bytes.
            ErrorCase("name == 'Émile' AND agé > 3", column: 21, "No property 'agé' found on object type 'Person'"),
        ]
    }

    func compileError(_ c: ErrorCase) -> String? {
        let schema = QueryFixture.schema
        do {
            _ = try QueryLanguage.compile(
                c.query, arguments: c.args, objectSchema: schema[c.className]!, schema: schema
            ) { _ in
                throw RealmError(.query, "Objects used as query arguments must be managed by this realm.")
            }
            return nil
        } catch let e as RealmError {
            XCTAssertEqual(e.code, .query, c.query, line: c.line)
            return e.message
        } catch {
            XCTFail("\(c.query): unexpected error \(error)", line: c.line)
            return "\(error)"
        }
    }

    func testErrors() {
        for c in Self.cases {
            guard let message = compileError(c) else {
                XCTFail("'\(c.query)' compiled but should fail with '\(c.fragment)'", line: c.line)
                continue
            }
            XCTAssertTrue(message.hasPrefix("Invalid query '\(c.query)'"), "\(message)", line: c.line)
            if let column = c.column {
                XCTAssertTrue(
                    message.contains("at column \(column):"), "expected column \(column): \(message)", line: c.line)
            }
            XCTAssertTrue(message.contains(c.fragment), "expected '\(c.fragment)' in: \(message)", line: c.line)
        }
    }

    func testExactMessage() {
        let message = compileError(ErrorCase("age BEGINSWITH 3", column: 5, ""))
        XCTAssertEqual(
            message,
            "Invalid query 'age BEGINSWITH 3' at column 5: Unsupported comparison operator 'BEGINSWITH' "
                + "for 'age' of type 'int': it applies to strings and binary data"
        )
    }

    func testNestingAndLengthLimits() {
        let deep = String(repeating: "(", count: 101) + "age > 1" + String(repeating: ")", count: 101)
        XCTAssertTrue(
            compileError(ErrorCase(deep, column: nil, ""))?.contains("nested too deeply (more than 100 levels)") == true
        )
        let nots = String(repeating: "!", count: 150) + "age > 1"
        XCTAssertTrue(compileError(ErrorCase(nots, column: nil, ""))?.contains("nested too deeply") == true)
        let sums = "age == 1" + String(repeating: " + 1", count: 150)
        XCTAssertTrue(compileError(ErrorCase(sums, column: nil, ""))?.contains("nested too deeply") == true)
        let long = "name == '" + String(repeating: "x", count: 70_000) + "'"
        XCTAssertTrue(
            compileError(ErrorCase(long, column: nil, ""))?.contains(
                "the query is too long (70010 bytes; at most 65536 are allowed)") == true)
        // 100 levels of parentheses are accepted, and run.
        let ok = String(repeating: "(", count: 99) + "age > 1" + String(repeating: ")", count: 99)
        XCTAssertNil(compileError(ErrorCase(ok, column: nil, "")))
        // Deep alternation of AND / OR compiles to SQL SQLite can parse, or fails with a clear error.
        var alternating = "age > 1"
        for i in 0..<40 { alternating = "age > \(i) \(i % 2 == 0 ? "AND" : "OR") (\(alternating))" }
        if let message = compileError(ErrorCase(alternating, column: nil, "")) {
            XCTAssertTrue(message.contains("nested too deeply to run"), message)
        }
        // Long flat chains and big lists are fine.
        let chain = (0..<2000).map { "age == \($0)" }.joined(separator: " OR ")
        XCTAssertNil(compileError(ErrorCase(chain, column: nil, "")))
        let list = "age IN {" + (0..<5000).map(String.init).joined(separator: ", ") + "}"
        XCTAssertNil(compileError(ErrorCase(list, column: nil, "")))
    }
}
