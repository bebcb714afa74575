/// The arithmetic under every integer sum and mean (`ValueAggregates`, `Results`), exact: a sum
/// that leaves the 64-bit range is an error (SQLite's `sum()` raises "integer overflow";
/// realm-core's int sum is an int64), never a value rounded through a double; a mean divides the
/// exact 128-bit sum once, as a double (realm-core's average of ints is a double).
public enum IntegerAggregates {
    /// `sum / count` as a double: the whole part and the remainder apart, so that a sum beyond
    /// 2^53 is not rounded before it is divided. Nil when `count` is not positive.
    public static func mean(sum: Int128, count: Int128) -> Double? {
        guard count > 0 else { return nil }
        let (whole, remainder) = sum.quotientAndRemainder(dividingBy: count)
        return Double(whole) + Double(remainder) / Double(count)
    }

    /// A 128-bit sum as an Int64, or the overflow error naming `what`.
    public static func checked(_ sum: Int128, of what: String) throws -> Int64 {
        guard let total = Int64(exactly: sum) else { throw overflowError(what) }
        return total
    }

    static func overflowError(_ what: String) -> RealmError {
        RealmError(
            .invalidValue,
            "integer overflow: the sum of \(what) is beyond the 64-bit integer range "
                + "(-9223372036854775808...9223372036854775807)")
    }
}
