/// Addition, subtraction, multiplication and division, each rounded once (half-even, 34 digits),
/// with IEEE's special cases: NaN in, NaN out; ∞ − ∞, 0 × ∞, 0 / 0 and ∞ / ∞ are NaN; x / 0 is
/// ±Infinity (as realm-core's `bid128_div`); overflow is ±Infinity.
extension Decimal128 {
    public static func + (a: Decimal128, b: Decimal128) -> Decimal128 {
        if a.isNaN || b.isNaN { return .nan }
        if a.isInfinite || b.isInfinite {
            if a.isInfinite && b.isInfinite && a.isNegative != b.isNegative { return .nan }
            return a.isInfinite ? a : b
        }
        if a.isZero { return b }
        if b.isZero { return a }
        return addFinite(a, b)
    }

    public static func - (a: Decimal128, b: Decimal128) -> Decimal128 { a + b.negated }

    public static func * (a: Decimal128, b: Decimal128) -> Decimal128 {
        if a.isNaN || b.isNaN { return .nan }
        let negative = a.isNegative != b.isNegative
        if a.isInfinite || b.isInfinite {
            if a.isZero || b.isZero { return .nan }
            return negative ? .negativeInfinity : .infinity
        }
        let product = DecimalDigits.multiply(digits(of: a.coefficient), digits(of: b.coefficient))
        return rounded(negative: negative, digits: product, exponent: a.exponent + b.exponent)
    }

    public static func / (a: Decimal128, b: Decimal128) -> Decimal128 {
        if a.isNaN || b.isNaN { return .nan }
        let negative = a.isNegative != b.isNegative
        if a.isInfinite {
            if b.isInfinite { return .nan }
            return negative ? .negativeInfinity : .infinity
        }
        if b.isInfinite { return .zero }
        if b.isZero { return a.isZero ? .nan : (negative ? .negativeInfinity : .infinity) }
        if a.isZero { return .zero }
        // Enough digits for 34 significant ones and a rounding digit; the remainder is the sticky part.
        let dividend = digits(of: a.coefficient)
        let divisor = digits(of: b.coefficient)
        let shift = max(0, precision + 2 + divisor.count - dividend.count)
        let (quotient, exact) = DecimalDigits.divide(dividend + [UInt8](repeating: 0, count: shift), by: divisor)
        return rounded(negative: negative, digits: quotient, exponent: a.exponent - b.exponent - shift, sticky: !exact)
    }

    /// The mean's division: by a count of values.
    public func divided(by count: Int64) -> Decimal128 { self / Decimal128(count) }

    /// Two nonzero finite values. An addend far below the other's last digit only decides rounding,
    /// so it is replaced by a tiny one of the same sign: the aligned digits stay short.
    private static func addFinite(_ a: Decimal128, _ b: Decimal128) -> Decimal128 {
        let (big, small) = a.adjustedExponent >= b.adjustedExponent ? (a, b) : (b, a)
        var smallCoefficient = small.coefficient
        var smallExponent = small.exponent
        let floor = big.adjustedExponent - precision - 4
        if small.adjustedExponent < floor {
            smallCoefficient = 1
            smallExponent = floor - 1
        }
        let lowest = min(big.exponent, smallExponent)
        let x = digits(of: big.coefficient) + [UInt8](repeating: 0, count: big.exponent - lowest)
        let y = digits(of: smallCoefficient) + [UInt8](repeating: 0, count: smallExponent - lowest)
        if big.isNegative == small.isNegative {
            return rounded(negative: big.isNegative, digits: DecimalDigits.add(x, y), exponent: lowest)
        }
        switch DecimalDigits.compare(x, y) {
        case 0: return .zero
        case 1: return rounded(negative: big.isNegative, digits: DecimalDigits.subtract(x, y), exponent: lowest)
        default: return rounded(negative: small.isNegative, digits: DecimalDigits.subtract(y, x), exponent: lowest)
        }
    }

    /// The exponent of the leading digit (`1.5E+40` has 40).
    var adjustedExponent: Int { exponent + Self.digitCount(coefficient) - 1 }
}

/// Schoolbook arithmetic on nonnegative integers written as decimal digits, most significant first.
enum DecimalDigits {
    static func add(_ x: [UInt8], _ y: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max(x.count, y.count) + 1)
        var (i, j, k) = (x.count - 1, y.count - 1, out.count - 1)
        var carry: UInt8 = 0
        while k >= 0 {
            let s = (i >= 0 ? x[i] : 0) + (j >= 0 ? y[j] : 0) + carry
            out[k] = s % 10
            carry = s / 10
            (i, j, k) = (i - 1, j - 1, k - 1)
        }
        return out
    }

    /// x − y for x ≥ y.
    static func subtract(_ x: [UInt8], _ y: [UInt8]) -> [UInt8] {
        var out = x
        var borrow: UInt8 = 0
        var j = y.count - 1
        for i in stride(from: x.count - 1, through: 0, by: -1) {
            let sub = (j >= 0 ? y[j] : 0) + borrow
            if out[i] >= sub {
                out[i] -= sub
                borrow = 0
            } else {
                out[i] = out[i] + 10 - sub
                borrow = 1
            }
            j -= 1
        }
        return out
    }

    /// −1, 0 or 1, ignoring leading zeros.
    static func compare(_ x: [UInt8], _ y: [UInt8]) -> Int {
        let a = x.drop { $0 == 0 }
        let b = y.drop { $0 == 0 }
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for (p, q) in zip(a, b) where p != q { return p < q ? -1 : 1 }
        return 0
    }

    static func multiply(_ x: [UInt8], _ y: [UInt8]) -> [UInt8] {
        var sums = [Int](repeating: 0, count: x.count + y.count)
        for (i, p) in x.enumerated() {
            for (j, q) in y.enumerated() { sums[i + j + 1] += Int(p) * Int(q) }
        }
        var carry = 0
        for k in stride(from: sums.count - 1, through: 0, by: -1) {
            let s = sums[k] + carry
            sums[k] = s % 10
            carry = s / 10
        }
        return sums.map { UInt8(truncatingIfNeeded: $0) }
    }

    /// The integer quotient's digits, and whether the division was exact. `divisor` is nonzero.
    static func divide(_ dividend: [UInt8], by divisor: [UInt8]) -> (quotient: [UInt8], exact: Bool) {
        var quotient: [UInt8] = []
        quotient.reserveCapacity(dividend.count)
        var remainder: [UInt8] = []
        for d in dividend {
            remainder.append(d)
            var q: UInt8 = 0
            while compare(remainder, divisor) >= 0 {
                remainder = subtract(remainder, divisor)
                q += 1
            }
            remainder = Array(remainder.drop { $0 == 0 })
            quotient.append(q)
        }
        return (quotient, !remainder.contains { $0 != 0 })
    }
}
