import Foundation
import RealmValues

/// Any value a realm property can hold (Realm's `AnyRealmValue`), plus the two composite forms
/// used to pass nested values in: `.list` (a list or set, or an object as an array in property
/// order) and `.dictionary` (a map, or an object's values by property name).
public enum RealmValue: CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Timestamp)
    case decimal128(Decimal128)
    case objectId(ObjectId)
    case uuid(UUID)
    case object(DynamicObject)
    case list([RealmValue])
    case dictionary([String: RealmValue])

    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The name of the value's type, as in a schema (`int`, `string`, …; `object` for a link).
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .int: return "int"
        case .float: return "float"
        case .double: return "double"
        case .string: return "string"
        case .data: return "data"
        case .date: return "date"
        case .decimal128: return "decimal128"
        case .objectId: return "objectId"
        case .uuid: return "uuid"
        case .object(let o): return o.className
        case .list: return "list"
        case .dictionary: return "dictionary"
        }
    }

    public var boolValue: Bool? {
        if case .bool(let v) = self { return v }
        return nil
    }
    public var intValue: Int64? {
        if case .int(let v) = self { return v }
        return nil
    }
    public var stringValue: String? {
        if case .string(let v) = self { return v }
        return nil
    }
    public var objectValue: DynamicObject? {
        if case .object(let v) = self { return v }
        return nil
    }
    public var listValue: [RealmValue]? {
        if case .list(let v) = self { return v }
        return nil
    }
    public var dictionaryValue: [String: RealmValue]? {
        if case .dictionary(let v) = self { return v }
        return nil
    }

    /// Whether the value is an object or holds one (in a list or dictionary, at any depth).
    var containsObject: Bool {
        switch self {
        case .object: return true
        case .list(let items): return items.contains { $0.containsObject }
        case .dictionary(let entries): return entries.values.contains { $0.containsObject }
        default: return false
        }
    }

    /// A number as a Double (int, float, double, decimal), else nil.
    public var numericValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .float(let v): return Double(v)
        case .double(let v): return v
        case .decimal128(let v): return v.doubleValue
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .null: return "nil"
        case .bool(let v): return v ? "true" : "false"
        case .int(let v): return String(v)
        case .float(let v): return String(v)
        case .double(let v): return String(v)
        case .string(let v): return v
        case .data(let v): return "<\(v.count) bytes>"
        case .date(let v): return v.description
        case .decimal128(let v): return v.description
        case .objectId(let v): return v.stringValue
        case .uuid(let v): return v.uuidString
        case .object(let o): return o.description
        case .list(let v): return "[" + v.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let v):
            return "[" + v.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
        }
    }
}

extension RealmValue: Equatable {
    /// Values are equal when of the same kind and value; objects when they are the same stored object.
    public static func == (a: RealmValue, b: RealmValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.float(let x), .float(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.date(let x), .date(let y)): return x == y
        case (.decimal128(let x), .decimal128(let y)): return x == y
        case (.objectId(let x), .objectId(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.object(let x), .object(let y)): return x.isSameObject(as: y)
        case (.list(let x), .list(let y)): return x == y
        case (.dictionary(let x), .dictionary(let y)): return x == y
        default: return false
        }
    }
}

extension RealmValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: RealmValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, RealmValue)...) {
        // A plain loop into a sized dictionary: `Dictionary(_:uniquingKeysWith:)` costs twice as
        // much, and literals are how values are usually given (a repeated key: the last wins).
        var dictionary = [String: RealmValue](minimumCapacity: elements.count)
        for (key, value) in elements { dictionary[key] = value }
        self = .dictionary(dictionary)
    }
}

extension RealmValue {
    public init(_ object: DynamicObject) { self = .object(object) }
    public init(_ value: Int) { self = .int(Int64(value)) }
    public init(_ value: String) { self = .string(value) }
    public init(_ value: Double) { self = .double(value) }
    public init(_ value: Bool) { self = .bool(value) }
}
