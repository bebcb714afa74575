import CSQLite
import Foundation
import RealmQuery
import XCTest

@testable import RealmDatabase

/// Decimal128's limits and special values, its stored form (sorting and queries in SQLite), and the
/// conversion of files that stored decimals as text.
final class Decimal128Tests: RealmTestCase {
    private func dec(_ s: String) throws -> Decimal128 { try XCTUnwrap(Decimal128(string: s), s) }

    func testInfinitiesAndHugeDoublesConvertWithoutTrapping() throws {
        XCTAssertEqual(Decimal128(Double.infinity), .infinity)
        XCTAssertEqual(Decimal128(-Double.infinity), .negativeInfinity)
        XCTAssertEqual(Decimal128(-Double.infinity).description, "-Infinity")
        XCTAssertTrue(Decimal128(Double.nan).isNaN)
        // A double keeps 15 significant digits, as realm-core's Decimal128(double) (RoundTo::Digits15).
        XCTAssertEqual(Decimal128(1e300).description, "1E+300")
        XCTAssertEqual(Decimal128(0.1).description, "0.1")
        XCTAssertEqual(Decimal128(19.99).description, "19.99")
        XCTAssertEqual(Decimal128(1.0 / 3.0).description, "0.333333333333333")
        XCTAssertEqual(Decimal128(Double.leastNonzeroMagnitude).description, "4.94065645841247E-324")
        XCTAssertEqual(Decimal128(Int64.min).description, "-9223372036854775808")
        XCTAssertEqual(try dec("1e300").description, "1E+300")
        XCTAssertEqual(Decimal128(1e300).doubleValue, 1e300)
    }

    func testParsingLimitsAndSpecials() throws {
        for (text, expected) in [
            ("Inf", "Infinity"), ("+Infinity", "Infinity"), ("-infinity", "-Infinity"), ("-NaN", "NaN"),
            ("1E+6145", "Infinity"), ("-1E+6145", "-Infinity"), ("1E-6177", "0"), ("6E-6177", "1E-6176"),
            ("9.999999999999999999999999999999999E+6144", "9.999999999999999999999999999999999E+6144"),
            ("12345678901234567890123456789012345", "1.234567890123456789012345678901234E+34"),
            ("12345678901234567890123456789012355", "1.234567890123456789012345678901236E+34"),
            ("  -0.000  ", "0"), ("1.50", "1.5"), ("100", "100"), ("1e99999999999999999999", "Infinity"),
            ("0E+99999999999", "0"), (".5", "0.5"), ("5.", "5"), ("0.0000001", "1E-7"),
        ] {
            XCTAssertEqual(try dec(text).description, expected, text)
        }
        for bad in ["", "abc", "1e", "--1", "1.2.3", "0x10", "1e+", ".", "1 2", "Infinit", "1_000"] {
            XCTAssertNil(Decimal128(string: bad), bad)
        }
    }

    /// Realm's order: NaN first, then −Infinity, the values, +Infinity; equal values are equal
    /// whatever their trailing zeros or the sign of zero.
    func testOrderingAndEquality() throws {
        let ordered = try [
            "NaN", "-Infinity", "-1E+6144", "-1", "-1E-6176", "0", "1E-6176", "0.1", "1", "9", "10",
            "1E+6144", "Infinity",
        ].map(dec)
        XCTAssertEqual(ordered.shuffled().sorted(), ordered)
        XCTAssertEqual(try dec("1.50"), try dec("1.5"))
        XCTAssertEqual(try dec("-0"), try dec("0"))
        XCTAssertEqual(try dec("1.50").hashValue, try dec("1.5").hashValue)
        XCTAssertEqual(try dec("100").storedBytes, try dec("1E+2").storedBytes)
        XCTAssertNil(Decimal128(storedBytes: Data([0x80] + [UInt8](repeating: 0, count: 14) + [1])), "not a decimal")
        XCTAssertNil(Decimal128(storedBytes: Data(repeating: 0, count: 15)))
    }

    func testArithmeticSpecialCases() throws {
        XCTAssertTrue((Decimal128.infinity + .negativeInfinity).isNaN)
        XCTAssertEqual(try dec("1") / .zero, .infinity)
        XCTAssertEqual(try dec("-1") / .zero, .negativeInfinity)
        XCTAssertTrue((Decimal128.zero / .zero).isNaN)
        XCTAssertTrue((Decimal128.zero * .infinity).isNaN)
        XCTAssertEqual(try dec("9E+6144") + dec("9E+6144"), .infinity, "overflow is Infinity")
        XCTAssertEqual(try (dec("1") / dec("3")).description, "0.3333333333333333333333333333333333")
        XCTAssertEqual(
            try dec("1E+6144").divided(by: Int64.max).description, "1.08420217248550443412500223595217E+6125")
    }

    /// `realm_dec` (RQL arithmetic on decimals) and the query aggregates over a list of decimals.
    func testQueryArithmeticAndListAggregates() throws {
        XCTAssertEqual(QueryRuntime.decimalArithmetic(4, .text("1"), .integer(0)), .text("Infinity"))
        XCTAssertEqual(QueryRuntime.decimalArithmetic(3, .text("1E+6000"), .text("1E+6000")), .text("Infinity"))
        XCTAssertEqual(
            QueryRuntime.decimalArithmetic(1, .blob(try dec("0.1").storedBytes), .real(.infinity)), .text("Infinity"))
        let realm = try Realm(configuration: config())
        try realm.write {
            let amounts = try ["1", "2", "2", "NaN"].map { RealmValue.decimal128(try dec($0)) }
            try realm.create("Ledger", value: ["id": 1, "amounts": .list(amounts)])
            try realm.create("Ledger", value: ["id": 2, "amounts": .list([.decimal128(try dec("1E+6144"))])])
        }
        let all = try realm.objects("Ledger")
        XCTAssertEqual(
            try all.filter("amounts.@avg == $0", .decimal128(try dec("1.666666666666666666666666666666667"))).count, 1)
        XCTAssertEqual(try all.filter("amounts.@sum == 5").count, 1, "NaN is skipped")
        XCTAssertEqual(try all.filter("amounts.@max == $0", .decimal128(try dec("1E+6144"))).count, 1)
        XCTAssertEqual(
            try all.filter("amounts.@sum * 10 == $0", .decimal128(.infinity)).count, 1, "1E+6145 overflows to Infinity")
    }

