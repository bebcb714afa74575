import Foundation
import RealmValues

/// Converting between `RealmValue` and what SQLite stores, per property type.
///
/// Encoding is strict about kinds but converts numbers when no value is lost (a Lua or JSON
/// integer into a double property, an integral double into an int property).
enum ValueCoding {
    /// The stored form of `value` for a property of `type` (links must already be resolved to keys).
    /// Returns nil when the value does not fit the type.
    static func encode(_ value: RealmValue, as type: PropertyType) -> SQLiteValue? {
        switch (type, value) {
        case (_, .null): return .null
        case (.bool, .bool(let v)): return .integer(v ? 1 : 0)
        case (.int, .int(let v)): return .integer(v)
        case (.int, .double(let v)) where v == v.rounded() && abs(v) < 9.2e18: return .integer(Int64(v))
        case (.int, .float(let v)) where v == v.rounded() && abs(v) < 9.2e18: return .integer(Int64(v))
        case (.float, .float(let v)): return .real(Double(v))
        case (.float, .double(let v)): return .real(Double(Float(v)))
        case (.float, .int(let v)): return .real(Double(Float(v)))
        case (.double, .double(let v)): return .real(v)
        case (.double, .float(let v)): return .real(Double(v))
        case (.double, .int(let v)): return .real(Double(v))
        case (.string, .string(let v)): return .text(v)
        case (.data, .data(let v)): return .blob(v)
        case (.date, .date(let v)): return v.storedNanoseconds.map { .integer($0) }
        case (.decimal128, .decimal128(let v)): return .blob(v.storedBytes)
        case (.decimal128, .int(let v)): return .blob(Decimal128(v).storedBytes)
        case (.decimal128, .double(let v)): return .blob(Decimal128(v).storedBytes)
        // Realm converts a numeric string given for a decimal128 (RLMObject's value coercion).
        case (.decimal128, .string(let v)): return Decimal128(string: v).map { .blob($0.storedBytes) }
        case (.objectId, .objectId(let v)): return .blob(Data(v.bytes))
        case (.uuid, .uuid(let v)): return .blob(v.realmBytes)
        default: return nil
        }
    }

    /// The value read back from storage for a property of `type` (links are returned as `.int(key)`).
    /// Generic over where the stored value is: an `SQLiteValue`, or a column of the statement a
    /// streaming read is stepping (read in place, with no intermediate value).
    @inline(__always)
    static func decode<Stored: StoredValue>(_ stored: Stored, as type: PropertyType) -> RealmValue {
        switch (type, stored.storageClass) {
        case (_, .null): return .null
        case (.bool, .integer): return .bool(stored.integer != 0)
        case (.int, .integer): return .int(stored.integer)
        case (.int, .real): return .int(Int64(stored.real))
        case (.float, .real): return .float(Float(stored.real))
        case (.float, .integer): return .float(Float(stored.integer))
        case (.double, .real): return .double(stored.real)
        case (.double, .integer): return .double(Double(stored.integer))
        case (.string, .text): return .string(stored.text)
        case (.data, .blob): return .data(stored.blob)
        case (.data, .text): return .data(Data(stored.text.utf8))
        case (.date, .integer): return .date(Timestamp(storedNanoseconds: stored.integer))
        case (.decimal128, .blob): return Decimal128(storedBytes: stored.blob).map { .decimal128($0) } ?? .null
        // The form before `DecimalStorageMigration` (still read, should a value escape it).
        case (.decimal128, .text): return Decimal128(string: stored.text).map { .decimal128($0) } ?? .null
        case (.objectId, .blob): return ObjectId(bytes: [UInt8](stored.blob)).map { .objectId($0) } ?? .null
        case (.uuid, .blob): return UUID(realmBytes: stored.blob).map { .uuid($0) } ?? .null
        case (.object, .integer): return .int(stored.integer)
        default: return .null
        }
    }

    /// A mixed value's stored value and tag. Objects are stored as the text `Class:key`.
    static func encodeMixed(_ value: RealmValue, objectKey: (DynamicObject) throws -> (String, Int64)) rethrows -> (
        SQLiteValue, MixedTag
    )? {
        switch value {
        case .null: return (.null, .null)
        case .bool(let v): return (.integer(v ? 1 : 0), .bool)
        case .int(let v): return (.integer(v), .int)
        case .float(let v): return (.real(Double(v)), .float)
        case .double(let v): return (.real(v), .double)
        case .string(let v): return (.text(v), .string)
        case .data(let v): return (.blob(v), .data)
        case .date(let v): return v.storedNanoseconds.map { (.integer($0), .date) }
        case .decimal128(let v): return (.blob(v.storedBytes), .decimal128)
        case .objectId(let v): return (.blob(Data(v.bytes)), .objectId)
        case .uuid(let v): return (.blob(v.realmBytes), .uuid)
        case .object(let o):
            let (className, key) = try objectKey(o)
            return (.text("\(className):\(key)"), .object)
        case .list, .dictionary: return nil
        }
    }

    /// A mixed value from its stored value and tag. Objects come back as `.string("Class:key")` for
    /// the caller to resolve.
    static func decodeMixed(_ stored: SQLiteValue, tag: Int64) -> RealmValue {
        guard let tag = MixedTag(rawValue: tag) else { return .null }
        switch tag {
        case .null: return .null
        case .bool: return decode(stored, as: .bool)
        case .int: return decode(stored, as: .int)
        case .float: return decode(stored, as: .float)
        case .double: return decode(stored, as: .double)
        case .string: return decode(stored, as: .string)
        case .data: return decode(stored, as: .data)
        case .date: return decode(stored, as: .date)
        case .decimal128: return decode(stored, as: .decimal128)
        case .objectId: return decode(stored, as: .objectId)
        case .uuid: return decode(stored, as: .uuid)
        case .object: return decode(stored, as: .string)
        }
    }
}
