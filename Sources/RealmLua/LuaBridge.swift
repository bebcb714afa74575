import Foundation
import LuaSandbox
import RealmDatabase

/// Converting values between Lua and the database.
///
/// Lua → realm: nil, booleans, integers (→ int), floats (→ double), strings, the value userdata
/// (`ObjectId`, `UUID`, `Date`, `Decimal128`, `Data`), objects, and tables: a sequence becomes a
/// list, any other table a dictionary (an object's values, or a map).
/// Realm → Lua: the reverse, with objects and live collections as userdata.
extension RealmLuaRuntime {
    func toLua(_ value: RealmValue) throws -> LuaValue {
        switch value {
        case .null: return .nil
        case .bool(let b): return .boolean(b)
        case .int(let i): return .integer(i)
        case .float(let f): return .number(Double(f))
        case .double(let d): return .number(d)
        case .string(let s): return .string(s)
        case .data(let d): return try box(DataBox(d))
        case .date(let t): return try box(DateBox(t))
        case .decimal128(let d): return try box(Decimal128Box(d))
        case .objectId(let o): return try box(ObjectIdBox(o))
        case .uuid(let u): return try box(UUIDBox(u))
        case .object(let o): return try box(o)
        case .list(let items): return .plainTable(LuaTable(array: try items.map(toLua)))
        case .dictionary(let d):
            var hash = [LuaValue: LuaValue]()
            for (k, v) in d { hash[.string(k)] = try toLua(v) }
            return .plainTable(LuaTable(hash: hash))
        }
    }

    /// A Swift object as Lua userdata.
    ///
    /// Lua's collector paces itself by the memory Lua allocates, and a userdata is a few bytes
    /// while the objects it keeps alive (an object handle and its row) are not Lua's: a loop that
    /// makes millions of them would grow without the collector noticing. So every 50,000 boxes
    /// the runtime collects, which keeps a migration over a million objects flat in memory.
    func box<T: AnyObject>(_ object: T) throws -> LuaValue {
        paceCollector()
        return .userdata(try state.makeUserdata(object))
    }

    /// Pushes a host object (nil for none) as a binding's one result, straight onto the stack:
    /// no registry slot and no Swift reference, as `box` needs for values kept on the Swift side.
    func push<T: AnyObject>(_ ctx: LuaCallContext, _ object: T?) throws -> Int {
        guard let object else { return try ctx.returning(.nil) }
        paceCollector()
        try ctx.push(userdata: object)
        return 1
    }

    func paceCollector() {
        boxesSinceCollection += 1
        if boxesSinceCollection >= 50_000 {
            boxesSinceCollection = 0
            state.collectGarbage()
        }
    }

    func toRealm(_ value: LuaValue, depth: Int = 0) throws -> RealmValue {
        guard depth < 64 else { throw LuaError(.runtime, "value nested too deeply (more than 64 levels)") }
        switch value {
        case .nil: return .null
        case .boolean(let b): return .bool(b)
        case .integer(let i): return .int(i)
        case .number(let d): return .double(d)
        case .string(let s): return .string(s)
        case .bytes(let b): return .data(Data(b))
        case .userdata(let ref): return try unbox(ref)
        case .table(let ref): return try tableValue(try state.copy(ref), depth: depth)
        case .plainTable(let t): return try tableValue(t, depth: depth)
        case .function: throw LuaError(.runtime, "a function cannot be stored in a realm")
        case .opaque: throw LuaError(.runtime, "a coroutine cannot be stored in a realm")
        }
    }

    private func tableValue(_ table: LuaTable, depth: Int) throws -> RealmValue {
        try tableValue(depth: depth) { visit in
            for (i, v) in table.array.enumerated() { try visit(.integer(Int64(i + 1)), v) }
            for (k, v) in table.hash { try visit(k, v) }
        }
    }

    /// A table as a realm value: a sequence 1...n becomes a list, string keys a dictionary (an
    /// object's values, or a map); anything else is an error. `entries` calls its argument with
    /// every key and value, from a copied table or straight from the Lua stack.
    private func tableValue(depth: Int, entries: ((LuaValue, LuaValue) throws -> Void) throws -> Void) throws
        -> RealmValue
    {
        var fields = [String: RealmValue]()
        var items = [Int64: RealmValue]()
        var otherKey: LuaValue?
        try entries { key, value in
            switch key {
            case .string(let name): fields[name] = try toRealm(value, depth: depth + 1)
            case .integer(let n): items[n] = try toRealm(value, depth: depth + 1)
            default: otherKey = otherKey ?? key
            }
        }
        // Lua's sequence: 1, 2, … n without a hole; other integer keys are named fields.
        var length: Int64 = 0
        while items[length + 1] != nil { length += 1 }
        let hasNamedFields = !fields.isEmpty || otherKey != nil || items.count > Int(length)
        if !hasNamedFields { return .list((0..<length).map { items[$0 + 1] ?? .null }) }
        guard length == 0 else {
            throw LuaError(
                .runtime,
                "a table mixing a sequence and named fields cannot be stored: "
                    + "use either a list {a, b} or fields {x = a}"
            )
        }
        if let key = otherKey ?? items.keys.min().map({ LuaValue.integer($0) }) {
            throw LuaError(.runtime, "table keys must be strings (or a sequence 1..n), got \(key.typeName) key \(key)")
        }
        return .dictionary(fields)
    }

    func unbox(_ ref: LuaUserdataRef) throws -> RealmValue {
        switch try state.hostObject(ref) {
        case let o as DynamicObject: return .object(o)
        case let b as ObjectIdBox: return .objectId(b.value)
        case let b as UUIDBox: return .uuid(b.value)
        case let b as DateBox: return .date(b.value)
        case let b as Decimal128Box: return .decimal128(b.value)
        case let b as DataBox: return .data(b.value)
        case let l as List: return .list(try l.values())
        case let set as MutableSet: return .list(try set.values())
        case let m as Map: return .dictionary(try m.entries())
        default: throw LuaError(.runtime, "this value cannot be stored in a realm")
        }
    }

    /// Argument `i` of a call as a realm value. A table is read where it is on the stack (the
    /// values of every object a script appends come this way).
    func realmArgument(_ ctx: LuaCallContext, _ i: Int) throws -> RealmValue {
        if ctx.type(at: i) == .table {
            return try tableValue(depth: 0) { visit in try ctx.forEachEntry(ofTable: i, visit) }
        }
        return try toRealm(ctx.argument(i))
    }

    /// Arguments from `i` on, as query arguments (`dogs:where("age > $0", 2)`).
    func realmArguments(_ ctx: LuaCallContext, from i: Int) throws -> [RealmValue] {
        guard ctx.argumentCount >= i else { return [] }
        return try (i...ctx.argumentCount).map { try toRealm(ctx.argument($0)) }
    }
}
