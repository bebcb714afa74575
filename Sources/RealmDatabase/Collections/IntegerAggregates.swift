/// Sums and means of integers, exact: a sum that leaves the 64-bit range is an error (SQLite's
/// `sum()` raises "integer overflow"; realm-core's int sum is an int64), never a value rounded
/// through a double; a mean divides the exact 128-bit sum once, as a double (realm-core's
/// average of ints is a double).
public enum IntegerAggregates {
    /// The sum of `values`; `what` names the values in the error (`'Dog.weight'`).
    public static func sum(_ values: some Sequence<Int64>, of what: String) throws -> Int64 {
        var total: Int64 = 0
        for v in values {
            let (next, overflow) = total.addingReportingOverflow(v)
            if overflow { throw overflowError(what) }
            total = next
        }
        return total
    }

    /// The mean of `values`; nil when there are none.
    public static func average(_ values: some Sequence<Int64>) -> Double? {
        var total: Int128 = 0
        var count: Int128 = 0
        for v in values {
            // 2^64 values of at most 2^63 each stay below 2^127: these cannot overflow.
            total += Int128(v)
            count += 1
        }
        return mean(sum: total, count: count)
    }

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
