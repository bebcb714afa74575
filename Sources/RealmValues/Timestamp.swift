import Foundation

/// A Realm date: whole seconds since the Unix epoch and nanoseconds of the same sign.
///
/// Range: from -9999-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z (`validSeconds`), the
/// years ISO 8601 writes with four digits; constructions beyond it fail. Stored as one 64-bit
/// count of nanoseconds, so dates from 1677-09-21 to 2262-04-11 can be stored in a realm
/// (`storedNanoseconds`); other dates are values only (an error names the property when one is
/// stored).
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let seconds: Int64
    public let nanoseconds: Int32

    /// The seconds of the documented range: years -9999 through 9999.
    public static let validSeconds: ClosedRange<Int64> = -377_705_116_800...253_402_300_799

    /// Nil when the parts have different signs, nanoseconds are out of range, or the seconds are
    /// outside `validSeconds`.
    public init?(seconds: Int64, nanoseconds: Int32) {
        guard nanoseconds > -1_000_000_000, nanoseconds < 1_000_000_000 else { return nil }
        guard (seconds <= 0 && nanoseconds <= 0) || (seconds >= 0 && nanoseconds >= 0) else { return nil }
        guard Self.validSeconds.contains(seconds) else { return nil }
        // The first second of the range has no earlier part: negative nanoseconds there would print
        // as year -10000, which no parser reads back.
        guard seconds != Self.validSeconds.lowerBound || nanoseconds == 0 else { return nil }
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// A `Date`, clamped to the documented range (a `Date` reaches far beyond it, and NaN or
    /// infinite intervals have no counterpart: they give the epoch).
    public init(_ date: Date) {
        let t = date.timeIntervalSince1970
        let lower = Double(Self.validSeconds.lowerBound)
        let upper = Double(Self.validSeconds.upperBound)
        let clamped = t.isFinite ? Swift.min(Swift.max(t, lower), upper) : 0
        let whole = clamped.rounded(.towardZero)
        // Both fit: `whole` is within `validSeconds`, the fraction's nanoseconds below 1e9 in size.
        var s = Int64(exactly: whole) ?? 0
        var ns = Int32(exactly: ((clamped - whole) * 1e9).rounded()) ?? 0
        if ns >= 1_000_000_000 {
            s += 1
            ns -= 1_000_000_000
        }
        if ns <= -1_000_000_000 {
            s -= 1
            ns += 1_000_000_000
        }
        seconds = s
        nanoseconds = ns
    }

    public static var now: Timestamp { Timestamp(Date()) }
    public static let epoch = Timestamp(storedNanoseconds: 0)

    /// Total nanoseconds since the epoch, or nil outside the storable range.
    public var storedNanoseconds: Int64? {
        let (mul, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return nil }
        let (sum, overflow2) = mul.addingReportingOverflow(Int64(nanoseconds))
        return overflow2 ? nil : sum
    }

    package init(storedNanoseconds n: Int64) {
        seconds = n / 1_000_000_000
        nanoseconds = Int32(n % 1_000_000_000)
    }

    public var date: Date { Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9) }

    /// ISO 8601 in UTC, with fractional seconds when there are any: `2024-01-01T00:00:00Z`.
    public var description: String {
        // Floor division by whole days without a step that can overflow, whatever the seconds:
        // truncating division first, then a borrow for negative nanoseconds and remainders.
        var days = seconds / 86400
        var secOfDay = seconds % 86400
        var ns = Int64(nanoseconds)
        if ns < 0 {
            ns += 1_000_000_000
            secOfDay -= 1
        }
        if secOfDay < 0 {
            secOfDay += 86400
            days -= 1
        }
        let (y, m, d) = civilFromDays(days)
        // Four digits after the sign for years before 1 as well (-0939), as the parser reads them.
        var out = String(
            format: "%@%04lld-%02d-%02dT%02lld:%02lld:%02lld", y < 0 ? "-" : "", abs(y), m, d, secOfDay / 3600,
            (secOfDay / 60) % 60, secOfDay % 60)
        if ns != 0 {
            var frac = String(format: "%09lld", ns)
            while frac.hasSuffix("0") { frac.removeLast() }
            out += "." + frac
        }
        return out + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]` (also a space or `@` for `T`, and a date alone).
    public init?(iso8601 text: String) {
        let chars = Array(text.utf8)
        var i = 0
        func number(_ minDigits: Int, _ maxDigits: Int) -> Int64? {
            var v: Int64 = 0
            var n = 0
            while i < chars.count, n < maxDigits, chars[i] >= 48, chars[i] <= 57 {
                v = v * 10 + Int64(chars[i] - 48)
                i += 1
                n += 1
            }
            return n >= minDigits ? v : nil
        }
        func expect(_ c: Unicode.Scalar) -> Bool {
            if i < chars.count, chars[i] == UInt8(ascii: c) {
                i += 1
                return true
            }
            return false
        }
        var negativeYear = false
        if i < chars.count, chars[i] == UInt8(ascii: "-") {
            negativeYear = true
            i += 1
        }
        guard var year = number(4, 6), expect("-"), let month = number(1, 2), expect("-"), let day = number(1, 2) else {
            return nil
        }
        if negativeYear { year = -year }
        var hour: Int64 = 0
        var minute: Int64 = 0
        var second: Int64 = 0
        var nanos: Int64 = 0
        if i < chars.count,
            chars[i] == UInt8(ascii: "T") || chars[i] == UInt8(ascii: " ") || chars[i] == UInt8(ascii: "@")
        {
            i += 1
            guard let h = number(1, 2), expect(":"), let mi = number(1, 2) else { return nil }
            hour = h
            minute = mi
            if expect(":") {
                guard let s = number(1, 2) else { return nil }
                second = s
            }
            if expect(".") || expect(":") {
                let start = i
                guard let f = number(1, 9) else { return nil }
                nanos = f * Int64(pow(10.0, Double(9 - (i - start))))
                while i < chars.count, chars[i] >= 48, chars[i] <= 57 { i += 1 }
            }
        }
        var offset: Int64 = 0
        if expect("Z") || expect("z") {
        } else if i < chars.count, chars[i] == UInt8(ascii: "+") || chars[i] == UInt8(ascii: "-") {
            let sign: Int64 = chars[i] == UInt8(ascii: "+") ? 1 : -1
            i += 1
            guard let oh = number(2, 2), oh <= 23 else { return nil }
            _ = expect(":")
            let om = number(2, 2) ?? 0
            guard om <= 59 else { return nil }
            offset = sign * (oh * 3600 + om * 60)
        }
        guard i == chars.count, abs(year) <= 9999, (1...12).contains(month),
            (1...Int64(daysInMonth(year, Int(month)))).contains(day), hour <= 23, minute <= 59, second <= 59,
            abs(offset) < 86400
        else { return nil }
        // Years within ±9999 keep every term far from Int64's limits.
        var total = daysFromCivil(year, Int(month), Int(day)) * 86400 + hour * 3600 + minute * 60 + second - offset
        var ns = Int32(nanos)
        if total < 0 && ns > 0 {
            total += 1
            ns = ns - 1_000_000_000
        }
        self.init(seconds: total, nanoseconds: ns)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }
}

/// The days of a month of the proleptic Gregorian calendar (February has 29 in leap years).
func daysInMonth(_ year: Int64, _ month: Int) -> Int {
    switch month {
    case 2:
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return leap ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
}

// Howard Hinnant's civil-calendar algorithms (proleptic Gregorian, UTC).
package func daysFromCivil(_ y0: Int64, _ m: Int, _ d: Int) -> Int64 {
    let y = m <= 2 ? y0 - 1 : y0
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = Int64((m + 9) % 12)
    let doy = (153 * mp + 2) / 5 + Int64(d) - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
}

func civilFromDays(_ z0: Int64) -> (Int64, Int, Int) {
    let z = z0 + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let y = yoe + era * 400
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = Int(doy - (153 * mp + 2) / 5 + 1)
    let m = Int(mp < 10 ? mp + 3 : mp - 9)
    return (m <= 2 ? y + 1 : y, m, d)
}
