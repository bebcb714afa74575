import Foundation
import RealmDatabase

/// Request bodies and query parameters as JSON: parsed by the project's one codec (`JSONValue`)
/// with the host's nesting limit (a body of a million `[` is refused there, before it can exhaust
/// the parser's stack).
enum JSONBody {
    /// Parses `data`, refusing nesting deeper than `maxDepth` and text that is not JSON.
    static func parse(_ data: Data, maxDepth: Int, what: String = "the request body") throws -> JSONValue {
        do {
            return try JSONValue.parse(data, maxDepth: maxDepth)
        } catch {
            if error.tooDeep {
                throw ServeError.badRequest("\(what) nests deeper than \(maxDepth) levels (at byte \(error.offset))")
            }
            throw ServeError.badRequest("\(what) is not valid JSON: \(error)")
        }
    }

    /// A body that must be a JSON object (`{}` when empty).
    static func object(_ data: Data, maxDepth: Int) throws -> JSONValue {
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .object([]) }
        let value = try parse(data, maxDepth: maxDepth)
        guard case .object = value else {
            throw ServeError.badRequest("the request body must be a JSON object, found \(value.kindName)")
        }
        return value
    }

    /// JSON (a request's value) as a realm value with no schema to follow: a function's `args`,
    /// query arguments, token claims. Tagged values become their types; objects become
    /// dictionaries, arrays lists.
    static func untypedValue(_ json: JSONValue, at path: String) throws -> RealmValue {
        switch json {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .tagged, .ref:
            return try RealmValueJSON.decode(
                json, as: mixed, schema: Schema([]), links: RealmValueJSON.Links(), at: path)
        case .array(let items):
            return .list(try items.enumerated().map { try untypedValue($1, at: "\(path)[\($0)]") })
        case .object(let fields):
            if fields.count == 1, fields[0].name == "$binary" {
                return try RealmValueJSON.decode(
                    json, as: mixed, schema: Schema([]), links: RealmValueJSON.Links(), at: path)
            }
            var values = [String: RealmValue]()
            for field in fields { values[field.name] = try untypedValue(field.value, at: "\(path).\(field.name)") }
            return .dictionary(values)
        }
    }

    private static var mixed: Property { Property(name: "value", type: .mixed, isOptional: true) }
}
