/// Rounding an exact decimal (a run of digits and an exponent) to a decimal128: every operation
/// computes its exact result (or enough digits of it and a "sticky" flag for the rest) and ends here.
extension Decimal128 {
    /// The decimal128 nearest to `digits × 10^exponent` (digits most significant first; `sticky`:
    /// some nonzero digits follow below the last one), rounding half-even to 34 digits and to the
    /// smallest exponent (subnormals), in one step so there is no double rounding. Too large for
    /// the format: ±Infinity (the IEEE result of overflow when rounding to nearest).
    static func rounded(
        negative: Bool, digits: [UInt8], exponent: Int, sticky: Bool = false, significantDigits: Int = precision
    ) -> Decimal128 {
        guard let first = digits.firstIndex(where: { $0 != 0 }) else { return .zero }
        let n = digits.count - first
        // How many digits stay: at most 34 (or fewer if asked), and none below the smallest exponent.
        var keep = min(n, significantDigits, precision)
        let lowest = exponent + (n - keep)
        if lowest < minExponent { keep -= minExponent - lowest }
        if keep < 0 { return .zero }  // below half of the smallest subnormal
        var coefficient: UInt128 = 0
        for d in digits[first..<(first + keep)] { coefficient = coefficient * 10 + UInt128(d) }
        let dropped = n - keep
        var resultExponent = exponent + dropped
        if dropped > 0 {
            let roundDigit = digits[first + keep]
            let rest = sticky || digits[(first + keep + 1)...].contains { $0 != 0 }
            if roundDigit > 5 || (roundDigit == 5 && (rest || coefficient % 2 == 1)) {
                coefficient += 1
                if coefficient == coefficientLimit {
                    coefficient /= 10
                    resultExponent += 1
                }
            }
        }
        return finished(negative: negative, coefficient: coefficient, exponent: resultExponent)
    }

    /// A rounded coefficient (below 10^34) placed in the format: overflow to ±Infinity, and an
    /// exponent above the largest one folded into the coefficient (IEEE "clamping").
    private static func finished(negative: Bool, coefficient: UInt128, exponent: Int) -> Decimal128 {
        if coefficient == 0 { return .zero }
        if exponent + digitCount(coefficient) - 1 > maxAdjustedExponent {
            return negative ? .negativeInfinity : .infinity
        }
        var c = coefficient
        var e = exponent
        if e > maxExponent {
            c *= power10(e - maxExponent)
            e = maxExponent
        }
        return canonical(negative: negative, coefficient: c, exponent: e)
    }

    /// The decimal digits of `c`, most significant first (`[0]` for zero).
    static func digits(of c: UInt128) -> [UInt8] {
        if c == 0 { return [0] }
        var out: [UInt8] = []
        var v = c
        while v > 0 {
            out.append(UInt8(truncatingIfNeeded: v % 10))
            v /= 10
        }
        return out.reversed()
    }
}
