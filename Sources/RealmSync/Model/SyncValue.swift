import Foundation
import RealmDatabase

/// A primary key, the identity an object travels with (realm-core's `PrimaryKey`). A class without a
/// primary key does not sync.
public enum SyncPrimaryKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    case null
    case int(Int64)
    case string(String)
    case objectId(ObjectId)
    case uuid(UUID)

    private var rank: Int {
        switch self {
        case .null: return 0
        case .int: return 1
        case .string: return 2
        case .objectId: return 3
        case .uuid: return 4
        }
    }

    public static func < (a: SyncPrimaryKey, b: SyncPrimaryKey) -> Bool {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y
        case (.string(let x), .string(let y)): return Array(x.utf8).lexicographicallyPrecedes(y.utf8)
        case (.objectId(let x), .objectId(let y)): return x < y
        case (.uuid(let x), .uuid(let y)): return x.uuidString < y.uuidString
        default: return a.rank < b.rank
        }
    }

    public var description: String {
        switch self {
        case .null: return "null"
        case .int(let v): return String(v)
        case .string(let v): return "'\(v)'"
        case .objectId(let v): return "oid(\(v))"
        case .uuid(let v): return "uuid(\(v.uuidString))"
        }
    }
}

extension SyncPrimaryKey {
    /// The key as a value (a link's target, a created object's primary-key field, stored bytes).
    public var value: SyncValue {
        switch self {
        case .null: return .null
        case .int(let v): return .int(v)
        case .string(let v): return .string(v)
        case .objectId(let v): return .objectId(v)
        case .uuid(let v): return .uuid(v)
        }
    }

    /// The key a value names; nil for values that cannot be primary keys.
    public init?(_ value: SyncValue) {
        switch value {
        case .null: self = .null
        case .int(let v): self = .int(v)
        case .string(let v): self = .string(v)
        case .objectId(let v): self = .objectId(v)
        case .uuid(let v): self = .uuid(v)
        default: return nil
        }
    }
}

/// An object as sync addresses it: its class name and primary key. Local keys never leave a file.
public struct ObjectRef: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var className: String
    public var primaryKey: SyncPrimaryKey

    public init(_ className: String, _ primaryKey: SyncPrimaryKey) {
        self.className = className
        self.primaryKey = primaryKey
    }

    public static func < (a: ObjectRef, b: ObjectRef) -> Bool {
        a.className != b.className ? a.className < b.className : a.primaryKey < b.primaryKey
    }

    public var description: String { "\(className)[\(primaryKey)]" }
}

/// A value as it travels in a changeset. Links name their target by `ObjectRef`; an embedded object
/// travels whole, as its fields (collections inside it as `.list` of values, sets sorted, maps as
/// `.embedded`-like `.map`).
///
/// Equality and hashing compare floating-point values by bit pattern, so that NaN equals itself and
/// canonical dumps compare exactly.
public indirect enum SyncValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Timestamp)
    case decimal(Decimal128)
    case objectId(ObjectId)
    case uuid(UUID)
    case link(ObjectRef)
    /// An embedded object's fields, in name order.
    case embedded([SyncField])
    /// A collection inside an embedded object: a list in order, a set sorted by `SyncValue.order`.
    case list([SyncValue])
    /// A map inside an embedded object, by key order.
    case map([SyncField])

    public static func == (a: SyncValue, b: SyncValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.float(let x), .float(let y)): return x.bitPattern == y.bitPattern
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
        case (.string(let x), .string(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.date(let x), .date(let y)): return x == y
        case (.decimal(let x), .decimal(let y)): return x == y
        case (.objectId(let x), .objectId(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.link(let x), .link(let y)): return x == y
        case (.embedded(let x), .embedded(let y)): return x == y
        case (.list(let x), .list(let y)): return x == y
        case (.map(let x), .map(let y)): return x == y
        default: return false
        }
    }

    /// Values of different kinds may hash alike; equality tells them apart.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(v)
        case .int(let v): hasher.combine(v)
        case .float(let v): hasher.combine(v.bitPattern)
        case .double(let v): hasher.combine(v.bitPattern)
        case .string(let v): hasher.combine(v)
        case .data(let v): hasher.combine(v)
        case .date(let v): hasher.combine(v)
        case .decimal(let v): hasher.combine(v)
        case .objectId(let v): hasher.combine(v)
        case .uuid(let v): hasher.combine(v)
        case .link(let v): hasher.combine(v)
        case .embedded(let v): hasher.combine(v)
        case .list(let v): hasher.combine(v)
        case .map(let v): hasher.combine(v)
        }
    }

    /// A total order used only to keep sets and dumps canonical (not Realm's query order): the
    /// UTF-8 order of `description`, so by kind first, then by that text (floats and doubles by the
    /// decimal text of their bit pattern, which is total but not numeric).
    public static func order(_ a: SyncValue, _ b: SyncValue) -> Bool {
        a.description.utf8.lexicographicallyPrecedes(b.description.utf8)
    }

    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let v): return "b:\(v)"
        case .int(let v): return "i:\(v)"
        case .float(let v): return "f:\(v.bitPattern)"
        case .double(let v): return "d:\(v.bitPattern)"
        case .string(let v): return "s:\(v.debugDescription)"
        case .data(let v): return "data:\(v.base64EncodedString())"
        case .date(let v): return "t:\(v)"
        case .decimal(let v): return "dec:\(v)"
        case .objectId(let v): return "oid:\(v)"
        case .uuid(let v): return "uuid:\(v.uuidString)"
        case .link(let v): return "link:\(v)"
        case .embedded(let fields): return "{" + fields.map(\.description).joined(separator: ", ") + "}"
        case .list(let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .map(let entries): return "map{" + entries.map(\.description).joined(separator: ", ") + "}"
        }
    }
}

/// A named value: a field of an embedded object or a created object, or an entry of a map.
public struct SyncField: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var value: SyncValue

    public init(_ name: String, _ value: SyncValue) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name.debugDescription): \(value)" }
}

extension SyncValue {
    /// A realm value that is neither an object nor a collection, as it travels; nil for the others
    /// (links, embedded objects and collections need the realm or the schema to convert).
    public init?(primitive value: RealmValue) {
        switch value {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .int(v)
        case .float(let v): self = .float(v)
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .data(let v): self = .data(v)
        case .date(let v): self = .date(v)
        case .decimal128(let v): self = .decimal(v)
        case .objectId(let v): self = .objectId(v)
        case .uuid(let v): self = .uuid(v)
        case .object, .list, .dictionary: return nil
        }
    }

    /// The realm value of a primitive; nil for links, embedded objects and collections.
    public var primitiveRealmValue: RealmValue? {
        switch self {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .float(let v): return .float(v)
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .data(let v): return .data(v)
        case .date(let v): return .date(v)
        case .decimal(let v): return .decimal128(v)
        case .objectId(let v): return .objectId(v)
        case .uuid(let v): return .uuid(v)
        case .link, .embedded, .list, .map: return nil
        }
    }
}
