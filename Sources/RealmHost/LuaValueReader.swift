import LuaSandbox
import RealmDatabase
import RealmLua

/// Reads the Lua values a chunk returned, for a front end that prints them: the database object
/// behind a userdata, a table's items, Lua's own `tostring`. Valid only inside the
/// `TenantSession` call that handed it out (the Lua state is not the caller's to keep).
public struct LuaValueReader {
    let runtime: RealmLuaRuntime

    /// The database object, results, collection or realm a Lua value holds, if any.
    public func inspect(_ value: LuaValue) throws -> InspectedValue? { try runtime.inspect(value) }

    /// A Lua value as a database value (tables as lists or dictionaries).
    public func realmValue(_ value: LuaValue) throws -> RealmValue { try runtime.realmValue(value) }

    /// `#t`: the length of a table's sequence part.
    public func length(_ table: LuaTableRef) throws -> Int { try runtime.state.length(table) }

    /// `t[index]` (raw access is not needed: printing reads what the script would read).
    public func element(_ table: LuaTableRef, at index: Int) throws -> LuaValue {
        try runtime.state.get(table, .integer(Int64(index)))
    }

    /// A copy of a table, nested tables included up to `maxDepth`.
    public func copy(_ table: LuaTableRef, maxDepth: Int) throws -> LuaTable {
        try runtime.state.copy(table, maxDepth: maxDepth)
    }

    /// The value as Lua's `tostring` writes it.
    public func tostring(_ value: LuaValue) throws -> String {
        if case .string(let s)? = try runtime.state.call(global: "tostring", [value]).first { return s }
        return value.description
    }
}
