import CLuaShim

// Stack helpers shared by LuaState and LuaCallContext. They never raise a Lua error (only a
// real out-of-memory of the process could, since host code is not subject to the cap).
extension LuaState {
    func ensureStack(_ L: OpaquePointer, _ n: Int) throws {
        guard n <= 1_000_000, lua_checkstack(L, Int32(n)) != 0 else {
            throw LuaError(.runtime, "Lua stack overflow (cannot grow the stack by \(n))")
        }
    }

    func pushString(_ L: OpaquePointer, _ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            utf8.withMemoryRebound(to: CChar.self) { chars in
                _ = lua_pushlstring(L, chars.baseAddress, chars.count)
            }
        }
    }

    func pushBytes(_ L: OpaquePointer, _ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                _ = lua_pushlstring(L, chars.baseAddress, chars.count)
            }
        }
    }

    func checkKey(_ key: LuaValue) throws {
        switch key {
        case .nil: throw LuaError(.runtime, "table index is nil")
        case .number(let d) where d.isNaN: throw LuaError(.runtime, "table index is NaN")
        default: return
        }
    }

    func checkRef(_ ref: LuaRef) throws {
        guard ref.control === control else {
            throw LuaError(.runtime, "a reference from another Lua state cannot be used here")
        }
    }

    func pushRef(_ L: OpaquePointer, _ ref: LuaRef) throws {
        try checkRef(ref)
        lua_rawgeti(L, rh_lua_registryindex(), lua_Integer(ref.ref))
    }

    /// Pushes one value (one slot is checked; plain tables check their own needs).
    func push(_ L: OpaquePointer, _ value: LuaValue, depth: Int = 0) throws {
        try ensureStack(L, 1)
        switch value {
        case .nil: lua_pushnil(L)
        case .boolean(let b): lua_pushboolean(L, b ? 1 : 0)
        case .integer(let i): lua_pushinteger(L, lua_Integer(i))
        case .number(let d): lua_pushnumber(L, d)
        case .string(let s): pushString(L, s)
        case .bytes(let b): pushBytes(L, b)
        case .table(let r): try pushRef(L, r)
        case .function(let r): try pushRef(L, r)
        case .userdata(let r): try pushRef(L, r)
        case .opaque(let r): try pushRef(L, r)
        case .plainTable(let table):
            guard depth < 64 else { throw LuaError(.runtime, "table nested too deeply to push") }
            try ensureStack(L, 3)
            lua_createtable(L, Int32(clamping: table.array.count), Int32(clamping: table.hash.count))
            do {
                for (i, element) in table.array.enumerated() {
                    try push(L, element, depth: depth + 1)
                    lua_rawseti(L, -2, lua_Integer(i + 1))
                }
                for (key, element) in table.hash where !element.isNil {
                    try checkKey(key)
                    try push(L, key, depth: depth + 1)
                    try push(L, element, depth: depth + 1)
                    lua_rawset(L, -3)
                }
            } catch {
                lua_settop(L, -2)
                throw error
            }
        }
    }

    /// The value at `index`; tables, functions, userdata and threads become references.
    func value(_ L: OpaquePointer, at index: Int32) -> LuaValue {
        switch lua_type(L, index) {
        case LUA_TBOOLEAN:
            return .boolean(lua_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            if lua_isinteger(L, index) != 0 { return .integer(Int64(rh_lua_tointeger(L, index))) }
            return .number(rh_lua_tonumber(L, index))
        case LUA_TSTRING:
            return stringValue(L, at: index)
        case LUA_TTABLE:
            return .table(LuaTableRef(control: control, ref: makeRef(L, index)))
        case LUA_TFUNCTION:
            return .function(LuaFunctionRef(control: control, ref: makeRef(L, index)))
        case LUA_TUSERDATA:
            return .userdata(LuaUserdataRef(control: control, ref: makeRef(L, index)))
        case LUA_TTHREAD, LUA_TLIGHTUSERDATA:
            return .opaque(LuaOpaqueRef(control: control, ref: makeRef(L, index)))
        default:
            return .nil
        }
    }

    func makeRef(_ L: OpaquePointer, _ index: Int32) -> Int32 {
        guard lua_checkstack(L, 1) != 0 else { return -1 }  // LUA_NOREF: the ref reads as nil
        lua_pushvalue(L, index)
        return luaL_ref(L, rh_lua_registryindex())
    }

    /// A string at `index` (must be a string: numbers would be converted in place).
    func stringValue(_ L: OpaquePointer, at index: Int32) -> LuaValue {
        var length = 0
        guard let chars = lua_tolstring(L, index, &length) else { return .nil }
        let buffer = UnsafeRawBufferPointer(start: chars, count: length)
        let string = String(decoding: buffer, as: UTF8.self)
        if string.utf8.count == length && string.utf8.elementsEqual(buffer) { return .string(string) }
        return .bytes(Array(buffer))
    }

    /// A string or number at `index` as text, invalid UTF-8 repaired; "" for other types.
    func stringLossy(_ L: OpaquePointer, _ index: Int32) -> String {
        let t = lua_type(L, index)
        guard t == LUA_TSTRING || t == LUA_TNUMBER else { return "" }
        lua_pushvalue(L, index)
        defer { lua_settop(L, -2) }
        var length = 0
        guard let chars = lua_tolstring(L, -1, &length) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: chars, count: length), as: UTF8.self)
    }

    func copyTable(_ L: OpaquePointer, at index: Int32, depth: Int, visiting: inout Set<UnsafeRawPointer>) throws
        -> LuaTable
    {
        let index = lua_absindex(L, index)
        guard depth > 0 else { throw LuaError(.runtime, "table nested too deeply to copy") }
        guard let identity = lua_topointer(L, index) else { return LuaTable() }
        guard !visiting.contains(identity) else { throw LuaError(.runtime, "cannot copy a table that contains itself") }
        visiting.insert(identity)
        defer { visiting.remove(identity) }
        try ensureStack(L, 4)
        var hash: [LuaValue: LuaValue] = [:]
        lua_pushnil(L)
        while lua_next(L, index) != 0 {
            let key = value(L, at: -2)
            let element: LuaValue
            if lua_type(L, -1) == LUA_TTABLE {
                do {
                    element = .plainTable(try copyTable(L, at: -1, depth: depth - 1, visiting: &visiting))
                } catch {
                    lua_settop(L, -3)
                    throw error
                }
            } else {
                element = value(L, at: -1)
            }
            hash[key] = element
            lua_settop(L, -2)
        }
        var array: [LuaValue] = []
        var i: Int64 = 1
        while let element = hash.removeValue(forKey: .integer(i)) {
            array.append(element)
            i += 1
        }
        return LuaTable(array: array, hash: hash)
    }

    /// How Lua shows a chunk name in messages (`@file` -> `file`, `=name` -> `name`).
    func displayName(_ chunkName: String) -> String {
        if chunkName.hasPrefix("@") || chunkName.hasPrefix("=") { return String(chunkName.dropFirst()) }
        return "[string \"\(chunkName.prefix(40))\"]"
    }
}
