import Foundation
import XCTest

@testable import RealmDatabase

/// Aggregates of mixed and decimal properties (computed over the values' type tags, not by
/// SQLite's `total`/`min`, which read a decimal's stored bytes as 0 and order strings above
/// numbers) and `ValueAggregates`, the rules the collections of values share.
final class AggregateTests: RealmTestCase {
    private func dec(_ s: String) throws -> Decimal128 { try XCTUnwrap(Decimal128(string: s), s) }

    private static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Bag",
                properties: [
                    Property(name: "id", type: .int),
                    Property(name: "m", type: .mixed),
                    Property(name: "d", type: .decimal128, isOptional: true),
                ])
        ])
    }

    /// A realm holding one `Bag` per value of `m`, with ids 1, 2, 3…
    private func bags(_ values: [RealmValue]) throws -> Results {
        var c = Realm.Configuration(fileURL: fileURL("bags"))
        c.schema = Self.schema
        let realm = try Realm(configuration: c)
        try realm.write {
            for (i, v) in values.enumerated() { try realm.create("Bag", value: ["id": RealmValue(i + 1), "m": v]) }
        }
        return try realm.objects("Bag")
    }

    // MARK: Mixed properties

    func testMixedAggregatesCountDecimals() throws {
        let all = try bags([.decimal128(try dec("1.5")), 2, .decimal128(try dec("100"))])
        XCTAssertEqual(try all.sum(ofProperty: "m"), .decimal128(try dec("103.5")), "was 2.0: decimals read as 0")
        XCTAssertEqual(try all.average(ofProperty: "m"), .decimal128(try dec("34.5")), "was 0.667: counted as 0")
        XCTAssertEqual(try all.min(ofProperty: "m"), .decimal128(try dec("1.5")), "was 2")
        XCTAssertEqual(try all.max(ofProperty: "m"), .decimal128(try dec("100")), "was nil: the blob picked")
    }

    func testMixedAggregatesSkipNonNumbersAndNaN() throws {
        let date = Timestamp(storedNanoseconds: 5_000_000_000)
        let all = try bags([
            "zzz", true, .decimal128(.nan), 3, 2.5, nil, .date(date), .data(Data([1, 2])), .double(.nan),
        ])
        XCTAssertEqual(try all.sum(ofProperty: "m"), .double(5.5), "the string, the bool and NaN take no part")
        XCTAssertEqual(try all.average(ofProperty: "m"), .double(2.75))
        XCTAssertEqual(try all.min(ofProperty: "m"), .double(2.5))
        XCTAssertEqual(try all.max(ofProperty: "m"), .int(3), "not the string, which SQLite orders above numbers")
    }

    func testMixedIntegersSumExactlyAndOverflowIsAnError() throws {
        let all = try bags([.int(1 << 53), 1, "x"])
        XCTAssertEqual(try all.sum(ofProperty: "m"), .int((1 << 53) + 1), "not rounded through a double")
        XCTAssertEqual(try all.average(ofProperty: "m"), .double(Double((1 << 53) + 1) / 2))
        XCTAssertEqual(try all.filter("id > 1").sum(ofProperty: "m"), .int(1), "over a filtered answer")
        XCTAssertEqual(try all.filter("id > 0 LIMIT(1)").sum(ofProperty: "m"), .int(1 << 53), "and a limited one")
        try realmWrite(all) { try $0.create("Bag", value: ["id": 9, "m": .int(Int64.max)]) }
        XCTAssertThrowsError(try all.sum(ofProperty: "m")) { error in
            XCTAssertTrue("\(error)".contains("integer overflow: the sum of 'Bag.m'"), "\(error)")
        }
    }

    func testMixedNumbersCompareAcrossTypes() throws {
        let all = try bags([.float(2.5), .int(9_007_199_254_740_993), .double(9_007_199_254_740_992), -1])
        XCTAssertEqual(try all.max(ofProperty: "m"), .int(9_007_199_254_740_993), "ints and doubles compare exactly")
        XCTAssertEqual(try all.min(ofProperty: "m"), .int(-1))
    }

    func testEmptyAggregates() throws {
        let none = try bags(["only a string", nil])
        XCTAssertEqual(try none.sum(ofProperty: "m"), .int(0))
        XCTAssertNil(try none.average(ofProperty: "m"))
        XCTAssertNil(try none.min(ofProperty: "m"))
        XCTAssertNil(try none.max(ofProperty: "m"))
        XCTAssertEqual(try none.sum(ofProperty: "d"), .decimal128(.zero), "decimals: nils only")
        XCTAssertNil(try none.average(ofProperty: "d"))
        XCTAssertNil(try none.max(ofProperty: "d"))
        let empty = try none.filter("id > 10")
        XCTAssertEqual(try empty.sum(ofProperty: "m"), .int(0))
        XCTAssertEqual(try empty.sum(ofProperty: "id"), .int(0))
        XCTAssertNil(try empty.average(ofProperty: "id"))
        XCTAssertNil(try empty.min(ofProperty: "m"))
    }

    func testUnsupportedTypesAreRefused() throws {
        let all = try bags([1])
        XCTAssertThrowsError(try all.sum(ofProperty: "nope"))
        XCTAssertThrowsError(try ValueAggregates.compute(.sum, of: [], type: .date, what: "'x'")) { error in
            XCTAssertTrue("\(error)".contains("Cannot compute sum of 'x'"), "\(error)")
        }
        XCTAssertThrowsError(try ValueAggregates.compute(.max, of: ["a"], type: .string, what: "'x'"))
        XCTAssertNil(try ValueAggregates.compute(.max, of: [], type: .date, what: "'x'"))
    }

    // MARK: ValueAggregates (collections of values)

    private func compute(_ f: AggregateFunction, _ values: [RealmValue], _ type: PropertyType) throws -> RealmValue? {
        try ValueAggregates.compute(f, of: values, type: type, what: "'Bag.values'")
    }

    func testDecimalValuesUseDecimalArithmeticAndSkipNaN() throws {
        let values: [RealmValue] = [.decimal128(try dec("0.1")), .decimal128(try dec("0.2")), .decimal128(.nan)]
        XCTAssertEqual(try compute(.sum, values, .decimal128), .decimal128(try dec("0.3")), "not 0.30000000000000004")
        XCTAssertEqual(try compute(.average, values, .decimal128), .decimal128(try dec("0.15")))
        XCTAssertEqual(try compute(.min, values, .decimal128), .decimal128(try dec("0.1")), "NaN is not the least")
        XCTAssertEqual(try compute(.max, values, .decimal128), .decimal128(try dec("0.2")))
        XCTAssertEqual(try compute(.sum, [], .decimal128), .decimal128(.zero))
        XCTAssertNil(try compute(.average, [.decimal128(.nan)], .decimal128))
    }

    func testDatesHaveMinAndMax() throws {
        let early = RealmValue.date(Timestamp(storedNanoseconds: -1_000))
        let late = RealmValue.date(Timestamp(storedNanoseconds: 2_000_000_000))
        XCTAssertEqual(try compute(.min, [late, nil, early], .date), early)
        XCTAssertEqual(try compute(.max, [late, nil, early], .date), late)
        XCTAssertNil(try compute(.min, [late], .mixed), "a date in a mixed collection takes no part")
    }

    func testIntsAreExactAndFloatsAndDoublesSkipNaN() throws {
        XCTAssertEqual(try compute(.sum, [.int(Int64.max), 1, -1], .int), .int(Int64.max), "exact, not stepwise")
        XCTAssertThrowsError(try compute(.sum, [.int(Int64.min), -1], .int))
        XCTAssertEqual(try compute(.average, [.int(Int64.max), .int(Int64.max)], .int), .double(Double(Int64.max)))
        XCTAssertEqual(try compute(.sum, [1.5, .double(.nan), .double(2)], .double), .double(3.5))
        XCTAssertEqual(try compute(.sum, [.float(1.5), 2], .float), .float(3.5), "an int given for a float counts")
        XCTAssertEqual(try compute(.average, [.float(1), .float(.nan), .float(2)], .float), .double(1.5))
        XCTAssertEqual(try compute(.max, [.float(1), .float(.nan)], .float), .float(1))
        XCTAssertEqual(try compute(.sum, [], .int), .int(0))
        XCTAssertNil(try compute(.average, [nil], .int))
    }

    func testMixedValuesFollowTheMixedPropertyRules() throws {
        let values: [RealmValue] = [.decimal128(try dec("1.5")), 2, .decimal128(try dec("100")), "s", true]
        XCTAssertEqual(try compute(.sum, values, .mixed), .decimal128(try dec("103.5")))
        XCTAssertEqual(try compute(.average, values, .mixed), .decimal128(try dec("34.5")))
        XCTAssertEqual(try compute(.min, values, .mixed), .decimal128(try dec("1.5")))
        XCTAssertEqual(try compute(.max, values, .mixed), .decimal128(try dec("100")))
        XCTAssertEqual(try compute(.sum, [1, 0.5, "s"], .mixed), .double(1.5))
        XCTAssertEqual(try compute(.sum, ["s", true], .mixed), .int(0))
        XCTAssertNil(try compute(.max, ["s", true], .mixed))
    }

    private func realmWrite(_ results: Results, _ body: (Realm) throws -> Void) throws {
        try results.realm.write { try body(results.realm) }
    }
}
