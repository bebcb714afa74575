import Foundation
import LuaSandbox
import RealmDatabase

/// Schemas in Realm JS notation, as Lua tables:
/// `{ { name = "Dog", primaryKey = "_id", embedded = false, properties = { _id = "uuid", tags = "string[]",
///    weight = { type = "double", default = 0, indexed = true },
///    owners = { type = "linkingObjects", objectType = "Person", property = "dogs" } } } }`.
/// `properties` may also be a sequence of `{ name = …, type = … }` tables, which keeps their order;
/// in the keyed form the primary key comes first, then the other properties by name.
extension RealmLuaRuntime {
    public func schema(from value: LuaValue, where place: String) throws -> Schema {
        let table: LuaTable
        switch value {
        case .table(let ref): table = try state.copy(ref)
        case .plainTable(let t): table = t
        default: throw LuaError(.runtime, "\(place): a schema must be a table of classes, got \(value.typeName)")
        }
        var classes = [ObjectSchema]()
        let entries = table.array.isEmpty ? Array(table.hash.values) : table.array
        for (i, entry) in entries.enumerated() {
            guard case .plainTable(let t) = entry else {
                throw LuaError(.runtime, "\(place): class #\(i + 1) must be a table, got \(entry.typeName)")
            }
            classes.append(try objectSchema(t, where: "\(place): class #\(i + 1)"))
        }
        let schema = Schema(classes)
        do { try schema.validate() } catch let e as RealmError { throw LuaError(.runtime, "\(place): \(e.message)") }
        return schema
    }

    private func objectSchema(_ t: LuaTable, where place: String) throws -> ObjectSchema {
        guard case .string(let name) = t["name"] else {
            throw LuaError(.runtime, "\(place): field 'name' must be a string")
        }
        let here = "\(place) ('\(name)')"
        var primaryKey: String?
        switch t["primaryKey"] {
        case .nil: break
        case .string(let pk): primaryKey = pk
        default: throw LuaError(.runtime, "\(here): field 'primaryKey' must be a string")
        }
        let embedded = t["embedded"].boolValue ?? false
        var properties = [Property]()
        switch t["properties"] {
        case .plainTable(let props) where !props.array.isEmpty:
            for (i, p) in props.array.enumerated() {
                guard case .plainTable(let pt) = p, case .string(let pname) = pt["name"] else {
                    throw LuaError(.runtime, "\(here): property #\(i + 1) must be a table with a 'name'")
                }
                properties.append(try property(pname, .plainTable(pt), where: here))
            }
        case .plainTable(let props):
            for (k, v) in props.hash {
                guard case .string(let pname) = k else {
                    throw LuaError(.runtime, "\(here): property names must be strings")
                }
                properties.append(try property(pname, v, where: here))
            }
            properties.sort { a, b in
                if a.name == primaryKey { return b.name != primaryKey }
                if b.name == primaryKey { return false }
                return a.name < b.name
            }
        default:
            throw LuaError(.runtime, "\(here): field 'properties' must be a table")
        }
        if let primaryKey, !properties.contains(where: { $0.name == primaryKey }) {
            throw LuaError(.runtime, "\(here): primary key '\(primaryKey)' is not one of its properties")
        }
        return ObjectSchema(className: name, properties: properties, primaryKey: primaryKey, isEmbedded: embedded)
    }

    private func property(_ name: String, _ value: LuaValue, where place: String) throws -> Property {
        let here = "\(place): property '\(name)'"
        do {
            switch value {
            case .string(let typeString):
                return try Property.parse(name: name, typeString: typeString)
            case .plainTable(let t):
                guard case .string(var type) = t["type"] else {
                    throw LuaError(.runtime, "\(here): field 'type' must be a string")
                }
                let objectType = t["objectType"].stringValue
                if type == "linkingObjects" {
                    guard let objectType, let origin = t["property"].stringValue else {
                        throw LuaError(.runtime, "\(here): linkingObjects needs 'objectType' and 'property'")
                    }
                    return Property(
                        name: name, type: .linkingObjects, objectClassName: objectType, linkOriginPropertyName: origin)
                }
                let suffixes = ["list": "[]", "set": "<>", "dictionary": "{}", "object": ""]
                if let suffix = suffixes[type] {
                    guard let objectType else { throw LuaError(.runtime, "\(here): type '\(type)' needs 'objectType'") }
                    type =
                        objectType + ((t["optional"].boolValue ?? false) && !objectType.hasSuffix("?") ? "?" : "")
                        + suffix
                } else if t["optional"].boolValue == true && !type.hasSuffix("?") {
                    type += "?"
                }
                var p = try Property.parse(name: name, typeString: type)
                p.isIndexed = t["indexed"].boolValue ?? false
                if !t["default"].isNil { p.defaultValue = try toRealm(t["default"]) }
                return p
            default:
                throw LuaError(.runtime, "\(here): the type must be a string or a table, got \(value.typeName)")
            }
        } catch let e as RealmError {
            throw LuaError(.runtime, "\(here): \(e.message)")
        }
    }

    /// A schema as a Lua table in the same notation (sequence form, declared order).
    func schemaTable(_ schema: Schema) -> LuaValue {
        .plainTable(
            LuaTable(
                array: schema.objectSchemas.map { os in
                    var fields: [String: LuaValue] = ["name": .string(os.className)]
                    if let pk = os.primaryKey { fields["primaryKey"] = .string(pk) }
                    if os.isEmbedded { fields["embedded"] = .boolean(true) }
                    fields["properties"] = .plainTable(
                        LuaTable(
                            array: os.properties.map { p in
                                var pf: [String: LuaValue] = ["name": .string(p.name), "type": .string(p.typeString)]
                                if p.type == .linkingObjects {
                                    pf["type"] = "linkingObjects"
                                    pf["objectType"] = .string(p.objectClassName ?? "")
                                    pf["property"] = .string(p.linkOriginPropertyName ?? "")
                                }
                                if p.isIndexed { pf["indexed"] = true }
                                return .plainTable(LuaTable(fields: pf))
                            }))
                    return .plainTable(LuaTable(fields: fields))
                }))
    }
}
