import LuaSandbox
import RealmDatabase
import RealmHost
import RealmLua

/// What a plugin function returned, as the `result` of its answer: Lua values as relaxed Extended
/// JSON; an object (at the top or inside a returned table) whole, with its links as primary keys;
/// results and collections of objects as arrays of objects. A value JSON cannot hold (a function,
/// a coroutine) is a script error naming it.
enum FunctionResult {
    static func json(_ value: LuaValue, reader: LuaValueReader) throws -> JSONValue {
        if let inspected = try reader.inspect(value) {
            switch inspected {
            case .object(let o): return try ObjectVerbs.json(o)
            case .results(let r):
                var objects = [JSONValue]()
                try r.forEach { objects.append(try ObjectVerbs.json($0)) }
                return .array(objects)
            case .realm: throw ServeError(status: 422, code: "ScriptError", "a function cannot return a realm")
            case .list, .set, .map: break
            }
        }
        switch value {
        case .function, .opaque:
            throw ServeError(
                status: 422, code: "ScriptError", "a function returned a \(value.typeName), which JSON cannot hold")
        default:
            return try json(try reader.realmValue(value))
        }
    }

    private static func json(_ value: RealmValue, depth: Int = 0) throws -> JSONValue {
        switch value {
        case .object(let o) where depth < 8: return try ObjectVerbs.json(o)
        case .list(let items): return .array(try items.map { try json($0, depth: depth + 1) })
        case .dictionary(let d):
            return .object(try d.keys.sorted().map { JSONValue.Field($0, try json(d[$0] ?? .null, depth: depth + 1)) })
        default: return try RealmValueJSON.encode(value, style: .relaxed)
        }
    }
}
