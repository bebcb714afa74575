import Foundation
import RealmDatabase
import RealmTestSupport

@testable import RealmSync

/// Random objects of `ViewDifferentialTests.schema` and random queries of the sync subset over
/// them, drawn from small pools so comparisons often hit equal values, nulls, NaN, infinities,
/// case and Unicode folding, and LIKE's wildcards.
enum ViewRandomData {
    static let ints: [Int64] = [-2, 0, 1, 3, 7, 9_007_199_254_740_993, .max, .min]
    static let doubles: [Double] = [
        -1.5, 0, -0.0, 2.5, 3, 7.25, .infinity, -.infinity, .nan, 1e300, 9_007_199_254_740_992,
    ]
    static let floats: [Float] = [0.1, 2.5, -1.5, 0, 3]
    static let strings = [
        "", "a", "ab", "abc", "Abc", "ABC", "äbc", "ÄBC", "straße", "STRASSE", "a*c", "a?c", "x[y]", "日本語", "ǅ", "b",
        "café", "CAFÉ", "ba",
    ]
    static let patterns = ["a*", "*c", "a?c", "*", "?", "a*c", "ä*", "*[*", "??", "A?C", "", "日*", "*É", "?b?"]
    static let seconds: [Int64] = [-86_400, 0, 1_577_836_800, 1_577_836_801, 2_000_000_000]
    static let dateTexts = [
        "1969-12-31@00:00:00", "1970-01-01@00:00:00", "2020-01-01@00:00:00", "2020-01-01@00:00:01",
        "2033-05-18@03:33:20", "2020-01-01@00:00:00:500",
    ]

    static func pick<T>(_ pool: [T], _ random: inout SplitMix64) -> T {
        pool[Int.random(in: 0..<pool.count, using: &random)]
    }

    static func chance(_ n: Int, _ random: inout SplitMix64) -> Bool { Int.random(in: 0..<n, using: &random) == 0 }

    /// An object's fields (the primary key included), optional ones null a quarter of the time.
    static func object(_ id: Int64, random: inout SplitMix64) -> [String: SyncValue] {
        func optional(_ value: SyncValue) -> SyncValue { chance(4, &random) ? .null : value }
        func date() -> SyncValue {
            let nanos: Int32 = chance(3, &random) ? 500_000_000 : 0
            let s = pick(seconds, &random)
            return Timestamp(seconds: s, nanoseconds: s < 0 ? -nanos : nanos).map { .date($0) } ?? .null
        }
        return [
            "_id": .int(id),
            "i": .int(pick(ints, &random)), "oi": optional(.int(pick(ints, &random))),
            "d": .double(pick(doubles, &random)), "od": optional(.double(pick(doubles, &random))),
            "f": .float(pick(floats, &random)),
            "s": .string(pick(strings, &random)), "os": optional(.string(pick(strings, &random))),
            "b": .bool(Bool.random(using: &random)), "ob": optional(.bool(Bool.random(using: &random))),
            "t": date(), "ot": optional(date()),
        ]
    }

    static func realmValue(_ value: SyncValue) -> RealmValue {
        switch value {
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .float(let f): return .float(f)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .date(let t): return .date(t)
        default: return .null
        }
    }

    // MARK: Queries

    static func predicate(depth: Int, random: inout SplitMix64) -> String {
        guard depth > 0, !chance(3, &random) else { return leaf(&random) }
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            return
                "(\(predicate(depth: depth - 1, random: &random)) AND \(predicate(depth: depth - 1, random: &random)))"
        case 1:
            return
                "(\(predicate(depth: depth - 1, random: &random)) OR \(predicate(depth: depth - 1, random: &random)))"
        case 2: return "NOT (\(predicate(depth: depth - 1, random: &random)))"
        default: return "!(\(predicate(depth: depth - 1, random: &random)))"
        }
    }

    private static let orderings = ["==", "!=", "<", "<=", ">", ">="]

    private static func leaf(_ random: inout SplitMix64) -> String {
        if chance(40, &random) { return chance(2, &random) ? "TRUEPREDICATE" : "FALSEPREDICATE" }
        let field = pick(["i", "oi", "d", "od", "f", "s", "os", "s", "os", "b", "ob", "t", "ot"], &random)
        let literal = { (random: inout SplitMix64) in self.literal(for: field, &random) }
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return "\(field) IN {\(literal(&random)), \(literal(&random))}"
        case 1: return "\(field) BETWEEN {\(literal(&random)), \(literal(&random))}"
        case 2: return "\(literal(&random)) \(pick(orderings, &random)) \(field)"
        default:
            if field.hasSuffix("s") && !chance(3, &random) { return stringOperator(field, &random) }
            return "\(field) \(pick(orderings, &random)) \(literal(&random))"
        }
    }

    private static func stringOperator(_ field: String, _ random: inout SplitMix64) -> String {
        let c = chance(2, &random) ? "[c]" : ""
        let needle = chance(8, &random) ? "null" : "'\(pick(strings + patterns, &random))'"
        let op = pick(["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "LIKE", "==", "!="], &random)
        return "\(field) \(op)\(c) \(needle)"
    }

    private static func literal(for field: String, _ random: inout SplitMix64) -> String {
        if chance(8, &random) { return "null" }
        switch field {
        case "i", "oi":
            return pick(["-2", "0", "3", "7", "2.5", "-1.5", "9007199254740993", "9007199254740992.0", "nan"], &random)
        case "d", "od":
            return pick(["0", "3", "-1.5", "2.5", "7.25", "inf", "-inf", "nan", "1e300", "-0.0", "7"], &random)
        case "f": return pick(["0.1", "2.5", "3", "-1.5", "0", "0.1f"], &random)
        case "s", "os": return "'\(pick(strings, &random))'"
        case "b", "ob": return pick(["true", "false"], &random)
        default: return pick(dateTexts, &random)
        }
    }
}
