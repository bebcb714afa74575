import Foundation
import XCTest

@testable import RealmDatabase

/// Deeply nested queries either run or fail with a clear query error; none crashes, including on
/// threads with small stacks.
final class QueryLimitsTests: XCTestCase {
    /// Runs `query`; returns nil when it ran, else the error message (which must be a query error).
    func outcome(_ realm: Realm, _ query: String, line: UInt = #line) -> String? {
        do {
            _ = try realm.objects("Person").filter(query).count
            return nil
        } catch let e as RealmError {
            XCTAssertEqual(e.code, .query, "\(query.prefix(80)): \(e)", line: line)
            return e.message
        } catch {
            XCTFail("\(query.prefix(80)): \(error)", line: line)
            return "\(error)"
        }
    }

    func testDeepNestingRunsOrFailsClearly() throws {
        let realm = try QueryFixture.makeRealm()
        var maxRun = 0
        for depth in [5, 10, 20, 30, 45, 60, 99] {
            var q = "age > 1"
            for i in 0..<depth { q = "age > \(i % 7) \(i % 2 == 0 ? "AND" : "OR") (\(q))" }
            if outcome(realm, q) == nil { maxRun = depth }
        }
        // Realistic nesting must run.
        XCTAssertGreaterThanOrEqual(maxRun, 20)
        for depth in [3, 6, 10, 14, 20] {
            var q = "age > 1"
            for _ in 0..<depth { q = "NOT (\(q) OR ANY dogs.age > 1)" }
            _ = outcome(realm, q)
            var s = "$v0.age > 1"
            for i in 1...depth {
                s = "SUBQUERY($v\(i).friend.dogs, $v0, \(s)).@count > 0".replacingOccurrences(
                    of: "$v\(i).friend.dogs", with: i == depth ? "dogs" : "$v\(i + 1).walkers")
            }
            _ = outcome(realm, s)
        }
        // 99 levels of parentheses around one comparison run (they add no SQL nesting).
        let parens = String(repeating: "(", count: 99) + "age > 20" + String(repeating: ")", count: 99)
        XCTAssertNil(outcome(realm, parens))
        XCTAssertNil(outcome(realm, String(repeating: "NOT ", count: 98) + "age > 20"))
    }

    func testDeepQueriesOnASmallStack() throws {
        let queries = [
            String(repeating: "(", count: 99) + "age > 1" + String(repeating: ")", count: 99),
            String(repeating: "!", count: 99) + "age > 1",
            "age == 1" + String(repeating: " + 1", count: 99),
            (0..<40).reduce("age > 1") { q, i in "age > \(i) \(i % 2 == 0 ? "AND" : "OR") (\(q))" },
            // Just under the threshold where compiling moves to a large-stack thread.
            (0..<12).reduce("age > 1") { q, i in "NOT (age > \(i) \(i % 2 == 0 ? "AND" : "OR") (\(q)))" },
            (0..<23).reduce("age > 1") { q, _ in "(\(q))" },
            "SUBQUERY(dogs, $a, SUBQUERY($a.walkers, $b, "
                + "SUBQUERY($b.dogs, $c, $c.age > 1 AND ($c.name == 'x' OR ($c.age < 3))).@count > 0)"
                + ".@count > 0).@count > 0",
            String(repeating: "(", count: 101) + "age > 1" + String(repeating: ")", count: 101),
        ]
        let done = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var errors = [String]() }
        let box = Box()
        let thread = Thread {
            let schema = QueryFixture.schema
            for q in queries {
                do {
                    _ = try QueryLanguage.compile(q, arguments: [], objectSchema: schema["Person"]!, schema: schema) {
                        _ in 1
                    }
                } catch let e as RealmError where e.code == .query {
                } catch {
                    box.errors.append("\(error)")
                }
            }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        XCTAssertEqual(box.errors, [])
    }

    /// The fuzzer's slow input: runs of '-' once made the lexer quadratic (each '-' looked ahead
    /// for `-inf` over the whole run), 16 KB took seconds. At the 64 KiB limit, a quadratic lexer
    /// would take minutes here; a linear one refuses these at once.
    func testLongRunsOfMinusSignsAreRefusedQuickly() throws {
        let realm = try QueryFixture.makeRealm()
        let signs = String(repeating: "-", count: 60_000)
        for query in ["age > 0-f" + signs, "age > " + signs + "1", "age > " + signs + "inf", signs] {
            XCTAssertNotNil(outcome(realm, query))
        }
        // `-inf` and friends still lex as numbers, and only as whole words.
        XCTAssertNil(outcome(realm, "height > -inf"))
        XCTAssertNil(outcome(realm, "height > -Infinity AND height < +INF"))
        XCTAssertEqual(
            outcome(realm, "height > -infinityx"),
            "Invalid query 'height > -infinityx' at column 10: expected a value or predicate, found '-'")
    }
}
