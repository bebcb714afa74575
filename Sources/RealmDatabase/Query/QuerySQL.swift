import Foundation
import RealmQuery
import RealmValues

// Building blocks of the SQL the translator emits: fragments that carry their bound values in
// textual order, boolean conditions with compile-time folding, and the typed operands.

/// SQL text with the values of its `?` placeholders, in the order they appear.
struct SQLFragment: ExpressibleByStringInterpolation {
    var text: String
    var bindings: [SQLiteValue]

    init(_ text: String = "", _ bindings: [SQLiteValue] = []) {
        self.text = text
        self.bindings = bindings
    }

    init(stringLiteral value: String) { self.init(value) }

    init(stringInterpolation: Interpolation) {
        text = stringInterpolation.text
        bindings = stringInterpolation.bindings
    }

    struct Interpolation: StringInterpolationProtocol {
        var text = ""
        var bindings = [SQLiteValue]()
        init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 8)
        }
        mutating func appendLiteral(_ literal: String) { text += literal }
        mutating func appendInterpolation(_ fragment: SQLFragment) {
            text += fragment.text
            bindings += fragment.bindings
        }
        mutating func appendInterpolation(raw: String) { text += raw }
        mutating func appendInterpolation(param value: SQLiteValue) {
            text += "?"
            bindings.append(value)
        }
    }

    static func param(_ value: SQLiteValue) -> SQLFragment { SQLFragment(String("?"), [value]) }

    /// SQL text without bound values (identifiers and operators only, never user values).
    static func raw(_ text: String) -> SQLFragment { SQLFragment(text, []) }

    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var out = SQLFragment()
        for (i, p) in parts.enumerated() {
            if i > 0 { out.text += separator }
            out.text += p.text
            out.bindings += p.bindings
        }
        return out
    }

    static func + (a: SQLFragment, b: SQLFragment) -> SQLFragment {
        SQLFragment(a.text + b.text, a.bindings + b.bindings)
    }
}

/// A boolean SQL condition. SQL NULL counts as false everywhere a condition is used: AND and OR
/// keep that reading, and negation is written `(c) IS NOT 1`, so Realm's two-valued logic holds.
struct QueryCondition {
    enum Kind { case atom, and, or }

    var sql: SQLFragment
    /// Known at compile time.
    var constant: Bool?
    var kind: Kind
    /// An estimate of the SQL nesting, to emit the deepest operand first (SQLite's parser stack is shallow).
    var depth: Int

    static let alwaysTrue = QueryCondition(sql: "1", constant: true, kind: .atom, depth: 0)
    static let alwaysFalse = QueryCondition(sql: "0", constant: false, kind: .atom, depth: 0)

    static func constant(_ b: Bool) -> QueryCondition { b ? alwaysTrue : alwaysFalse }

    static func atom(_ sql: SQLFragment, depth: Int = 1) -> QueryCondition {
        QueryCondition(sql: sql, constant: nil, kind: .atom, depth: depth)
    }

    static func and(_ conditions: [QueryCondition]) -> QueryCondition {
        var parts = [QueryCondition]()
        for c in conditions {
            if c.constant == false { return .alwaysFalse }
            if c.constant == true { continue }
            if c.kind == .and { parts.append(contentsOf: c.flattened) } else { parts.append(c) }
        }
        if parts.isEmpty { return .alwaysTrue }
        if parts.count == 1 { return parts[0] }
        return combine(parts, kind: .and)
    }

    static func or(_ conditions: [QueryCondition]) -> QueryCondition {
        var parts = [QueryCondition]()
        for c in conditions {
            if c.constant == true { return .alwaysTrue }
            if c.constant == false { continue }
            if c.kind == .or { parts.append(contentsOf: c.flattened) } else { parts.append(c) }
        }
        if parts.isEmpty { return .alwaysFalse }
        if parts.count == 1 { return parts[0] }
        return combine(parts, kind: .or)
    }

    static func not(_ c: QueryCondition) -> QueryCondition {
        if let k = c.constant { return .constant(!k) }
        return QueryCondition(sql: "(\(c.sql)) IS NOT 1", constant: nil, kind: .atom, depth: c.depth + 1)
    }

    /// The children of a flattened AND / OR (kept so that nested chains stay flat).
    private var children: [QueryCondition]?
    private var flattened: [QueryCondition] { children ?? [self] }

    private init(sql: SQLFragment, constant: Bool?, kind: Kind, depth: Int, children: [QueryCondition]? = nil) {
        self.sql = sql
        self.constant = constant
        self.kind = kind
        self.depth = depth
        self.children = children
    }

