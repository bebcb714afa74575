/// Writing a decimal128 as text.
extension Decimal128 {
    /// The canonical text, by the rules of Python's `str(Decimal)` (the General Decimal Arithmetic
    /// "to-scientific-string"): plain notation while the exponent is at most 0 and the number is not
    /// below 1E-6 (`123.45`, `0.000001`), scientific otherwise (`1E-7`, `1.5E+40`); `NaN`,
    /// `Infinity`, `-Infinity`. Since values are canonical, `1.50` prints `1.5` and `100` prints `100`.
    /// realm-core's `to_string` differs in its spelling of infinity (`Inf`) and of exponents.
    public var description: String {
        switch kind {
        case .nan: return "NaN"
        case .infinity: return isNegative ? "-Infinity" : "Infinity"
        case .finite: return (isNegative ? "-" : "") + Self.scientificText(String(coefficient), exponent: exponent)
        }
    }

    private static func scientificText(_ digits: String, exponent: Int) -> String {
        let leftDigits = exponent + digits.count
        let dotPlace = exponent <= 0 && leftDigits > -6 ? leftDigits : 1
        var text: String
        if dotPlace <= 0 {
            text = "0." + String(repeating: "0", count: -dotPlace) + digits
        } else if dotPlace >= digits.count {
            text = digits + String(repeating: "0", count: dotPlace - digits.count)
        } else {
            let split = digits.index(digits.startIndex, offsetBy: dotPlace)
            text = digits[..<split] + "." + digits[split...]
        }
        let shown = leftDigits - dotPlace
        if shown != 0 { text += "E" + (shown > 0 ? "+" : "-") + String(shown.magnitude) }
        return text
    }
}
