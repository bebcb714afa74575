import CLuaShim

/// What a Swift function called from Lua sees: its arguments (1-based, like Lua's stack) and a
/// place to push results.
///
/// The checking accessors throw `LuaError`s worded like Lua's own
/// (`file:line: bad argument #1 to 'bark' (Dog expected, got string)`); throwing them, or any
/// error, from the function raises a Lua error after the function has returned. A thrown
/// `LuaError` raises its `value` (a table error object stays a table; an error that came from a
/// nested Lua call is re-raised unchanged); any other Swift error raises
/// `"chunk:line: <String(describing: error)>"`. Scripts can catch these with `pcall`.
///
/// Only valid during the call. Memory allocated while Swift code runs is not refused (the cap
/// applies again as soon as Lua code runs), so pushing never raises.
public struct LuaCallContext {
    /// The state, for calling back into Lua (`ctx.state.call(...)`) and for everything else.
    /// Calls made from here share the running call's deadline and budget.
    public let state: LuaState
    let thread: OpaquePointer
    /// Number of arguments passed.
    public let argumentCount: Int

    init(state: LuaState, thread: OpaquePointer, argumentCount: Int) {
        self.state = state
        self.thread = thread
        self.argumentCount = argumentCount
    }

    // MARK: Reading arguments

    /// The type of argument `index` (`.none` past the last argument).
    public func type(at index: Int) -> LuaType {
        LuaType(rawValue: lua_type(thread, Int32(index))) ?? .none
    }

    /// Whether argument `index` is absent or nil.
    public func isNil(_ index: Int) -> Bool { lua_type(thread, Int32(index)) <= 0 }

    /// Argument `index` as a value (`.nil` when absent). Tables and functions become references.
    public func argument(_ index: Int) -> LuaValue {
        guard index >= 1, index <= argumentCount else { return .nil }
        return state.value(thread, at: Int32(index))
    }

    /// Calls `body` with each key and value of the table argument `index`, in Lua's traversal
    /// order, reading the table where it is: no copy of it is made first. A nested table comes as
    /// a `.table` reference. `body` must leave the stack as it found it and not change the table.
    public func forEachEntry(ofTable index: Int, _ body: (_ key: LuaValue, _ value: LuaValue) throws -> Void) throws {
        guard index >= 1, index <= argumentCount, lua_type(thread, Int32(index)) == LUA_TTABLE else {
            throw typeError(index, expected: "table")
        }
        try state.ensureStack(thread, 3)
        lua_pushnil(thread)
        while lua_next(thread, Int32(index)) != 0 {
            let key = state.value(thread, at: -2)
            let value = state.value(thread, at: -1)
            lua_settop(thread, -2)  // the value; the key stays for lua_next
            do {
                try body(key, value)
            } catch {
                lua_settop(thread, -2)  // the key
                throw error
            }
        }
    }

    /// All arguments.
    public var arguments: [LuaValue] {
        argumentCount == 0 ? [] : (1...argumentCount).map { argument($0) }
    }

    /// A string argument; numbers are converted as Lua does. Must be valid UTF-8.
    public func string(_ index: Int) throws -> String {
        switch try stringOrBytes(index) {
        case .string(let s): return s
        default: throw argumentError(index, "string is not valid UTF-8")
        }
    }

    /// A string argument's bytes (any bytes); numbers are converted.
    public func bytes(_ index: Int) throws -> [UInt8] {
        try stringOrBytes(index).bytesValue ?? []
    }

    private func stringOrBytes(_ index: Int) throws -> LuaValue {
        let t = lua_type(thread, Int32(index))
        guard t == LUA_TSTRING || t == LUA_TNUMBER else { throw typeError(index, expected: "string") }
        // lua_tolstring converts a number in place, as luaL_checkstring does.
        var length = 0
        guard lua_tolstring(thread, Int32(index), &length) != nil else { throw typeError(index, expected: "string") }
        return state.stringValue(thread, at: Int32(index))
    }

