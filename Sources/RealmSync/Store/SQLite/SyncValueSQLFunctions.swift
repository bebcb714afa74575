import CSQLite
import Foundation
import RealmDatabase

/// SQL functions that read a stored value (`fields.value`, encoded by `StoreEncoding`) as
/// RealmDatabase's query functions take it: `sync_value(blob)` the value, `sync_tag(blob)` its
/// `MixedTag` (`ViewValueRepresentation.tagged`). With `realm_cmp` and `realm_strop` they give the
/// store's queries the semantics of the evaluator and of the local engine.
enum SyncValueSQLFunctions {
    static func register(on connection: SQLiteConnection) {
        guard let db = connection.handle else { return }
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        sqlite3_create_function_v2(db, "sync_value", 1, flags, nil, syncValueFunction, nil, nil, nil)
        sqlite3_create_function_v2(db, "sync_tag", 1, flags, nil, syncTagFunction, nil, nil, nil)
    }
}

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// The tagged value of a stored blob; nil (an SQL error) when the bytes are not a value.
private func tagged(_ argument: OpaquePointer?) -> (SQLiteValue, Int64)? {
    guard sqlite3_value_type(argument) == SQLITE_BLOB else { return (.null, MixedTag.null.rawValue) }
    let count = Int(sqlite3_value_bytes(argument))
    var bytes = [UInt8]()
    if count > 0, let pointer = sqlite3_value_blob(argument) {
        bytes = [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }
    guard let value = try? StoreEncoding.decodeValue(bytes) else { return nil }
    return ViewValueRepresentation.tagged(value)
}

private func setResult(_ context: OpaquePointer?, _ value: SQLiteValue) {
    switch value {
    case .null: sqlite3_result_null(context)
    case .integer(let i): sqlite3_result_int64(context, i)
    case .real(let d): sqlite3_result_double(context, d)
    case .text(let s): sqlite3_result_text(context, s, -1, transient)
    case .blob(let d):
        d.withUnsafeBytes { raw in
            sqlite3_result_blob64(
                context, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(raw.count), transient)
        }
    }
}

private let syncValueFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, argv in
    guard let (value, _) = tagged(argv?[0]) else {
        sqlite3_result_error(context, "sync_value: the stored bytes are not a sync value", -1)
        return
    }
    setResult(context, value)
}

private let syncTagFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, argv in
    guard let (_, tag) = tagged(argv?[0]) else {
        sqlite3_result_error(context, "sync_tag: the stored bytes are not a sync value", -1)
        return
    }
    sqlite3_result_int64(context, tag)
}
