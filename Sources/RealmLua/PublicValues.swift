import Foundation
import LuaSandbox
import RealmDatabase

/// Wrapping database values as Lua values, for hosts that call Lua functions with them.
extension RealmLuaRuntime {
    public func luaValue(_ realm: Realm) throws -> LuaValue {
        track(realm)
        return try box(realm)
    }
    public func luaValue(_ object: DynamicObject) throws -> LuaValue { try box(object) }
    public func luaValue(_ results: Results) throws -> LuaValue { try box(results) }
    public func luaValue(_ migration: Migration) throws -> LuaValue { try box(migration) }
    public func luaValue(_ subscriptions: MutableSubscriptionSet) throws -> LuaValue { try box(subscriptions) }
    /// A realm value (objects and special types as userdata, collections as tables).
    public func luaValue(_ value: RealmValue) throws -> LuaValue { try toLua(value) }
    /// A Lua value as a realm value (tables as lists or dictionaries).
    public func realmValue(_ value: LuaValue) throws -> RealmValue { try toRealm(value) }

    /// The database object a Lua value holds, if it holds one (for printing results in a REPL).
    public func inspect(_ value: LuaValue) throws -> InspectedValue? {
        guard case .userdata(let ref) = value else { return nil }
        switch try state.hostObject(ref) {
        case let o as DynamicObject: return .object(o)
        case let r as Results: return .results(r)
        case let l as List: return .list(l)
        case let set as MutableSet: return .set(set)
        case let m as Map: return .map(m)
        case let r as Realm: return .realm(r)
        default: return nil
        }
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