    private static func combine(_ parts: [QueryCondition], kind: Kind) -> QueryCondition {
        // SQLite builds `a OR b OR c …` as a left-deep tree and limits expression depth to 1000:
        // long chains are grouped in parenthesised blocks of 32, recursively (depth 32 per level).
        if parts.count > 32 {
            var groups = [QueryCondition]()
            var i = 0
            while i < parts.count {
                let chunk = Array(parts[i..<min(i + 32, parts.count)])
                let c = chunk.count == 1 ? chunk[0] : combine(chunk, kind: kind)
                groups.append(QueryCondition(sql: "(\(c.sql))", constant: nil, kind: .atom, depth: c.depth + 1))
                i += 32
            }
            let grouped = combine(groups, kind: kind)
            return QueryCondition(sql: grouped.sql, constant: nil, kind: kind, depth: grouped.depth, children: parts)
        }
        // Deepest first: SQLite reduces it before pushing the siblings, so nesting costs less parser stack.
        let ordered = parts.enumerated().sorted { a, b in
            a.element.depth != b.element.depth ? a.element.depth > b.element.depth : a.offset < b.offset
        }.map(\.element)
        var pieces = [SQLFragment]()
        var depth = 0
        for c in ordered {
            // AND binds tighter than OR: only an OR inside an AND needs parentheses.
            if kind == .and && c.kind == .or {
                pieces.append("(\(c.sql))")
                depth = max(depth, c.depth + 1)
            } else {
                pieces.append(c.sql)
                depth = max(depth, c.depth)
            }
        }
        let sql = SQLFragment.joined(pieces, separator: kind == .and ? " AND " : " OR ")
        return QueryCondition(sql: sql, constant: nil, kind: kind, depth: depth + 1, children: parts)
    }
}

/// The type of a value in a query.
enum QueryValueType: Equatable {
    case bool, int, float, double, string, data, date, decimal, objectId, uuid, mixed
    /// The key of an object of the class.
    case link(String)
    /// The type of a mixed value (`@type`), as a `MixedTag` code.
    case typeName

    init(_ type: PropertyType, objectClassName: String?) {
        switch type {
        case .bool: self = .bool
        case .int: self = .int
        case .float: self = .float
        case .double: self = .double
        case .string: self = .string
        case .data: self = .data
        case .date: self = .date
        case .decimal128: self = .decimal
        case .objectId: self = .objectId
        case .uuid: self = .uuid
        case .mixed: self = .mixed
        case .object, .linkingObjects: self = .link(objectClassName ?? "")
        }
    }

    /// The name in messages, as Realm spells types.
    var name: String {
        switch self {
        case .bool: return "bool"
        case .int: return "int"
        case .float: return "float"
        case .double: return "double"
        case .string: return "string"
        case .data: return "binary"
        case .date: return "timestamp"
        case .decimal: return "decimal128"
        case .objectId: return "objectId"
        case .uuid: return "uuid"
        case .mixed: return "mixed"
        case .link(let c): return "link to '\(c)'"
        case .typeName: return "type"
        }
    }

    var isNumeric: Bool { [.int, .float, .double, .decimal].contains(self) }
    var isStringLike: Bool { self == .string || self == .data }

    /// The `MixedTag` a value of this type carries when compared with mixed values.
    var tag: Int64 {
        switch self {
        case .bool: return MixedTag.bool.rawValue
        case .int: return MixedTag.int.rawValue
        case .float: return MixedTag.float.rawValue
        case .double: return MixedTag.double.rawValue
        case .string: return MixedTag.string.rawValue
        case .data: return MixedTag.data.rawValue
        case .date: return MixedTag.date.rawValue
        case .decimal: return MixedTag.decimal128.rawValue
        case .objectId: return MixedTag.objectId.rawValue
        case .uuid: return MixedTag.uuid.rawValue
        case .link: return MixedTag.object.rawValue
        case .mixed, .typeName: return MixedTag.int.rawValue
        }
    }

    /// Coarse groups of types Realm compares with each other.
    enum Category { case numeric, bool, stringish, date, objectId, uuid, link, mixed, typeName }
    var category: Category {
        switch self {
        case .int, .float, .double, .decimal: return .numeric
        case .bool: return .bool
        case .string, .data: return .stringish
        case .date: return .date
        case .objectId: return .objectId
        case .uuid: return .uuid
        case .link: return .link
        case .mixed: return .mixed
        case .typeName: return .typeName
        }
    }
}

/// A single value per row of the current scope.
struct QueryScalar {
    var sql: SQLFragment
    /// The `MixedTag` expression of a mixed value.
    var tag: SQLFragment?
    var type: QueryValueType
    var nullable: Bool
    /// A plain column of the row (comparisons on it stay index-friendly).
    var isColumn: Bool
    /// The key path as written, for messages.
    var text: String
    /// Depth estimate of the SQL.
    var depth: Int = 0

