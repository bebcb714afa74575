/// The types of Lua values, as `lua_type` reports them.
public enum LuaType: Int32, Sendable, CaseIterable {
    case none = -1
    case `nil` = 0
    case boolean = 1
    case lightUserdata = 2
    case number = 3
    case string = 4
    case table = 5
    case function = 6
    case userdata = 7
    case thread = 8

    /// The name Lua uses (`type(x)`).
    public var name: String {
        switch self {
        case .none: return "no value"
        case .nil: return "nil"
        case .boolean: return "boolean"
        case .lightUserdata: return "userdata"
        case .number: return "number"
        case .string: return "string"
        case .table: return "table"
        case .function: return "function"
        case .userdata: return "userdata"
        case .thread: return "thread"
        }
    }
}

/// A value crossing between Swift and Lua.
///
/// Lua strings are byte strings: a string that is valid UTF-8 arrives as `.string`, any other
/// as `.bytes` (`bytesValue` gives the bytes of both). Tables, functions and userdata arrive as
/// references to the live values; `LuaState.copy(_:)` turns a table into a `LuaTable` value.
/// `.plainTable` is the other direction: pushing it builds a new Lua table.
public enum LuaValue: Sendable {
    case `nil`
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    /// A Lua string that is not valid UTF-8 (or raw bytes to push).
    case bytes([UInt8])
    case table(LuaTableRef)
    case function(LuaFunctionRef)
    case userdata(LuaUserdataRef)
    /// A thread (coroutine) or light userdata.
    case opaque(LuaOpaqueRef)
    /// A table by value: pushed as a new Lua table; returned by `LuaState.copy`.
    case plainTable(LuaTable)

    /// The Lua type this value has once pushed.
    public var type: LuaType {
        switch self {
        case .nil: return .nil
        case .boolean: return .boolean
        case .integer, .number: return .number
        case .string, .bytes: return .string
        case .table, .plainTable: return .table
        case .function: return .function
        case .userdata: return .userdata
        case .opaque: return .thread
        }
    }

    public var typeName: String { type.name }
    public var isNil: Bool {
        if case .nil = self { return true }
        return false
    }
    /// Lua truthiness: everything but nil and false.
    public var isTruthy: Bool {
        switch self {
        case .nil, .boolean(false): return false
        default: return true
        }
    }

    public var boolValue: Bool? {
        if case .boolean(let b) = self { return b }
        return nil
    }
    /// The string, when the value is a string that is valid UTF-8.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    /// The bytes of a string (either case).
    public var bytesValue: [UInt8]? {
        switch self {
        case .string(let s): return Array(s.utf8)
        case .bytes(let b): return b
        default: return nil
        }
    }
    /// An integer, or a float with an exact integer value (as Lua's `math.tointeger`).
    public var integerValue: Int64? {
        switch self {
        case .integer(let i): return i
        case .number(let d): return Int64(exactly: d)
        default: return nil
        }
    }
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }
    public var tableRef: LuaTableRef? {
        if case .table(let t) = self { return t }
        return nil
    }
    public var functionRef: LuaFunctionRef? {
        if case .function(let f) = self { return f }
        return nil
    }
    public var userdataRef: LuaUserdataRef? {
        if case .userdata(let u) = self { return u }
        return nil
    }
    public var plainTableValue: LuaTable? {
        if case .plainTable(let t) = self { return t }
        return nil
    }

    /// Makes a value from Lua string bytes: `.string` when valid UTF-8, else `.bytes`.
    public init(bytes: [UInt8]) {
        let s = String(decoding: bytes, as: UTF8.self)
        self = s.utf8.elementsEqual(bytes) ? .string(s) : .bytes(bytes)
    }
}

/// A Lua table copied into Swift: the sequence `t[1..n]` in `array` and every other key in
/// `hash`. Nested tables are copied too (see `LuaState.copy`).
public struct LuaTable: Sendable, Hashable {
    public var array: [LuaValue]
    public var hash: [LuaValue: LuaValue]

    public init(array: [LuaValue] = [], hash: [LuaValue: LuaValue] = [:]) {
        self.array = array
        self.hash = hash
    }

    /// A table with string keys.
    public init(fields: [String: LuaValue]) {
        self.array = []
        self.hash = Dictionary(uniqueKeysWithValues: fields.map { (LuaValue.string($0.key), $0.value) })
    }

    /// `t[key]` with Lua's key rules: integer keys 1...n live in `array`.
    public subscript(key: LuaValue) -> LuaValue {
        if let i = key.integerValue, i >= 1, i <= Int64(array.count) { return array[Int(i - 1)] }
        return hash[key] ?? .nil
    }

    public subscript(key: String) -> LuaValue { self[.string(key)] }

    /// The number of entries, sequence and hash together.
    public var count: Int { array.count + hash.count }
}

// MARK: - Equality with Lua's rules

extension LuaValue: Hashable {
    /// Raw equality as Lua defines it for values that are not references: `1 == 1.0`, strings by
    /// bytes. References compare by reference object identity.
    public static func == (a: LuaValue, b: LuaValue) -> Bool {
        switch (a, b) {
        case (.nil, .nil): return true
        case (.boolean(let x), .boolean(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.integer(let i), .number(let d)), (.number(let d), .integer(let i)):
            return Int64(exactly: d) == i
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        case (.string, .bytes), (.bytes, .string), (.bytes, .bytes):
            return a.bytesValue == b.bytesValue
        case (.table(let x), .table(let y)): return x === y
        case (.function(let x), .function(let y)): return x === y
        case (.userdata(let x), .userdata(let y)): return x === y
        case (.opaque(let x), .opaque(let y)): return x === y
        case (.plainTable(let x), .plainTable(let y)): return x == y
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .nil: hasher.combine(0)
        case .boolean(let b): hasher.combine(b)
        case .integer(let i): hasher.combine(i)
        case .number(let d):
            if let i = Int64(exactly: d) { hasher.combine(i) } else { hasher.combine(d) }
        case .string, .bytes:
            hasher.combine(7)
            for byte in bytesValue ?? [] { hasher.combine(byte) }
        case .table(let r): hasher.combine(r)
        case .function(let r): hasher.combine(r)
        case .userdata(let r): hasher.combine(r)
        case .opaque(let r): hasher.combine(r)
        case .plainTable(let t): hasher.combine(t)
        }
    }
}

// MARK: - Literals (handy in hosts and tests)

extension LuaValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(arrayLiteral elements: LuaValue...) { self = .plainTable(LuaTable(array: elements)) }
    public init(dictionaryLiteral elements: (LuaValue, LuaValue)...) {
        var hash: [LuaValue: LuaValue] = [:]
        for (k, v) in elements { hash[k] = v }
        self = .plainTable(LuaTable(hash: hash))
    }
}

extension LuaValue: CustomStringConvertible {
    /// A short description for logs and test failures (not Lua's `tostring`).
    public var description: String {
        switch self {
        case .nil: return "nil"
        case .boolean(let b): return String(b)
        case .integer(let i): return String(i)
        case .number(let d): return String(d)
        case .string(let s): return String(reflecting: s)
        case .bytes(let b): return "bytes(\(b.count))"
        case .table(let r): return "table<\(r.ref)>"
        case .function(let r): return "function<\(r.ref)>"
        case .userdata(let r): return "userdata<\(r.ref)>"
        case .opaque(let r): return "opaque<\(r.ref)>"
        case .plainTable(let t): return "{array: \(t.array), hash: \(t.hash)}"
        }
    }
}
