import CLuaShim

/// How Lua sees a host type: methods and metamethods implemented by Swift closures.
///
/// `methods` become the `__index` table (`dog:bark()`); `fields` serve named reads (`dog.isFrozen`)
/// and must only read: completion may evaluate them. `index` is called as `(self, key)` for keys
/// that are neither (`dog.name`, `list[1]`); `indexKeys` lists the names it serves, for listing.
/// The names of methods and fields can be read back with `LuaState.members(ofType:)`.
/// Any other metamethod goes in `metamethods` under its
/// Lua name (`"__len"`, `"__pairs"`, `"__tostring"`, `"__eq"`, `"__lt"`, `"__le"`, `"__call"`,
/// `"__concat"`, `"__close"`, ...). `__gc` and `__metatable` are the host's: the state releases
/// the Swift object in its own `__gc`, and `__metatable` is set to the type name so
/// `getmetatable(obj)` returns the name and scripts can neither reach nor change the metatable.
public struct LuaMetatable {
    public var methods: [String: LuaFunction]
    public var fields: [String: LuaFunction]
    public var index: LuaFunction?
    public var indexKeys: [String]
    public var newIndex: LuaFunction?
    public var metamethods: [String: LuaFunction]

    public init(
        methods: [String: LuaFunction] = [:],
        fields: [String: LuaFunction] = [:],
        index: LuaFunction? = nil,
        indexKeys: [String] = [],
        newIndex: LuaFunction? = nil,
        metamethods: [String: LuaFunction] = [:]
    ) {
        self.methods = methods
        self.fields = fields
        self.index = index
        self.indexKeys = indexKeys
        self.newIndex = newIndex
        self.metamethods = metamethods
    }

    /// Keys the host may not set through `metamethods`.
    static let reserved: Set<String> = ["__gc", "__metatable", "__name", "__mode", "__index", "__newindex"]

    /// `index` preceded by the named fields.
    var combinedIndex: LuaFunction? {
        guard !fields.isEmpty else { return index }
        let fields = fields
        let index = index
        return { ctx in
            if case .string(let key) = ctx.argument(2), let field = fields[key] { return try field(ctx) }
            guard let index else { return try ctx.returning(.nil) }
            return try index(ctx)
        }
    }
}

/// The names a registered host type shows to scripts.
public struct LuaTypeMembers: Sendable, Equatable {
    /// Called with `:` (`realm:objects`).
    public var methods: [String]
    /// Read with `.` (`results.isFrozen`): pure reads.
    public var fields: [String]

    public init(methods: [String], fields: [String]) {
        self.methods = methods
        self.fields = fields
    }
}

extension LuaState {
    /// Registers a Swift class as a Lua userdata type named `name` (shown in error messages,
    /// `tostring`, `getmetatable`). One name per Swift type; a name can be registered once.
    public func registerType<T: AnyObject>(_ type: T.Type, name: String, metatable: LuaMetatable) throws {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard !name.isEmpty, !name.hasPrefix("rh."), !name.hasPrefix("_") else {
            throw LuaError(.runtime, "invalid userdata type name '\(name)'")
        }
        guard userdataTypes[ObjectIdentifier(type)] == nil else {
            throw LuaError(
                .runtime, "\(T.self) is already registered as '\(userdataTypes[ObjectIdentifier(type)] ?? "")'")
        }
        for key in metatable.metamethods.keys where LuaMetatable.reserved.contains(key) {
            throw LuaError(.runtime, "metamethod \(key) cannot be set through LuaMetatable.metamethods")
        }
        try ensureStack(L, 6)
        guard rh_new_object_metatable(L, name) != 0 else {
            throw LuaError(.runtime, "a userdata type named '\(name)' already exists")
        }
        for (key, body) in metatable.metamethods {
            pushFunction(L, body)
            lua_setfield(L, -2, key)
        }
        setIndex(L, methods: metatable.methods, index: metatable.combinedIndex)
        if let newIndex = metatable.newIndex {
            pushFunction(L, newIndex)
            lua_setfield(L, -2, "__newindex")
        }
        userdataTypes[ObjectIdentifier(type)] = name
        userdataNames.insert(name)
        userdataMembers[name] = LuaTypeMembers(
            methods: metatable.methods.keys.sorted(),
            fields: Set(metatable.fields.keys).union(metatable.indexKeys).sorted())
    }

