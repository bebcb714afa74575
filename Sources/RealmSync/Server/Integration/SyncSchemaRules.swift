import Foundation
import RealmDatabase

/// What the schema says about synced data: which instructions name real classes and fields with
/// values of the right type (a hostile client must not corrupt the store), and the default value of
/// each field of a new object.
struct SyncSchemaRules {
    let schema: Schema

    func refused(_ message: String) -> SyncError { SyncError(.badChangeset, message) }

    // MARK: Classes and fields

    /// The schema of a synced (top-level, primary-keyed) class.
    func syncedClass(_ name: String) throws -> ObjectSchema {
        guard let objectSchema = schema[name] else { throw refused("unknown class '\(name)'") }
        guard !objectSchema.isEmbedded, objectSchema.primaryKeyProperty != nil else {
            throw refused("class '\(name)' does not sync: it is embedded or has no primary key")
        }
        return objectSchema
    }

    /// The property `name` of `objectSchema`, refused when unknown, computed, or not of `collection`.
    func property(_ name: String, of objectSchema: ObjectSchema, collection: CollectionKind) throws -> Property {
        guard let property = objectSchema[name], property.isPersisted else {
            throw refused("unknown field '\(name)' of class '\(objectSchema.className)'")
        }
        guard property.collection == collection else {
            let expected = collection == .none ? "a single value" : "a \(collection.rawValue)"
            throw refused("field '\(objectSchema.className).\(name)' is a \(property.typeString), not \(expected)")
        }
        return property
    }

    /// The embedded class a property holds, or nil when it holds no embedded object.
    func embeddedClass(of property: Property) -> ObjectSchema? {
        guard property.type == .object, let name = property.objectClassName, let target = schema[name],
            target.isEmbedded
        else { return nil }
        return target
    }

    /// The property at the end of `path` (the first name a field of `objectSchema`, the rest fields of
    /// the embedded objects along it). Every name before the last must hold an embedded object.
    /// A path may start in an element of a list of embedded objects (`[list, ElementStep, …]`).
    func property(atPath path: [String], of objectSchema: ObjectSchema) throws -> Property {
        guard let first = path.first else { throw refused("an empty field path on '\(objectSchema.className)'") }
        let inElement = ElementStep.element(startingPath: path) != nil
        var property = try self.property(first, of: objectSchema, collection: inElement ? .list : .none)
        if inElement {
            guard embeddedClass(of: property) != nil else {
                throw refused("'\(first)' is not a list of embedded objects, so the path \(path) is invalid")
            }
            guard path.count > 2 else {
                throw refused("the path \(path) names a whole list element: that is a list set")
            }
        }
        for name in path.dropFirst(inElement ? 2 : 1) {
            guard let embedded = embeddedClass(of: property) else {
                throw refused("'\(property.name)' holds no embedded object, so the path \(path) is invalid")
            }
            guard let inner = embedded[name], inner.isPersisted else {
                throw refused("unknown field '\(name)' of embedded class '\(embedded.className)'")
            }
            property = inner
        }
        if property.isPrimaryKey { throw refused("the primary key '\(first)' cannot be written") }
        return property
    }

    // MARK: Values

    /// Checks a primary key against its class's primary key property.
    func checkPrimaryKey(_ ref: ObjectRef) throws {
        let objectSchema = try syncedClass(ref.className)
        guard let key = objectSchema.primaryKeyProperty else { return }
        let matches: Bool
        switch ref.primaryKey {
        case .null: matches = key.isOptional
        case .int: matches = key.type == .int
        case .string: matches = key.type == .string
        case .objectId: matches = key.type == .objectId
        case .uuid: matches = key.type == .uuid
        }
        if !matches { throw refused("primary key \(ref.primaryKey) does not fit \(ref.className).\(key.name)") }
    }

    /// Checks a value of a single-valued property (or one element of a collection property).
    func check(_ value: SyncValue, for property: Property) throws {
        if case .null = value {
            guard property.isOptional || property.type == .mixed else {
                throw refused("null given for the required field '\(property.name)'")
            }
            return
        }
        switch (property.type, value) {
        case (.bool, .bool), (.int, .int), (.float, .float), (.double, .double), (.string, .string), (.data, .data),
            (.date, .date), (.decimal128, .decimal), (.objectId, .objectId), (.uuid, .uuid):
            return
        case (.mixed, .link(let target)):
            try checkPrimaryKey(target)
        case (.mixed, .embedded), (.mixed, .list), (.mixed, .map):
            throw refused("field '\(property.name)' (mixed) cannot hold \(value)")
        case (.mixed, _):
            return
        case (.object, .link(let target)) where embeddedClass(of: property) == nil:
            guard target.className == property.objectClassName else {
                throw refused("field '\(property.name)' links to \(property.objectClassName ?? "?"), not \(target)")
            }
            try checkPrimaryKey(target)
        case (.object, .embedded(let fields)):
            guard let embedded = embeddedClass(of: property) else {
                throw refused("field '\(property.name)' holds a link, not an embedded object")
            }
            try check(embeddedFields: fields, of: embedded)
        default:
            throw refused("\(value) does not fit field '\(property.name)' (\(property.typeString))")
        }
    }

    /// Checks the fields of an embedded object value, collections inside it included.
    private func check(embeddedFields fields: [SyncField], of embedded: ObjectSchema) throws {
        for field in fields {
            guard let property = embedded[field.name], property.isPersisted else {
                throw refused("unknown field '\(field.name)' of embedded class '\(embedded.className)'")
            }
            switch (property.collection, field.value) {
            case (.none, let value): try check(value, for: property)
            case (.list, .list(let items)), (.set, .list(let items)):
                for item in items { try check(item, for: property) }
            case (.map, .map(let entries)):
                for entry in entries { try check(entry.value, for: property) }
            default:
                throw refused("\(field.value) does not fit '\(embedded.className).\(field.name)'")
            }
        }
    }

    // MARK: Defaults

    /// An embedded object value as a replica holds it: every field of its class present (missing ones
    /// at their defaults, collections empty), in name order, recursively. Other values are unchanged.
    func normalized(_ value: SyncValue, for property: Property) -> SyncValue {
        guard case .embedded(let given) = value, let embedded = embeddedClass(of: property) else { return value }
        let fields = embedded.persistedProperties.map { inner -> SyncField in
            if let field = given.first(where: { $0.name == inner.name }) {
                return SyncField(inner.name, normalized(field.value, for: inner))
            }
            switch inner.collection {
            case .none: return SyncField(inner.name, defaultValue(of: inner))
            case .list, .set: return SyncField(inner.name, .list([]))
            case .map: return SyncField(inner.name, .map([]))
            }
        }
        return .embedded(fields.sorted { $0.name < $1.name })
    }

    /// The value a field of a new object has until written: the schema's default, else null for an
    /// optional field, else the type's zero.
    func defaultValue(of property: Property) -> SyncValue {
        if let given = property.defaultValue, let value = SyncValue(primitive: given) { return value }
        if property.isOptional || property.type == .mixed || property.type == .object { return .null }
        switch property.type {
        case .bool: return .bool(false)
        case .int: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .data: return .data(Data())
        case .date: return Timestamp(seconds: 0, nanoseconds: 0).map { .date($0) } ?? .null
        case .decimal128: return .decimal(.zero)
        case .objectId: return ObjectId(bytes: [UInt8](repeating: 0, count: 12)).map { .objectId($0) } ?? .null
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .mixed, .object, .linkingObjects: return .null
        }
    }
}