    // MARK: Storage

    private static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Ledger",
                properties: [
                    Property(name: "id", type: .int, isPrimaryKey: true),
                    Property(name: "amount", type: .decimal128, isOptional: true),
                    Property(name: "any", type: .mixed),
                    Property(name: "amounts", type: .decimal128, collection: .list),
                ])
        ])
    }

    private func config() -> Realm.Configuration {
        var c = Realm.Configuration(fileURL: fileURL("ledger"))
        c.schema = Self.schema
        c.schemaVersion = 1
        return c
    }

    private static let texts = ["10", "9", "-2.5", "1E+40", "NaN", "-Infinity", "0.000001", "1e300"]

    private func fill() throws {
        let realm = try Realm(configuration: config())
        try realm.write {
            for (i, text) in Self.texts.enumerated() {
                let d = RealmValue.decimal128(try dec(text))
                try realm.create("Ledger", value: ["id": .int(Int64(i)), "amount": d, "any": d, "amounts": [d, d]])
            }
        }
    }

    /// The ids of the ledgers sorted by amount, and those a query selects.
    private func check(_ realm: Realm, file: StaticString = #filePath, line: UInt = #line) throws {
        let all = try realm.objects("Ledger")
        let sorted = try all.sorted(byKeyPath: "amount").map { try $0["id"] }
        // NaN first (Realm's order), then by value: not as text ("10" < "9") nor as doubles.
        XCTAssertEqual(sorted, [4, 5, 2, 6, 1, 0, 3, 7].map { RealmValue.int($0) }, file: file, line: line)
        let big = try all.filter("amount > 9").sorted(byKeyPath: "id").map { try $0["id"] }
        XCTAssertEqual(big, [0, 3, 7], file: file, line: line)
        XCTAssertEqual(try all.filter("any == $0", .decimal128(dec("1E+40"))).count, 1, file: file, line: line)
        XCTAssertEqual(try all.filter("ANY amounts < 0").count, 2, file: file, line: line)
        XCTAssertEqual(try all.max(ofProperty: "amount"), .decimal128(try dec("1e300")), file: file, line: line)
        XCTAssertEqual(try all.min(ofProperty: "amount"), .decimal128(.negativeInfinity), file: file, line: line)
    }

    func testStoredDecimalsSortAndCompareByValueInSQLite() throws {
        try fill()
        try check(try Realm(configuration: config()))
    }

    func testAggregatesBeyondFoundationDecimalRange() throws {
        let realm = try Realm(configuration: config())
        try realm.write {
            for (i, text) in ["1E+300", "2E+300", "NaN", "1E-300"].enumerated() {
                try realm.create("Ledger", value: ["id": .int(Int64(i)), "amount": .decimal128(try dec(text))])
            }
        }
        let all = try realm.objects("Ledger")
        XCTAssertEqual(try all.sum(ofProperty: "amount"), .decimal128(try dec("3E+300")), "NaN is skipped")
        XCTAssertEqual(try all.average(ofProperty: "amount"), .decimal128(try dec("1E+300")))
    }

    /// A file from before decimal format 2 (`PRAGMA user_version` 0): decimals stored as text. It
    /// converts when opened, in place, and then sorts and queries by value.
    func testOldTextFilesConvertWhenOpened() throws {
        try fill()
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(fileURL("ledger").path, &db, SQLITE_OPEN_READWRITE, nil), SQLITE_OK)
        let oldForm = [
            "PRAGMA user_version = 0",
            "UPDATE class_Ledger SET amount = CASE id \(Self.caseTexts(column: "id")) END, "
                + "\"any\" = CASE id \(Self.caseTexts(column: "id")) END",
            "UPDATE list_Ledger_amounts SET value = CASE owner \(Self.caseTexts(column: "owner", keys: true)) END",
        ]
        for sql in oldForm { XCTAssertEqual(sqlite3_exec(db, sql, nil, nil, nil), SQLITE_OK, sql) }
        sqlite3_close_v2(db)

        let realm = try Realm(configuration: config())
        try check(realm)
        let connection = realm.connection
        XCTAssertEqual(try MetaTable(connection).decimalFormat(), MetaTable.currentDecimalFormat)
        XCTAssertEqual(try connection.scalarInt("SELECT count(*) FROM class_Ledger WHERE typeof(amount) = 'text'"), 0)
        XCTAssertEqual(
            try connection.scalarInt("SELECT count(*) FROM list_Ledger_amounts WHERE typeof(value) = 'blob'"), 16)
    }

    /// `WHEN 0 THEN '10' WHEN 1 THEN '9' …`: the old text form of each ledger's amount, by id (or by
    /// object key, which is id + 1 as the rows were created in order).
    private static func caseTexts(column: String, keys: Bool = false) -> String {
        texts.enumerated().map { "WHEN \($0.offset + (keys ? 1 : 0)) THEN '\($0.element)'" }.joined(separator: " ")
    }
}
