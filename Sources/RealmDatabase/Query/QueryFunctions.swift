import CSQLite
import Foundation
import RealmQuery
import RealmValues

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
