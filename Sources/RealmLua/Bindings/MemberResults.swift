import Foundation
import LuaSandbox
import RealmDatabase

/// What a binding's member gives, declared next to the binding so that completion can follow
/// `realm:objects("Dog"):where(…):` to Results of Dog without calling anything.
enum MemberResult: Sendable {
    /// A value of this host type, of the receiver's class (`dogs:where(…)`, `dog:freeze()`).
    case sameClass(String)
    /// A value of this host type, of the class named by the first string argument
    /// (`realm:objects("Dog")`).
    case classArgument(String)
    /// An object of the receiver's class (`dogs:first()`, `dogs[1]`).
    case element
    /// A value of this host type without a class (`dog.realm`).
    case plain(String)
}

/// A binding's methods and fields as named functions, with what each gives.
struct BindingTable {
    var methods: [String: LuaFunction] = [:]
    var fields: [String: LuaFunction] = [:]
    var results: [String: MemberResult] = [:]

    /// Adds a method; `returns` says what it gives, when completion can use it.
    mutating func method(_ name: String, returns: MemberResult? = nil, _ body: @escaping LuaFunction) {
        methods[name] = body
        results[name] = returns
    }

    /// Adds a field (a pure read: completion may evaluate it).
    mutating func field(_ name: String, returns: MemberResult? = nil, _ body: @escaping LuaFunction) {
        fields[name] = body
        results[name] = returns
    }
}

extension RealmLuaRuntime {
    /// Registers `type` under `name` with the table's methods and fields, and records what its
    /// members give.
    func register<T: AnyObject>(
        _ type: T.Type, name: String, _ table: BindingTable, index: LuaFunction? = nil,
        indexKeys: [String] = [], newIndex: LuaFunction? = nil,
        metamethods: [String: LuaFunction] = [:]
    ) throws {
        try state.registerType(
            type, name: name,
            metatable: LuaMetatable(
                methods: table.methods, fields: table.fields, index: index, indexKeys: indexKeys, newIndex: newIndex,
                metamethods: metamethods))
        memberResults[name] = table.results
    }
}