    /// Sets `__index` of the metatable on top of `L`: the methods table, the index function, or
    /// a C closure trying the one then the other.
    private func setIndex(_ L: OpaquePointer, methods: [String: LuaFunction], index: LuaFunction?) {
        if !methods.isEmpty {
            lua_createtable(L, 0, Int32(clamping: methods.count))
            for (key, body) in methods {
                pushFunction(L, body)
                lua_setfield(L, -2, key)
            }
            if let index {
                pushFunction(L, index)
                rh_push_index_with_methods(L)
            }
            lua_setfield(L, -2, "__index")
        } else if let index {
            pushFunction(L, index)
            lua_setfield(L, -2, "__index")
        }
    }

    /// The method and field names of the host type registered as `name` (nil for other names).
    public func members(ofType name: String) -> LuaTypeMembers? { userdataMembers[name] }

    /// The names of every host type registered with this state (the binding fuzz target walks them).
    public var registeredTypeNames: [String] { userdataNames.sorted() }

    /// The registered type name of a host userdata (nil for any other value).
    public func hostTypeName(_ userdata: LuaUserdataRef) throws -> String? {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try ensureStack(L, 2)
        try pushRef(L, userdata)
        guard luaL_getmetafield(L, -1, "__name") == LUA_TSTRING else { return nil }
        let name = stringLossy(L, -1)
        return userdataNames.contains(name) ? name : nil
    }

    /// The Lua name `T` was registered under.
    public func typeName<T: AnyObject>(of type: T.Type) throws -> String {
        guard let name = userdataTypes[ObjectIdentifier(type)] else {
            throw LuaError(.runtime, "host type \(T.self) is not registered with this Lua state")
        }
        return name
    }

    /// A userdata reference holding `object` (retained until Lua collects the userdata or the
    /// state closes). Each call makes a new userdata: give the type an `__eq` metamethod if
    /// scripts compare objects.
    public func makeUserdata<T: AnyObject>(_ object: T) throws -> LuaUserdataRef {
        let L = try thread()
        try pushUserdata(L, object, typeName: typeName(of: T.self))
        return LuaUserdataRef(control: control, ref: luaL_ref(L, rh_lua_registryindex()))
    }

    /// The Swift object in a userdata reference, if it holds a `T`.
    public func object<T: AnyObject>(_ userdata: LuaUserdataRef, as type: T.Type) throws -> T? {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try pushRef(L, userdata)
        return object(L, at: -1, typeName: try typeName(of: type)) as? T
    }

    /// The Swift object in a userdata reference, whatever host type it is registered as (nil for
    /// other values). One metatable lookup: callers `switch` on the object's Swift type.
    public func hostObject(_ userdata: LuaUserdataRef) throws -> AnyObject? {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try ensureStack(L, 1)
        try pushRef(L, userdata)
        return hostObject(L, at: -1)
    }

    /// The host object at `index` of `L`: its metatable's `__name` must be a registered type name.
    func hostObject(_ L: OpaquePointer, at index: Int32) -> AnyObject? {
        guard lua_type(L, index) == LUA_TUSERDATA, lua_checkstack(L, 2) != 0 else { return nil }
        let index = lua_absindex(L, index)
        let type = luaL_getmetafield(L, index, "__name")
        guard type != LUA_TNIL else { return nil }  // nothing was pushed
        let name = type == LUA_TSTRING ? stringLossy(L, -1) : ""
        lua_settop(L, -2)
        guard userdataNames.contains(name) else { return nil }
        return object(L, at: index, typeName: name)
    }

    func pushUserdata(_ L: OpaquePointer, _ object: AnyObject, typeName: String) throws {
        guard userdataNames.contains(typeName) else {
            throw LuaError(.runtime, "no userdata type named '\(typeName)' is registered")
        }
        try ensureStack(L, 3)
        let retained = Unmanaged.passRetained(object).toOpaque()
        guard rh_push_object(L, retained, typeName) != 0 else {
            Unmanaged<AnyObject>.fromOpaque(retained).release()
            throw LuaError(.runtime, "no userdata type named '\(typeName)' is registered")
        }
    }

    func object(_ L: OpaquePointer, at index: Int32, typeName: String) -> AnyObject? {
        guard lua_checkstack(L, 2) != 0, let pointer = rh_test_object(L, index, typeName) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue()
    }
}