    /// An integer argument: an integer, a float with an exact integer value, or a string
    /// convertible to one (Lua's `luaL_checkinteger`).
    public func integer(_ index: Int) throws -> Int64 {
        var ok: Int32 = 0
        let i = lua_tointegerx(thread, Int32(index), &ok)
        if ok != 0 { return Int64(i) }
        if lua_isnumber(thread, Int32(index)) != 0 {
            throw argumentError(index, "number has no integer representation")
        }
        throw typeError(index, expected: "number")
    }

    // MARK: Positions, counts and limits: the one checked conversion to Swift's Int

    /// An integer argument as a Swift `Int` (a count, a limit, a position). Floats count only with
    /// an exact integer value: a fraction, NaN or ±inf is an error naming the argument, never a
    /// truncation.
    public func int(_ index: Int) throws -> Int {
        guard let n = Int(exactly: try integer(index)) else { throw argumentError(index, "integer out of range") }
        return n
    }

    /// A 1-based Lua position argument as a 0-based Swift index. Only the conversion is checked
    /// here (`math.mininteger` has no 0-based counterpart: an error naming the method and the
    /// argument); the collection checks the index against its count, with its own error.
    public func position(_ index: Int) throws -> Int {
        let (p, overflow) = try int(index).subtractingReportingOverflow(1)
        guard !overflow else { throw argumentError(index, "position out of range") }
        return p
    }

    public func optionalPosition(_ index: Int) throws -> Int? { isNil(index) ? nil : try position(index) }

    /// The key of an element read (`x[i]`, `__index`) as a 0-based index into `count` elements:
    /// nil when the key is not an integer (or a float with an integer value) from 1 to `count`,
    /// which Lua reads as "no such element". The one conversion every 1-based element read uses.
    public func elementIndex(_ index: Int, count: Int) -> Int? {
        guard let i = argument(index).integerValue, i >= 1, i <= Int64(count) else { return nil }
        return Int(i) - 1  // 1 ≤ i ≤ count: fits, and cannot overflow
    }

    /// A number argument (Lua's `luaL_checknumber`).
    public func number(_ index: Int) throws -> Double {
        var ok: Int32 = 0
        let d = lua_tonumberx(thread, Int32(index), &ok)
        guard ok != 0 else { throw typeError(index, expected: "number") }
        return d
    }

    /// A boolean argument (strict: only true or false).
    public func boolean(_ index: Int) throws -> Bool {
        guard lua_type(thread, Int32(index)) == LUA_TBOOLEAN else { throw typeError(index, expected: "boolean") }
        return lua_toboolean(thread, Int32(index)) != 0
    }

    /// Lua truthiness of argument `index` (absent and nil are false).
    public func truthy(_ index: Int) -> Bool { lua_toboolean(thread, Int32(index)) != 0 }

    /// A table argument.
    public func table(_ index: Int) throws -> LuaTableRef {
        guard lua_type(thread, Int32(index)) == LUA_TTABLE, case .table(let t) = argument(index) else {
            throw typeError(index, expected: "table")
        }
        return t
    }

    /// A function argument.
    public func function(_ index: Int) throws -> LuaFunctionRef {
        guard lua_type(thread, Int32(index)) == LUA_TFUNCTION, case .function(let f) = argument(index) else {
            throw typeError(index, expected: "function")
        }
        return f
    }

    /// The Swift object of a host userdata argument of type `T` (registered with
    /// `LuaState.registerType`).
    public func userdata<T: AnyObject>(_ index: Int, as type: T.Type) throws -> T {
        let name = try state.typeName(of: type)
        guard let object = state.object(thread, at: Int32(index), typeName: name) as? T else {
            throw typeError(index, expected: name)
        }
        return object
    }

    /// The Swift object of argument `index` if it is a host userdata of type `T`, else nil.
    public func testUserdata<T: AnyObject>(_ index: Int, as type: T.Type) -> T? {
        guard let name = try? state.typeName(of: type) else { return nil }
        return state.object(thread, at: Int32(index), typeName: name) as? T
    }

