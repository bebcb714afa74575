import CSQLite
import Foundation
import XCTest

@testable import RealmDatabase

/// The SQL functions registered for queries, called directly.
final class QueryFunctionTests: XCTestCase {
    var db: SQLiteConnection!

    override func setUpWithError() throws {
        db = try SQLiteConnection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        QueryFunctions.register(on: db)
    }

    func value(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> SQLiteValue? { try db.scalar(sql, bindings) }

    func testFolding() throws {
        XCTAssertEqual(try value("SELECT realm_fold(?, 1)", [.text("ÉCOLE Straße")]), .text("école strasse"))
        XCTAssertEqual(try value("SELECT realm_fold(?, 2)", [.text("Crème Brûlée")]), .text("Creme Brulee"))
        XCTAssertEqual(try value("SELECT realm_fold(?, 3)", [.text("ÀÉÎ")]), .text("aei"))
        XCTAssertEqual(try value("SELECT realm_fold(NULL, 1)"), .null)
        XCTAssertEqual(try value("SELECT realm_fold(5, 1)"), .integer(5))
    }

    func testStringOperatorsAndNulls() throws {
        func op(_ code: Int, _ flags: Int, _ h: SQLiteValue, _ n: SQLiteValue) throws -> Int64? {
            if case .integer(let v)? = try value(
                "SELECT realm_strop(?, ?, ?, ?)", [.integer(Int64(code)), .integer(Int64(flags)), h, n])
            {
                return v
            }
            return nil
        }
        XCTAssertEqual(try op(1, 0, .text("Hello"), .text("He")), 1)
        XCTAssertEqual(try op(1, 0, .text("Hello"), .text("he")), 0)
        XCTAssertEqual(try op(1, 1, .text("Hello"), .text("he")), 1)
        XCTAssertEqual(try op(2, 0, .text("Hello"), .text("llo")), 1)
        XCTAssertEqual(try op(3, 0, .text("Hello"), .text("")), 1)
        XCTAssertEqual(try op(3, 0, .null, .text("")), 0, "a null string contains no string")
        XCTAssertEqual(try op(3, 0, .null, .null), 1, "a null needle is in everything")
        XCTAssertEqual(try op(4, 0, .text("Émile"), .text("?mile")), 1, "? is one character")
        XCTAssertEqual(try op(4, 0, .null, .null), 1)
        XCTAssertEqual(try op(4, 0, .text("x"), .null), 0)
        XCTAssertEqual(try op(5, 3, .text("ÉCOLE"), .text("ecole")), 1)
        XCTAssertEqual(try op(1, 0, .blob(Data("abc".utf8)), .text("ab")), 1, "binary against a string compares bytes")
        XCTAssertEqual(try op(1, 0, .integer(5), .text("5")), 0, "numbers are not strings")
    }

    func testRealmOrdering() throws {
        func cmp(_ a: SQLiteValue, _ ta: Int, _ b: SQLiteValue, _ tb: Int) throws -> Int64? {
            if case .integer(let v)? = try value(
                "SELECT realm_cmp(?, ?, ?, ?)", [a, .integer(Int64(ta)), b, .integer(Int64(tb))])
            {
                return v
            }
            return nil
        }
        XCTAssertEqual(try cmp(.integer(5), 1, .real(5.0), 7), 0)
        XCTAssertEqual(try cmp(.integer(5), 1, .text("5.0"), 8), 0)
        XCTAssertEqual(try cmp(.text("10.50"), 8, .text("10.5"), 8), 0)
        XCTAssertEqual(try cmp(.text("9"), 8, .text("10"), 8), -1, "decimals by value, not as text")
        XCTAssertEqual(try cmp(.integer(1), 2, .integer(1), 1), -1, "true is not 1; bools rank below numbers")
        XCTAssertEqual(try cmp(.text("5"), 3, .integer(5), 1), 2, "strings and numbers don't compare")
        XCTAssertEqual(try cmp(.text("ab"), 3, .blob(Data("ab".utf8)), 4), 0, "strings and binary compare by bytes")
        XCTAssertEqual(try cmp(.null, 0, .null, 0), 0)
        XCTAssertEqual(try cmp(.null, 0, .integer(1), 1), 2)
        XCTAssertEqual(try cmp(.integer(Int64.max), 1, .real(9.3e18), 7), -1)
        XCTAssertEqual(
            try cmp(.integer(9_007_199_254_740_993), 1, .real(9_007_199_254_740_992), 7), 1,
            "exact int/double comparison")
    }

    func testArithmeticAndAggregates() throws {
        XCTAssertEqual(try value("SELECT realm_div(7, 2)"), .integer(3))
        XCTAssertEqual(try value("SELECT realm_div(7, 0)"), .null)
        XCTAssertEqual(try value("SELECT realm_div(1.0, 0)"), .real(.infinity))
        XCTAssertEqual(try value("SELECT realm_dec(1, '1.1', '2.2')"), .text("3.3"))
        XCTAssertEqual(try value("SELECT realm_dec(4, '1', '4')"), .text("0.25"))
        try db.execute(
            "CREATE TABLE d(v, t); INSERT INTO d VALUES ('1.10', 8), ('2.2', 8), (NULL, 8), (3, 1), ('x', 3), (1, 2)")
        XCTAssertEqual(try value("SELECT realm_dec_sum(v) FROM d WHERE t = 8"), .text("3.3"))
        XCTAssertEqual(try value("SELECT realm_dec_avg(v) FROM d WHERE t = 8"), .text("1.65"))
        XCTAssertEqual(try value("SELECT realm_dec_max(v) FROM d WHERE t = 8"), .text("2.2"))
        XCTAssertEqual(try value("SELECT realm_dec_sum(v) FROM d WHERE 0"), .text("0"))
        XCTAssertEqual(try value("SELECT realm_dec_min(v) FROM d WHERE 0"), .null)
        XCTAssertEqual(try value("SELECT realm_mixed_sum(v, t) FROM d"), .text("6.3"), "numbers only: 1.10 + 2.2 + 3")
        XCTAssertEqual(try value("SELECT realm_mixed_max(v, t) FROM d"), .text("3"))
    }

    /// An infinite double in a mixed aggregate makes the sum infinite and counts once, as in
    /// `ValueAggregates` (the sum used to skip it while the count kept it).
    func testInfiniteDoublesInMixedAggregates() throws {
        try db.execute("CREATE TABLE m(v, t); INSERT INTO m VALUES (1, 1), (9e999, 7), (2.5, 7)")
        XCTAssertEqual(try value("SELECT realm_mixed_sum(v, t) FROM m"), .text("Infinity"))
        XCTAssertEqual(try value("SELECT realm_mixed_max(v, t) FROM m"), .real(.infinity))
        XCTAssertEqual(try value("SELECT realm_mixed_min(v, t) FROM m"), .text("1"))
    }
}
