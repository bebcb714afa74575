import CSQLite
import Foundation

// SQL functions the query translation relies on where SQLite's own operators would give answers
// other than Realm's: Unicode case/diacritic folding, Realm's string operators with their null
// rules, Realm's ordering of mixed values and decimals, integer division by zero, and decimal
// aggregates. `QueryFunctions.register(on:)` installs them on a connection.

/// SQL functions the query translation relies on, registered on every connection a realm opens.
package enum QueryFunctions {
    package static func register(on connection: SQLiteConnection) {
        guard let db = connection.handle else { return }
        QueryLanguage.registerFunctions(on: db)
    }
}

extension QueryLanguage {
    /// Registers the query functions (`realm_fold`, `realm_strop`, `realm_cmp`, `realm_div`,
    /// `realm_dec`, `realm_dec_sum/avg/min/max`, `realm_mixed_sum/avg/min/max`) on a connection.
    /// Call once for every connection that runs compiled queries.
    static func registerFunctions(on db: OpaquePointer) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        sqlite3_create_function_v2(db, "realm_fold", 2, flags, nil, realmFoldFunction, nil, nil, nil)
        sqlite3_create_function_v2(db, "realm_strop", 4, flags, nil, realmStringOpFunction, nil, nil, nil)
        sqlite3_create_function_v2(db, "realm_cmp", 4, flags, nil, realmCompareFunction, nil, nil, nil)
        sqlite3_create_function_v2(db, "realm_div", 2, flags, nil, realmDivideFunction, nil, nil, nil)
        sqlite3_create_function_v2(db, "realm_dec", 3, flags, nil, realmDecimalArithmeticFunction, nil, nil, nil)
        for (name, op) in [("realm_dec_sum", 0), ("realm_dec_avg", 1), ("realm_dec_min", 2), ("realm_dec_max", 3)] {
            let app = UnsafeMutableRawPointer(bitPattern: op + 1)
            sqlite3_create_function_v2(db, name, 1, flags, app, nil, realmAggregateStep, realmAggregateFinal, nil)
        }
        for (name, op) in [
            ("realm_mixed_sum", 0), ("realm_mixed_avg", 1), ("realm_mixed_min", 2), ("realm_mixed_max", 3),
        ] {
            let app = UnsafeMutableRawPointer(bitPattern: op + 1)
            sqlite3_create_function_v2(db, name, 2, flags, app, nil, realmAggregateStep, realmAggregateFinal, nil)
        }
    }
}

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
    static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
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

    enum Number {
        case int(Int64)
        case double(Double)
        case decimal(Decimal128)
    }

    /// A numeric value as `realm_cmp` sees it. The storage class decides: a decimal128 is stored as
    /// its 16 order-preserving bytes (`Decimal128.storedBytes`), or comes as text from a query
    /// constant or `realm_dec`; the other numbers are SQLite integers and reals (whatever their `MixedTag`).
    static func number(_ v: SQLiteValue) -> Number? {
        switch v {
        case .blob(let b): return Decimal128(storedBytes: b).map { .decimal($0) }
        case .text(let s): return Decimal128(string: s).map { .decimal($0) }
        case .integer(let i): return .int(i)
        case .real(let d): return .double(d)
        default: return nil
        }
    }

    static func compareNumbers(_ a: Number, _ b: Number) -> Int64 {
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
    static func compareIntDouble(_ l: Int64, _ r: Double) -> Int64 {
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
    static func isNumericTag(_ t: Int64) -> Bool {
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
    static func divide(_ a: SQLiteValue, _ b: SQLiteValue) -> SQLiteValue {
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
    static func decimalArithmetic(_ op: Int64, _ a: SQLiteValue, _ b: SQLiteValue) -> SQLiteValue {
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

    static func decimal(_ v: SQLiteValue) -> Decimal128? {
        switch v {
        case .integer(let i): return Decimal128(i)
        case .real(let d): return Decimal128(d)
        case .blob(let b): return Decimal128(storedBytes: b)
        case .text(let s): return Decimal128(string: s)
        default: return nil
        }
    }
}

// MARK: - C entry points

private func readValue(_ v: OpaquePointer?) -> SQLiteValue {
    switch sqlite3_value_type(v) {
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(v))
    case SQLITE_FLOAT: return .real(sqlite3_value_double(v))
    case SQLITE_TEXT:
        guard let p = sqlite3_value_text(v) else { return .text("") }
        let n = Int(sqlite3_value_bytes(v))
        return .text(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
    case SQLITE_BLOB:
        let n = Int(sqlite3_value_bytes(v))
        guard n > 0, let p = sqlite3_value_blob(v) else { return .blob(Data()) }
        return .blob(Data(bytes: p, count: n))
    default: return .null
    }
}

private func setResult(_ ctx: OpaquePointer?, _ value: SQLiteValue) {
    switch value {
    case .null: sqlite3_result_null(ctx)
    case .integer(let i): sqlite3_result_int64(ctx, i)
    case .real(let d): sqlite3_result_double(ctx, d)
    case .text(let s): sqlite3_result_text(ctx, s, -1, sqliteTransient)
    case .blob(let d):
        d.withUnsafeBytes { raw in
            sqlite3_result_blob(
                ctx, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(d.count), sqliteTransient)
        }
    }
}

private func stringOperand(_ v: OpaquePointer?) -> QueryRuntime.StringOperand {
    switch sqlite3_value_type(v) {
    case SQLITE_NULL: return .null
    case SQLITE_TEXT, SQLITE_BLOB:
        let isText = sqlite3_value_type(v) == SQLITE_TEXT
        let n = Int(sqlite3_value_bytes(v))
        let p = isText ? UnsafeRawPointer(sqlite3_value_text(v)) : sqlite3_value_blob(v)
        guard n > 0, let p else { return isText ? .text("") : .bytes([]) }
        let bytes = [UInt8](UnsafeRawBufferPointer(start: p, count: n))
        return isText ? .text(String(decoding: bytes, as: UTF8.self)) : .bytes(bytes)
    default: return .other
    }
}

private func args(_ argv: UnsafeMutablePointer<OpaquePointer?>?, _ i: Int) -> OpaquePointer? { argv?[i] }

/// realm_fold(value, flags): folded text (TEXT or UTF-8 BLOB), other values unchanged.
private let realmFoldFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    ctx, _, argv in
    let v = args(argv, 0)
    let flags = sqlite3_value_int64(args(argv, 1))
    switch stringOperand(v) {
    case .null: sqlite3_result_null(ctx)
    case .text(let s): sqlite3_result_text(ctx, QueryRuntime.fold(s, flags: flags), -1, sqliteTransient)
    case .bytes(let b):
        if let s = String(validating: b, as: UTF8.self) {
            sqlite3_result_text(ctx, QueryRuntime.fold(s, flags: flags), -1, sqliteTransient)
        } else {
            sqlite3_result_value(ctx, v)
        }
    case .other: sqlite3_result_value(ctx, v)
    }
}

/// realm_strop(op, flags, haystack, needle) → 0/1, with Realm's null rules.
private let realmStringOpFunction:
    @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, _, argv in
        let op = sqlite3_value_int64(args(argv, 0))
        let flags = sqlite3_value_int64(args(argv, 1))
        let result = QueryRuntime.stringOp(
            op, flags: flags, haystack: stringOperand(args(argv, 2)), needle: stringOperand(args(argv, 3)))
        sqlite3_result_int64(ctx, result ? 1 : 0)
    }

/// realm_cmp(a, tagA, b, tagB) → -1, 0, 1, or 2 (unordered).
private let realmCompareFunction:
    @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, _, argv in
        let a = readValue(args(argv, 0))
        let b = readValue(args(argv, 2))
        let ta =
            sqlite3_value_type(args(argv, 1)) == SQLITE_NULL
            ? MixedTag.null.rawValue : sqlite3_value_int64(args(argv, 1))
        let tb =
            sqlite3_value_type(args(argv, 3)) == SQLITE_NULL
            ? MixedTag.null.rawValue : sqlite3_value_int64(args(argv, 3))
        sqlite3_result_int64(ctx, QueryRuntime.compare(a, tag: ta, b, tag: tb))
    }

private let realmDivideFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
    { ctx, _, argv in
        setResult(ctx, QueryRuntime.divide(readValue(args(argv, 0)), readValue(args(argv, 1))))
    }

/// realm_dec(op, a, b): decimal + - * / (op 1…4) on decimal text or numbers.
private let realmDecimalArithmeticFunction:
    @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { ctx, _, argv in
        let op = sqlite3_value_int64(args(argv, 0))
        setResult(ctx, QueryRuntime.decimalArithmetic(op, readValue(args(argv, 1)), readValue(args(argv, 2))))
    }

// MARK: Aggregates over decimals and mixed values

/// One aggregate's running state. The sum is a decimal128 rounded at each step, as realm-core's
/// `Decimal128::operator+=`; the average divides it once by the count. NaN takes no part (as in
/// `ValueAggregates`); an infinite double makes the sum infinite.
final class DecimalAccumulator {
    var sum = Decimal128.zero
    var count = 0
    var minValue: QueryRuntime.Number?
    var maxValue: QueryRuntime.Number?

    func add(_ n: QueryRuntime.Number) {
        switch n {
        case .int(let i): sum = sum + Decimal128(i)
        case .double(let d):
            if d.isNaN { return }
            sum = sum + Decimal128(d)
        case .decimal(let d):
            if d.isNaN { return }
            sum = sum + d
        }
        count += 1
        if minValue.map({ QueryRuntime.compareNumbers(n, $0) == -1 }) ?? true { minValue = n }
        if maxValue.map({ QueryRuntime.compareNumbers(n, $0) == 1 }) ?? true { maxValue = n }
    }
}

private func accumulator(_ ctx: OpaquePointer?, create: Bool) -> DecimalAccumulator? {
    let size = Int32(MemoryLayout<UnsafeMutableRawPointer?>.size)
    guard let raw = sqlite3_aggregate_context(ctx, create ? size : 0) else { return nil }
    let slot = raw.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    if let p = slot.pointee { return Unmanaged<DecimalAccumulator>.fromOpaque(p).takeUnretainedValue() }
    guard create else { return nil }
    let acc = DecimalAccumulator()
    slot.pointee = Unmanaged.passRetained(acc).toOpaque()
    return acc
}

private let realmAggregateStep: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
    { ctx, argc, argv in
        let v = readValue(args(argv, 0))
        if v == .null { return }
        // With a type tag (a mixed column), only numbers are aggregated; without one, the values are decimals.
        if argc == 2 {
            let tagged = args(argv, 1)
            let tag = sqlite3_value_type(tagged) == SQLITE_NULL ? MixedTag.null.rawValue : sqlite3_value_int64(tagged)
            guard QueryRuntime.isNumericTag(tag) else { return }
        }
        guard let n = QueryRuntime.number(v) else { return }
        accumulator(ctx, create: true)?.add(n)
    }

private let realmAggregateFinal: @convention(c) (OpaquePointer?) -> Void = { ctx in
    let op = Int(bitPattern: sqlite3_user_data(ctx)) - 1
    var acc: DecimalAccumulator?
    if let raw = sqlite3_aggregate_context(ctx, 0) {
        let slot = raw.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        if let p = slot.pointee {
            acc = Unmanaged<DecimalAccumulator>.fromOpaque(p).takeRetainedValue()
            slot.pointee = nil
        }
    }
    func text(_ n: QueryRuntime.Number?) -> SQLiteValue {
        switch n {
        case .int(let i)?: return .text(Decimal128(i).description)
        case .double(let d)?: return d.isFinite ? .text(Decimal128(d).description) : .real(d)
        case .decimal(let d)?: return .text(d.description)
        case nil: return .null
        }
    }
    switch op {
    case 0: setResult(ctx, .text((acc?.sum ?? .zero).description))
    case 1:
        guard let acc, acc.count > 0 else {
            sqlite3_result_null(ctx)
            return
        }
        setResult(ctx, .text(acc.sum.divided(by: Int64(acc.count)).description))
    case 2: setResult(ctx, text(acc?.minValue))
    default: setResult(ctx, text(acc?.maxValue))
    }
}