    /// The Swift object of argument `index` if it is any host userdata, else nil.
    public func hostObject(at index: Int) -> AnyObject? {
        state.hostObject(thread, at: Int32(index))
    }

    /// The name of the host type of argument `index` (its metatable's `__name`), if any.
    public func userdataTypeName(_ index: Int) -> String? {
        guard lua_type(thread, Int32(index)) == LUA_TUSERDATA else { return nil }
        defer { lua_settop(thread, -2) }
        guard luaL_getmetafield(thread, Int32(index), "__name") == LUA_TSTRING else {
            lua_pushnil(thread)
            return nil
        }
        return state.stringValue(thread, at: -1).stringValue
    }

    public func optionalString(_ index: Int) throws -> String? { isNil(index) ? nil : try string(index) }
    public func optionalInteger(_ index: Int) throws -> Int64? { isNil(index) ? nil : try integer(index) }
    public func optionalNumber(_ index: Int) throws -> Double? { isNil(index) ? nil : try number(index) }
    public func optionalBoolean(_ index: Int) throws -> Bool? { isNil(index) ? nil : try boolean(index) }
    public func optionalTable(_ index: Int) throws -> LuaTableRef? { isNil(index) ? nil : try table(index) }
    public func optionalFunction(_ index: Int) throws -> LuaFunctionRef? { isNil(index) ? nil : try function(index) }

    // MARK: Errors worded like Lua's

    /// `file:line: bad argument #index to 'name' (message)`.
    public func argumentError(_ index: Int, _ message: String) -> LuaError {
        let L = thread
        guard lua_checkstack(L, 4) != 0 else { return LuaError(.runtime, "bad argument #\(index) (\(message))") }
        state.pushString(L, message)
        rh_push_argerror(L, Int32(index), lua_tolstring(L, -1, nil))
        return popMessage(2)
    }

    /// `file:line: bad argument #index to 'name' (expected expected, got <type>)`.
    public func typeError(_ index: Int, expected: String) -> LuaError {
        let L = thread
        guard lua_checkstack(L, 6) != 0 else {
            return LuaError(.runtime, "bad argument #\(index) (\(expected) expected)")
        }
        rh_push_typeerror(L, Int32(index), expected)
        return popMessage(1)
    }

    /// An error that reads `file:line: message` (position of the calling Lua code).
    public func error(_ message: String, kind: LuaError.Kind = .runtime) -> LuaError {
        let L = thread
        guard lua_checkstack(L, 3) != 0 else { return LuaError(kind, message) }
        luaL_where(L, 1)
        state.pushString(L, message)
        lua_concat(L, 2)
        var error = popMessage(1)
        error.kind = kind
        return error
    }

    private func popMessage(_ count: Int32) -> LuaError {
        let message = state.stringLossy(thread, -1)
        lua_settop(thread, -count - 1)
        var error = LuaError(.runtime, message)
        error.fromLua = true
        return error
    }

    // MARK: Pushing results

    /// Pushes a value.
    public func push(_ value: LuaValue) throws { try state.push(thread, value) }

    /// Pushes a new Lua function backed by a Swift closure.
    public func push(function body: @escaping LuaFunction) throws {
        try state.ensureStack(thread, 2)
        state.pushFunction(thread, body)
    }

    /// Pushes a host object as userdata of its registered type.
    public func push<T: AnyObject>(userdata object: T) throws {
        try state.pushUserdata(thread, object, typeName: state.typeName(of: T.self))
    }

    /// Pushes a host object as userdata with the metatable registered under `typeName`.
    public func push(userdata object: AnyObject, typeName: String) throws {
        try state.pushUserdata(thread, object, typeName: typeName)
    }

    /// Pushes `values` and returns their count: `return try ctx.returning(.integer(1), "two")`.
    public func returning(_ values: LuaValue...) throws -> Int { try returning(values) }

    public func returning(_ values: [LuaValue]) throws -> Int {
        try state.ensureStack(thread, values.count + 1)
        for value in values { try push(value) }
        return values.count
    }
}
