/// Reading a decimal128 from text.
extension Decimal128 {
    /// Parses a decimal literal: `1.5`, `-2e10`, `.5`, `1E+6144`, `NaN`, `Inf`, `+Infinity`,
    /// `-Infinity` (letters in any case, spaces around ignored). More than 34 digits round half-even;
    /// a value beyond the largest decimal128 becomes ±Infinity and one below the smallest becomes 0,
    /// as realm-core's `bid128_from_string` does. Nil when the text is not a number (where realm-core
    /// would give NaN, so that callers can name the bad argument).
    public init?(string: String) {
        var text = Substring(string.trimmingCharacters(in: .whitespaces))
        var negative = false
        if let sign = text.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            text = text.dropFirst()
        }
        switch text.lowercased() {
        case "nan":
            self = .nan
            return
        case "inf", "infinity":
            self = negative ? .negativeInfinity : .infinity
            return
        default:
            guard let value = Self.parseFinite(Array(text.utf8), negative: negative) else { return nil }
            self = value
        }
    }

    /// `digits[.digits][(e|E)[sign]digits]` with at least one digit in the mantissa.
    private static func parseFinite(_ bytes: [UInt8], negative: Bool) -> Decimal128? {
        var digits: [UInt8] = []
        var fractionDigits = 0
        var i = 0
        var seenPoint = false
        while i < bytes.count {
            let b = bytes[i]
            if b >= 0x30 && b <= 0x39 {
                // Leading zeros carry no value: skipping them keeps a long "0.000…1" cheap.
                if !(digits.isEmpty && b == 0x30) { digits.append(b - 0x30) }
                if seenPoint { fractionDigits += 1 }
            } else if b == 0x2E && !seenPoint {
                seenPoint = true
            } else {
                break
            }
            i += 1
        }
        let mantissaLength = i - (seenPoint ? 1 : 0)
        guard mantissaLength > 0 else { return nil }
        var exponent = 0
        if i < bytes.count {
            guard bytes[i] == 0x65 || bytes[i] == 0x45, let e = parseExponent(bytes[(i + 1)...]) else { return nil }
            exponent = e
        }
        // Both terms are bounded (the exponent saturates at ±10^9, the digit count by the input's size).
        let (scaled, overflow) = exponent.subtractingReportingOverflow(fractionDigits)
        if overflow { return nil }
        return rounded(negative: negative, digits: digits, exponent: scaled)
    }

    /// `[sign]digits`, saturating at ±10^9 (far beyond any exponent that can still matter).
    private static func parseExponent(_ bytes: ArraySlice<UInt8>) -> Int? {
        var rest = bytes
        var negative = false
        if let sign = rest.first, sign == 0x2B || sign == 0x2D {
            negative = sign == 0x2D
            rest = rest.dropFirst()
        }
        guard !rest.isEmpty else { return nil }
        var value = 0
        for b in rest {
            guard b >= 0x30 && b <= 0x39 else { return nil }
            value = min(value * 10 + Int(b - 0x30), 1_000_000_000)
        }
        return negative ? -value : value
    }
}
