import Foundation
import RealmQuery
import RealmValues

/// The aggregates a property or a collection of values has (Realm's `min`, `max`, `sum`, `average`).
public enum AggregateFunction: String, Sendable, CaseIterable {
    case min, max, sum, average
}

/// Min, max, sum and average of values of one declared type, by realm-core's rules
/// (`aggregate_ops.hpp`, `Mixed::accumulate_numeric_to`): nulls and NaN are skipped; ints sum
/// exactly (a sum beyond 64 bits is an error) and average as a double; floats and doubles add as
/// doubles; decimals add in decimal128 arithmetic; dates take part in min and max only. Of mixed
/// values only numbers (int, float, double, decimal) take part, ordered by value across types;
/// once a decimal takes part the sum and the average are decimals, every number converted to
/// decimal128 and added in turn, as realm-core adds a mixed column.
///
/// Values are fed one at a time, so `Results` streams a column through it and nothing is kept
/// but the running state; the aggregates of lists, sets and maps of values use the same rules.
public struct ValueAggregates {
    /// The declared type of the values (`.mixed` for values of any type).
    public let type: PropertyType
    private var intSum: Int128 = 0
    private var intCount = 0
    private var doubleSum: Double = 0
    private var doubleCount = 0
    /// Every number taking part, as a decimal128: only kept for decimal and mixed values.
    private var decimalSum = Decimal128.zero
    private var decimalCount = 0
    private var least: Extreme?
    private var greatest: Extreme?

    /// A value that is the smallest or largest so far, with the key it is ordered by.
    private struct Extreme {
        enum Key {
            case number(QueryRuntime.Number)
            case date(Timestamp)
        }
        let value: RealmValue
        let key: Key

        /// Numbers compare with numbers by value, dates with dates; a typed collection never mixes
        /// the two and mixed values bring no dates, so nothing else is ever compared.
        func orders(before other: Extreme) -> Bool {
            switch (key, other.key) {
            case (.number(let a), .number(let b)): return QueryRuntime.compareNumbers(a, b) == -1
            case (.date(let a), .date(let b)): return a < b
            default: return false
            }
        }
    }

    /// Whether the decimal sum is kept: only where a decimal can take part (adding decimals costs
    /// more than adding ints or doubles) and only when a sum or an average is wanted.
    private let keepsDecimalSum: Bool
    /// Whether the least and greatest values are kept: only when a minimum or maximum is wanted
    /// (each value would otherwise be ordered against them for nothing).
    private let keepsExtremes: Bool

    /// Aggregates to read `function` from (`minimum`, `maximum`, `sum`, `average`): only the
    /// state that function needs is kept.
    public init(type: PropertyType, for function: AggregateFunction) {
        self.type = type
        let summing = function == .sum || function == .average
        keepsDecimalSum = summing && (type == .mixed || type == .decimal128)
        keepsExtremes = !summing
    }

    /// The aggregate `function` of `values`, declared of `type`; `what` names them in errors
    /// (`'Dog.weight'`). Nil where Realm has no value (the min, max or average of no values).
    public static func compute(
        _ function: AggregateFunction, of values: some Sequence<RealmValue>, type: PropertyType, what: String
    ) throws -> RealmValue? {
        try check(function, type: type, what: what)
        var aggregates = ValueAggregates(type: type, for: function)
        for v in values { aggregates.add(v) }
        return try aggregates.result(function, what: what)
    }

    /// Throws Realm's error unless values of `type` have the aggregate `function`.
    public static func check(_ function: AggregateFunction, type: PropertyType, what: String) throws {
        let numeric: Set<PropertyType> = [.int, .float, .double, .decimal128, .mixed]
        let allowDates = function == .min || function == .max
        guard numeric.contains(type) || (allowDates && type == .date) else {
            throw RealmError(
                .invalidProperty,
                "Cannot compute \(function.rawValue) of \(what): only int, float, double, decimal128"
                    + "\(allowDates ? ", date" : "") and mixed properties can be aggregated.")
        }
    }

    /// Takes one value into account; values that take no part (nil, NaN, a string in a mixed
    /// collection) are passed over.
    public mutating func add(_ value: RealmValue) {
        switch value {
        case .int(let i):
            intSum += Int128(i)
            intCount += 1
            if keepsDecimalSum { decimalSum = decimalSum + Decimal128(i) }
            consider(value, .number(.int(i)))
        case .float(let f): add(double: Double(f), value)
        case .double(let d): add(double: d, value)
        case .decimal128(let d):
            guard !d.isNaN else { return }
            decimalCount += 1
            if keepsDecimalSum { decimalSum = decimalSum + d }
            consider(value, .number(.decimal(d)))
        case .date(let t) where type == .date: consider(value, .date(t))
        default: return
        }
    }

    private mutating func add(double d: Double, _ value: RealmValue) {
        guard !d.isNaN else { return }
        doubleSum += d
        doubleCount += 1
        if keepsDecimalSum { decimalSum = decimalSum + Decimal128(d) }
        consider(value, .number(.double(d)))
    }

    private mutating func consider(_ value: RealmValue, _ key: Extreme.Key) {
        guard keepsExtremes else { return }
        let candidate = Extreme(value: value, key: key)
        if least.map({ candidate.orders(before: $0) }) ?? true { least = candidate }
        if greatest.map({ $0.orders(before: candidate) }) ?? true { greatest = candidate }
    }

    /// How many values took part in the sum and the average.
    public var count: Int { intCount + doubleCount + decimalCount }

    /// The smallest value taking part, in its own type; nil when none did (or when made for a sum
    /// or an average, which keeps no extremes).
    public var minimum: RealmValue? { least?.value }
    /// The largest value taking part, in its own type; nil as `minimum` is.
    public var maximum: RealmValue? { greatest?.value }

    /// The sum: zero of the declared type when no value took part (an int 0 for mixed values).
    public func sum(what: String) throws -> RealmValue {
        if type == .decimal128 || decimalCount > 0 { return .decimal128(decimalSum) }
        let total = Double(intSum) + doubleSum
        switch type {
        case .float: return .float(Float(total))
        case .double: return .double(total)
        default: return doubleCount > 0 ? .double(total) : .int(try IntegerAggregates.checked(intSum, of: what))
        }
    }

    /// The mean: a decimal when a decimal took part, otherwise a double (of ints, their exact
    /// sum divided once); nil when no value took part.
    public var average: RealmValue? {
        guard count > 0 else { return nil }
        if type == .decimal128 || decimalCount > 0 { return .decimal128(decimalSum.divided(by: Int64(count))) }
        if doubleCount == 0 { return IntegerAggregates.mean(sum: intSum, count: Int128(intCount)).map { .double($0) } }
        return .double((Double(intSum) + doubleSum) / Double(count))
    }

    /// The aggregate `function` of the values added so far.
    public func result(_ function: AggregateFunction, what: String) throws -> RealmValue? {
        switch function {
        case .min: return minimum
        case .max: return maximum
        case .sum: return try sum(what: what)
        case .average: return average
        }
    }
}
