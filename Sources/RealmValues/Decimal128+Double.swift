/// Converting between decimal128 and binary doubles.
extension Decimal128 {
    /// The double's exact binary value rounded half-even to 15 significant digits, as realm-core's
    /// `Decimal128(double)` does (`RoundTo::Digits15`): a double holds 15 to 17 significant decimal
    /// digits, and 15 is the most every double round-trips, so `Decimal128(0.1)` is `0.1` and
    /// `Decimal128(19.99)` is `19.99`, not the binary fraction's 34-digit expansion. ±infinity
    /// becomes ±Infinity and NaN becomes NaN. Never traps. A decimal written as text
    /// (`Decimal128("0.1000000000000000055511151231257827")`) keeps all 34 digits.
    public init(_ value: Double) {
        if value.isNaN {
            self = .nan
        } else if value.isInfinite {
            self = value < 0 ? .negativeInfinity : .infinity
        } else if value == 0 {
            self = .zero
        } else {
            self = Self.exactBinary(value)
        }
    }

    /// value = m × 2^e exactly; with e < 0 that is m × 5^−e × 10^e, an integer times a power of ten.
    private static func exactBinary(_ value: Double) -> Decimal128 {
        let bits = value.bitPattern
        let biased = Int(truncatingIfNeeded: (bits >> 52) & 0x7FF)
        let fraction = bits & ((1 << 52) - 1)
        let m = biased == 0 ? fraction : fraction | (1 << 52)
        let e = biased == 0 ? -1074 : biased - 1075
        var number = BaseBillion(m)
        if e >= 0 {
            number.multiply(byPowerOf: 2, count: e)
            return rounded(negative: value < 0, digits: number.digits, exponent: 0, significantDigits: 15)
        }
        number.multiply(byPowerOf: 5, count: -e)
        return rounded(negative: value < 0, digits: number.digits, exponent: e, significantDigits: 15)
    }
}

/// A nonnegative integer in base 10^9 limbs (least significant first): enough arithmetic to write a
/// double's exact value in decimal digits.
private struct BaseBillion {
    static let base: UInt64 = 1_000_000_000
    var limbs: [UInt64]

    init(_ value: UInt64) {
        limbs = [value % Self.base, (value / Self.base) % Self.base, value / (Self.base * Self.base)]
    }

    /// Multiplies by factor^count, in steps of a power that keeps every limb product below 2^64.
    mutating func multiply(byPowerOf factor: UInt64, count: Int) {
        let stepCount = factor == 2 ? 30 : 13  // 2^30 and 5^13 are both below 2^31
        var step: UInt64 = 1
        for _ in 0..<stepCount { step *= factor }
        var left = count
        while left > 0 {
            let n = min(left, stepCount)
            var f: UInt64 = 1
            for _ in 0..<n { f *= factor }
            multiply(by: n == stepCount ? step : f)
            left -= n
        }
    }

    private mutating func multiply(by f: UInt64) {
        var carry: UInt64 = 0
        for i in limbs.indices {
            let p = limbs[i] * f + carry
            limbs[i] = p % Self.base
            carry = p / Self.base
        }
        while carry > 0 {
            limbs.append(carry % Self.base)
            carry /= Self.base
        }
    }

    /// Decimal digits, most significant first (leading zeros possible).
    var digits: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(limbs.count * 9)
        for limb in limbs.reversed() {
            var chunk = [UInt8](repeating: 0, count: 9)
            var v = limb
            for k in stride(from: 8, through: 0, by: -1) {
                chunk[k] = UInt8(truncatingIfNeeded: v % 10)
                v /= 10
            }
            out += chunk
        }
        return out
    }
}