    /// The value and tag as `realm_cmp` takes them.
    var taggedSQL: (SQLFragment, SQLFragment) {
        switch type {
        case .mixed: return (sql, tag ?? "0")
        case .link(let c):
            return ("(\(SQLFragment.param(.text(c + ":"))) || \(sql))", SQLFragment(String(MixedTag.object.rawValue)))
        default: return (sql, SQLFragment(String(type.tag)))
        }
    }
}

/// A value known when compiling: a literal or an argument.
struct QueryConstant {
    enum Value {
        case null
        case bool(Bool)
        case int(Int64)
        /// A double, with its literal text when written in the query (for exact decimal conversion).
        case double(Double, literal: String?)
        case float(Float)
        case decimal(Decimal128)
        case string(String)
        case data(Data)
        /// `B64"…"`: a string when it decodes to UTF-8 and is compared with strings, else binary.
        case base64(Data)
        case date(Timestamp)
        case objectId(ObjectId)
        case uuid(UUID)
        case object(className: String, key: Int64)
        /// `O<key>`: a key without a class.
        case objectKey(Int64)
    }

    var value: Value
    var offset: Int
    var text: String
    var isLiteral: Bool

    var isNull: Bool {
        if case .null = value { return true }
        return false
    }
    var isNaN: Bool {
        switch value {
        case .double(let d, _): return d.isNaN
        case .float(let f): return f.isNaN
        case .decimal(let d): return d.isNaN
        default: return false
        }
    }

    var typeName: String {
        switch value {
        case .null: return "null"
        case .bool: return "bool"
        case .int: return "int"
        case .double: return "double"
        case .float: return "float"
        case .decimal: return "decimal128"
        case .string: return "string"
        case .data, .base64: return "binary"
        case .date: return "timestamp"
        case .objectId: return "objectId"
        case .uuid: return "uuid"
        case .object(let c, _): return "link to '\(c)'"
        case .objectKey: return "link"
        }
    }

    var isNumeric: Bool {
        switch value {
        case .int, .double, .float, .decimal: return true
        default: return false
        }
    }

    /// The value and `MixedTag` as stored in a mixed column.
    var tagged: (SQLiteValue, Int64) {
        switch value {
        case .null: return (.null, 0)
        case .bool(let b): return (.integer(b ? 1 : 0), MixedTag.bool.rawValue)
        case .int(let i): return (.integer(i), MixedTag.int.rawValue)
        case .double(let d, _): return (.real(d), MixedTag.double.rawValue)
        case .float(let f): return (.real(Double(f)), MixedTag.float.rawValue)
        case .decimal(let d): return (.text(d.description), MixedTag.decimal128.rawValue)
        case .string(let s): return (.text(s), MixedTag.string.rawValue)
        case .data(let d), .base64(let d): return (.blob(d), MixedTag.data.rawValue)
        case .date(let t): return (t.storedNanoseconds.map { .integer($0) } ?? .null, MixedTag.date.rawValue)
        case .objectId(let o): return (.blob(Data(o.bytes)), MixedTag.objectId.rawValue)
        case .uuid(let u): return (.blob(u.realmBytes), MixedTag.uuid.rawValue)
        case .object(let c, let k): return (.text("\(c):\(k)"), MixedTag.object.rawValue)
        case .objectKey(let k): return (.integer(k), MixedTag.object.rawValue)
        }
    }

    /// The text of a string-like constant (base64 decoded as UTF-8), for string operators.
    var stringOperand: QueryRuntime.StringOperand {
        switch value {
        case .null: return .null
        case .string(let s): return .text(s)
        case .data(let d): return .bytes([UInt8](d))
        case .base64(let d):
            if let s = String(validating: d, as: UTF8.self) { return .text(s) }
            return .bytes([UInt8](d))
        default: return .other
        }
    }
}

/// Many values per row: the rows of a join chain, with one element value each.
struct QueryMulti {
    /// `"T1" AS a1 JOIN "T2" AS a2 ON …`
    var from: SQLFragment
    /// The condition tying the chain's first table to the enclosing row.
    var correlation: SQLFragment
    var element: QueryScalar
    /// The order of a list's elements (positions of the list tables in the chain).
    var order: [String]
    var text: String
    var offset: Int
    /// The elements are a list, set or dictionary of values (realm-core's `ColumnListBase`), not objects.
    var isValueCollection = false
}

enum QueryOperand {
    case scalar(QueryScalar)
    case constant(QueryConstant)
    /// A list literal or list argument, with its quantifier.
    case list([QueryConstant], QueryQuantifier?, offset: Int, text: String)
    /// A key path through a collection, with its quantifier (none written means ANY).
    case multi(QueryMulti, QueryQuantifier?)
}
