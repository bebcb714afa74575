import Foundation
import RealmTestSupport
import XCTest

@testable import RealmDatabase

/// Timestamps over their whole range and integer aggregates at the edges of Int64, at the
/// database's own API (the Lua API's tests are LuaBoundaryTests).
final class BoundaryValueTests: RealmTestCase {
    func testEveryTimestampInTheRangePrintsAndParsesBack() throws {
        // Pinned under CI=true, random otherwise, RELIABILITY_SEED to replay (printed either way).
        let seed = TestSeed.make("BoundaryValueTests timestamps")
        var random = SplitMix64(seed: seed)
        let range = Timestamp.validSeconds
        var samples: [(Int64, Int32)] = [(range.lowerBound, 0), (range.upperBound, 999_999_999), (0, 0), (-1, -1)]
        for _ in 0..<2000 {
            let s = Int64.random(in: range, using: &random)
            let ns = Int32.random(in: 0..<1_000_000_000, using: &random)
            samples.append((s, s < 0 ? -ns : ns))
        }
        for (s, ns) in samples {
            let t = try XCTUnwrap(Timestamp(seconds: s, nanoseconds: ns), "\(s) \(ns) seed \(seed)")
            XCTAssertEqual(Timestamp(iso8601: t.description), t, "\(t.description) seed \(seed)")
        }
        XCTAssertNil(Timestamp(seconds: range.upperBound + 1, nanoseconds: 0))
        // Just below the first second of the range (it would print as year -10000).
        XCTAssertNil(Timestamp(seconds: range.lowerBound, nanoseconds: -1))
        XCTAssertNil(Timestamp(seconds: Int64.min, nanoseconds: 0))
        XCTAssertNil(Timestamp(seconds: 1, nanoseconds: Int32.min))
        // A Date beyond the range is clamped, not a trap.
        XCTAssertEqual(Timestamp(Date(timeIntervalSince1970: 1e300)).seconds, range.upperBound)
        XCTAssertEqual(Timestamp(Date(timeIntervalSince1970: -1e300)).seconds, range.lowerBound)
    }

    func testCalendarValidation() {
        XCTAssertNotNil(Timestamp(iso8601: "2000-02-29"))
        XCTAssertNotNil(Timestamp(iso8601: "2024-02-29T23:59:59Z"))
        for text in ["1900-02-29", "2021-02-29", "2021-02-31", "2021-06-31", "2021-01-32", "2021-01-01T24:00:00Z"] {
            XCTAssertNil(Timestamp(iso8601: text), text)
        }
    }

    func testIntegerSumOverflowIsAnErrorAndAveragesAreExact() throws {
        let realm = try Realm(configuration: itemConfig())
        try realm.write {
            for (id, score) in [(1, Int64.max), (2, Int64.max), (3, Int64.min)] as [(Int64, Int64)] {
                try realm.create("Item", value: ["id": .int(id), "name": "n", "score": .int(score), "weight": 1.0])
            }
        }
        let all = try realm.objects("Item")
        XCTAssertEqual(try all.sum(ofProperty: "score"), .int(Int64.max - 1), "exact, though a partial sum overflows")
        XCTAssertEqual(try all.average(ofProperty: "score"), .double(Double(3_074_457_345_618_258_602)))
        let twoMax = try all.filter("id < 3")
        assertRealmError(try twoMax.sum(ofProperty: "score"), code: .invalidValue, containing: ["integer overflow"])
        XCTAssertEqual(try twoMax.average(ofProperty: "score"), .double(Double(Int64.max)))
        let minimums: [RealmValue] = [.int(Int64.min), .int(Int64.min)]
        XCTAssertEqual(
            try ValueAggregates.compute(.average, of: minimums, type: .int, what: "x"), .double(Double(Int64.min)))
        XCTAssertThrowsError(try ValueAggregates.compute(.sum, of: [.int(Int64.min), .int(-1)], type: .int, what: "x"))
    }
}
