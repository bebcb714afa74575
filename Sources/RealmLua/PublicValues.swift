import Foundation
import LuaSandbox
import RealmDatabase

/// Wrapping database values as Lua values, for hosts that call Lua functions with them.
extension RealmLuaRuntime {
    public func luaValue(_ realm: Realm) throws -> LuaValue {
        track(realm)
        return try box(RealmBox(realm))
    }
    public func luaValue(_ object: DynamicObject) throws -> LuaValue { try box(ObjectBox(object)) }
    public func luaValue(_ results: Results) throws -> LuaValue { try box(ResultsBox(results)) }
    public func luaValue(_ migration: Migration) throws -> LuaValue { try box(MigrationBox(migration)) }
    public func luaValue(_ subscriptions: MutableSubscriptionSet) throws -> LuaValue { try box(MutableSubscriptionSetBox(subscriptions)) }
    /// A realm value (objects and special types as userdata, collections as tables).
    public func luaValue(_ value: RealmValue) throws -> LuaValue { try toLua(value) }
    /// A Lua value as a realm value (tables as lists or dictionaries).
    public func realmValue(_ value: LuaValue) throws -> RealmValue { try toRealm(value) }

    /// The database object a Lua value holds, if it holds one (for printing results in a REPL).
    public func inspect(_ value: LuaValue) throws -> InspectedValue? {
        guard case .userdata(let ref) = value else { return nil }
        if let b = try state.object(ref, as: ObjectBox.self) { return .object(b.object) }
        if let b = try state.object(ref, as: ResultsBox.self) { return .results(b.results) }
        if let b = try state.object(ref, as: ListBox.self) { return .list(b.list) }
        if let b = try state.object(ref, as: SetBox.self) { return .set(b.set) }
        if let b = try state.object(ref, as: MapBox.self) { return .map(b.map) }
        if let b = try state.object(ref, as: RealmBox.self) { return .realm(b.realm) }
        return nil
    }
}

/// What `inspect` finds in a Lua value.
public enum InspectedValue {
    case object(DynamicObject)
    case results(Results)
    case list(List)
    case set(MutableSet)
    case map(Map)
    case realm(Realm)
}
