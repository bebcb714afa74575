import Foundation

/// A decimal number, as Realm's `Decimal128`: an IEEE 754-2008 decimal128 with 34 significant
/// digits, exponents from −6176 to +6111, NaN and ±Infinity.
///
/// Every value is kept in one canonical form per numeric value (see `canonical`), so `==`, hashing
/// and the ordering compare values: `1.50 == 1.5`, `-0 == 0`. The cohort (trailing zeros) is not
/// kept, as Realm's queries and sorting never see it either. Parsing, printing and arithmetic round
/// half-even to 34 digits, like Python's `decimal` module in a decimal128 context; results too large
/// become ±Infinity (as realm-core's Intel BID library does), never a trap.
public struct Decimal128: Hashable, Comparable, Sendable, CustomStringConvertible {
    enum Kind: UInt8, Sendable {
        case finite, infinity, nan
    }

    let kind: Kind
    /// The sign; always false for NaN and zero (neither has a sign in the canonical form).
    let isNegative: Bool
    /// Below 10^34; zero unless finite.
    let coefficient: UInt128
    /// From −6176 to +6111; zero unless finite.
    let exponent: Int

    /// Limits of the decimal128 format.
    static let precision = 34
    static let minExponent = -6176
    static let maxExponent = 6111
    /// The largest adjusted exponent (of the leading digit): 9.99…E+6144 is the largest finite value.
    static let maxAdjustedExponent = 6144
    static let coefficientLimit: UInt128 = power10(34)

    public static let nan = Decimal128(kind: .nan, isNegative: false, coefficient: 0, exponent: 0)
    public static let infinity = Decimal128(kind: .infinity, isNegative: false, coefficient: 0, exponent: 0)
    public static let negativeInfinity = Decimal128(kind: .infinity, isNegative: true, coefficient: 0, exponent: 0)
    public static let zero = Decimal128(kind: .finite, isNegative: false, coefficient: 0, exponent: 0)

    init(kind: Kind, isNegative: Bool, coefficient: UInt128, exponent: Int) {
        self.kind = kind
        self.isNegative = isNegative
        self.coefficient = coefficient
        self.exponent = exponent
    }

    /// Exactly the integer.
    public init(_ value: Int64) {
        self = Self.canonical(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// A Foundation `Decimal`, through its text (rounded to 34 digits); its NaN is NaN.
    public init(_ value: Decimal) {
        self = value.isNaN ? .nan : Decimal128(string: value.description) ?? .nan
    }

    public var isNaN: Bool { kind == .nan }
    public var isInfinite: Bool { kind == .infinity }
    public var isFinite: Bool { kind == .finite }
    public var isZero: Bool { kind == .finite && coefficient == 0 }

    /// The nearest double (through the decimal text, which `strtod` rounds correctly).
    public var doubleValue: Double {
        switch kind {
        case .nan: return .nan
        case .infinity: return isNegative ? -.infinity : .infinity
        case .finite: return Double(description) ?? .nan
        }
    }

    /// Realm's order (realm-core `Decimal128::compare`): NaN first, then −Infinity, the finite
    /// values by value, +Infinity. A total order, so sorting is stable with NaNs.
    public static func < (a: Decimal128, b: Decimal128) -> Bool { a.orderKey < b.orderKey }

    /// −1, 0 or 1 in Realm's order.
    public func compare(_ other: Decimal128) -> Int {
        let (a, b) = (orderKey, other.orderKey)
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    public var negated: Decimal128 {
        guard kind != .nan, !isZero else { return self }
        return Decimal128(kind: kind, isNegative: !isNegative, coefficient: coefficient, exponent: exponent)
    }

    /// 10^n for 0 ≤ n ≤ 38 (the powers a `UInt128` holds).
    static func power10(_ n: Int) -> UInt128 {
        var p: UInt128 = 1
        for _ in 0..<max(0, min(n, 38)) { p *= 10 }
        return p
    }

    /// The number of decimal digits of `c` (1 for zero).
    static func digitCount(_ c: UInt128) -> Int {
        var n = 1
        var v = c
        while v >= 10 {
            v /= 10
            n += 1
        }
        return n
    }

    /// The one representation of a finite value: zero is `0E0`; trailing zeros are dropped (as far as
    /// the largest exponent allows), then an integer below 10^34 is written with exponent 0. This is
    /// what Python's `normalize()` gives, except that integers are not written as `1E+2`.
    /// `coefficient` must be below 10^34 and the exponent in range (callers round first).
    static func canonical(negative: Bool, coefficient: UInt128, exponent: Int) -> Decimal128 {
        if coefficient == 0 { return .zero }
        var c = coefficient
        var e = exponent
        while c % 10 == 0 && e < maxExponent {
            c /= 10
            e += 1
        }
        if e > 0 && digitCount(c) + e <= precision {
            c *= power10(e)
            e = 0
        }
        return Decimal128(kind: .finite, isNegative: negative, coefficient: c, exponent: e)
    }
}
