import Foundation
import RealmValues

// MARK: - Shared Swift logic (also used for constant folding at compile time)

package enum QueryRuntime {
    // String operator codes passed to realm_strop.
    package static let opBeginsWith: Int64 = 1
    package static let opEndsWith: Int64 = 2
    package static let opContains: Int64 = 3
    package static let opLike: Int64 = 4
    package static let opEqual: Int64 = 5

    /// Case (flag 1) and diacritic (flag 2) folding, Unicode-aware; ASCII takes a fast path.
    package static func fold(_ s: String, flags: Int64) -> String {
        if flags == 0 { return s }
        if s.utf8.allSatisfy({ $0 < ASCII.firstNonASCII }) {
            if flags & 1 == 0 { return s }
            let lowered = s.utf8.map { ASCII.isUpperLetter($0) ? $0 + ASCII.caseOffset : $0 }
            return String(decoding: lowered, as: UTF8.self)
        }
        var options: String.CompareOptions = []
        if flags & 1 != 0 { options.insert(.caseInsensitive) }
        if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
        return s.folding(options: options, locale: nil)
    }

    /// A string operand: text, bytes, or nil for SQL NULL. Numbers are `.other` (never match).
    package enum StringOperand {
        case null
        case text(String)
        case bytes([UInt8])
        case other

        var isNull: Bool {
            if case .null = self { return true }
            return false
        }
    }

    /// Realm's string operators with their null rules (realm-core `StringData::contains`,
    /// `begins_with`, `ends_with`, `like`): a null needle is contained in everything, LIKE
    /// matches null only with null, and a null haystack contains nothing but null.
    package static func stringOp(_ op: Int64, flags: Int64, haystack: StringOperand, needle: StringOperand) -> Bool {
        if case .other = haystack { return false }
        if case .other = needle { return false }
        let hNull = haystack.isNull
        let nNull = needle.isNull
        switch op {
        case opLike:
            if hNull || nNull { return hNull && nNull }
        case opEqual:
            if hNull || nNull { return hNull == nNull }
        default:
            if nNull { return true }
            if hNull { return false }
        }
        var h = bytesOf(haystack)
        var n = bytesOf(needle)
        if flags != 0 {
            h = Array(fold(String(decoding: h, as: UTF8.self), flags: flags).utf8)
            n = Array(fold(String(decoding: n, as: UTF8.self), flags: flags).utf8)
        }
        switch op {
        case opBeginsWith: return h.count >= n.count && h[0..<n.count].elementsEqual(n)
        case opEndsWith: return h.count >= n.count && h[(h.count - n.count)...].elementsEqual(n)
        case opContains: return n.isEmpty || contains(h, n)
        case opLike:
            return like(
                Array(String(decoding: h, as: UTF8.self).unicodeScalars),
                Array(String(decoding: n, as: UTF8.self).unicodeScalars))
        case opEqual: return h == n
        default: return false
        }
    }

    private static func bytesOf(_ o: StringOperand) -> [UInt8] {
        switch o {
        case .text(let s): return Array(s.utf8)
        case .bytes(let b): return b
        default: return []
        }
    }

    private static func contains(_ h: [UInt8], _ n: [UInt8]) -> Bool {
        guard n.count <= h.count else { return false }
        if n.isEmpty { return true }
        let first = n[0]
        var i = 0
        let last = h.count - n.count
        while i <= last {
            if h[i] == first {
                var j = 1
                while j < n.count && h[i + j] == n[j] { j += 1 }
                if j == n.count { return true }
            }
            i += 1
        }
        return false
    }

    /// `*` matches any run of characters, `?` exactly one; anchored at both ends.
    package static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        var t = 0
        var p = 0
        var starP = -1
        var starT = 0
        while t < text.count {
            if p < pattern.count && (pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t])) {
                t += 1
                p += 1
            } else if p < pattern.count && pattern[p] == "*" {
                // Remember the star: on a mismatch later, it swallows one more character.
                starP = p
                starT = t
                p += 1
            } else if starP >= 0 {
                p = starP + 1
                starT += 1
                t = starT
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }

    // MARK: Realm's ordering of values

    /// Comparison result codes of `realm_cmp`: -1, 0, 1, or 2 for "unequal and unordered"
    /// (one side null, or types that Realm does not compare).
    package static let unordered: Int64 = 2

    package enum Number {
        case int(Int64)
        case double(Double)
        case decimal(Decimal128)
    }

    /// A numeric value as `realm_cmp` sees it. The storage class decides: a decimal128 is stored as
    /// its 16 order-preserving bytes (`Decimal128.storedBytes`), or comes as text from a query
    /// constant or `realm_dec`; the other numbers are SQLite integers and reals (whatever their `MixedTag`).
    package static func number(_ v: SQLiteValue) -> Number? {
        switch v {
        case .blob(let b): return Decimal128(storedBytes: b).map { .decimal($0) }
        case .text(let s): return Decimal128(string: s).map { .decimal($0) }
        case .integer(let i): return .int(i)
        case .real(let d): return .double(d)
        default: return nil
        }
    }

    package static func compareNumbers(_ a: Number, _ b: Number) -> Int64 {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.int(let x), .double(let y)): return compareIntDouble(x, y)
        case (.double(let x), .int(let y)): return negated(compareIntDouble(y, x))
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return unordered }
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.decimal(let x), .decimal(let y)): return compareDecimals(x, y)
        case (.decimal(let x), .int(let y)): return compareDecimals(x, Decimal128(y))
        case (.int(let x), .decimal(let y)): return compareDecimals(Decimal128(x), y)
        case (.decimal(let x), .double(let y)): return compareDecimalDouble(x, y)
        case (.double(let x), .decimal(let y)): return negated(compareDecimalDouble(y, x))
        }
    }

    private static func negated(_ r: Int64) -> Int64 { r == unordered ? unordered : -r }

    /// A query comparison with NaN matches nothing (only sorting places NaN, first).
    private static func compareDecimals(_ x: Decimal128, _ y: Decimal128) -> Int64 {
        if x.isNaN || y.isNaN { return unordered }
        return Int64(x.compare(y))
    }

    /// The double converts exactly (rounded to 34 digits), infinities to ±Infinity.
    private static func compareDecimalDouble(_ x: Decimal128, _ y: Double) -> Int64 {
        if x.isNaN || y.isNaN { return unordered }
        return compareDecimals(x, Decimal128(y))
    }

    /// Exact int/double comparison (realm-core `compare_long_to_double`).
    package static func compareIntDouble(_ l: Int64, _ r: Double) -> Int64 {
        if r.isNaN { return unordered }
        if l <= (1 << 53) && l >= -(1 << 53) {
            let d = Double(l)
            return d == r ? 0 : (d < r ? -1 : 1)
        }
        if r >= 9223372036854775808.0 { return -1 }
        if r < -9223372036854775808.0 { return 1 }
        let ri = Int64(r)
        if l != ri { return l < ri ? -1 : 1 }
        let frac = r - r.rounded(.towardZero)
        return frac == 0 ? 0 : (frac > 0 ? -1 : 1)
    }

    /// Whether a `MixedTag` raw value is one of the number types (which compare with each other).
    package static func isNumericTag(_ t: Int64) -> Bool {
        switch MixedTag(rawValue: t) {
        case .int?, .float?, .double?, .decimal128?: return true
        default: return false
        }
    }

    /// Whether a `MixedTag` raw value is a string or binary data (which compare by bytes).
    private static func isBytesTag(_ t: Int64) -> Bool {
        t == MixedTag.string.rawValue || t == MixedTag.data.rawValue
    }

    /// Realm's comparison of two tagged values (realm-core `Mixed::compare` restricted to
    /// comparable types): numbers across int/float/double/decimal by value, bools below numbers,
    /// strings and binary by bytes, other types only with themselves.
    package static func compare(_ a: SQLiteValue, tag ta: Int64, _ b: SQLiteValue, tag tb: Int64) -> Int64 {
        let aNull = a == .null || ta == MixedTag.null.rawValue
        let bNull = b == .null || tb == MixedTag.null.rawValue
        if aNull || bNull { return aNull && bNull ? 0 : unordered }
        let aNum = isNumericTag(ta)
        let bNum = isNumericTag(tb)
        if aNum && bNum {
            guard let x = number(a), let y = number(b) else { return unordered }
            return compareNumbers(x, y)
        }
        let bool = MixedTag.bool.rawValue
        if ta == bool && bNum { return -1 }
        if aNum && tb == bool { return 1 }
        if isBytesTag(ta) && isBytesTag(tb) {
            // Two strings, the common case (every string comparison of a query or a sync view), without
            // copying their bytes.
            if case .text(let x) = a, case .text(let y) = b { return compareUTF8(x, y) }
            let x = rawBytes(a)
            let y = rawBytes(b)
            return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
        }
        guard ta == tb else { return unordered }
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.real(let x), .real(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.blob(let x), .blob(let y)): return x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
        case (.text(let x), .text(let y)): return compareUTF8(x, y)
        default: return unordered
        }
    }

    /// -1, 0 or 1 as `x`'s UTF-8 bytes sort before, equal or after `y`'s (binary order, as Realm's).
    private static func compareUTF8(_ x: String, _ y: String) -> Int64 {
        var xs = x.utf8.makeIterator()
        var ys = y.utf8.makeIterator()
        while true {
            switch (xs.next(), ys.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let p?, let q?) where p != q: return p < q ? -1 : 1
            default: continue
            }
        }
    }

    private static func rawBytes(_ v: SQLiteValue) -> [UInt8] {
        switch v {
        case .text(let s): return Array(s.utf8)
        case .blob(let d): return [UInt8](d)
        case .integer(let i): return Array(String(i).utf8)
        case .real(let d): return Array(String(d).utf8)
        case .null: return []
        }
    }

    /// Division as Realm does it: an integer divided by zero has no value (the comparison matches
    /// nothing, where SQLite would also give NULL); doubles follow IEEE (±inf).
    package static func divide(_ a: SQLiteValue, _ b: SQLiteValue) -> SQLiteValue {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            if y == 0 { return .null }
            if x == Int64.min && y == -1 { return .integer(Int64.min) }
            return .integer(x / y)
        case (.integer(let x), .real(let y)): return .real(Double(x) / y)
        case (.real(let x), .integer(let y)): return .real(x / Double(y))
        case (.real(let x), .real(let y)): return .real(x / y)
        default: return .null
        }
    }

    /// `realm_dec`: decimal128 arithmetic, each result rounded once (IEEE: x / 0 is ±Infinity,
    /// 0 / 0 NaN). The result is decimal text, which `realm_cmp` reads as a decimal.
    package static func decimalArithmetic(_ op: Int64, _ a: SQLiteValue, _ b: SQLiteValue) -> SQLiteValue {
        guard let x = decimal(a), let y = decimal(b) else { return .null }
        let result: Decimal128
        switch op {
        case 1: result = x + y
        case 2: result = x - y
        case 3: result = x * y
        default: result = x / y
        }
        return .text(result.description)
    }

    package static func decimal(_ v: SQLiteValue) -> Decimal128? {
        switch v {
        case .integer(let i): return Decimal128(i)
        case .real(let d): return Decimal128(d)
        case .blob(let b): return Decimal128(storedBytes: b)
        case .text(let s): return Decimal128(string: s)
        default: return nil
        }
    }
}
