import Foundation

/// The schema of one class: its properties in declared order, primary key, and whether embedded.
public struct ObjectSchema: Equatable, Codable {
    public var className: String
    public var properties: [Property]
    public var isEmbedded: Bool

    public init(className: String, properties: [Property], primaryKey: String? = nil, isEmbedded: Bool = false) {
        self.className = className
        self.isEmbedded = isEmbedded
        self.properties = properties.map { p in
            var p = p
            if let primaryKey, p.name == primaryKey { p.isPrimaryKey = true }
            return p
        }
    }

    enum CodingKeys: String, CodingKey {
        case className = "name"
        case properties
        case isEmbedded = "embedded"
    }

    public var primaryKeyProperty: Property? { properties.first { $0.isPrimaryKey } }
    public var primaryKey: String? { primaryKeyProperty?.name }

    public subscript(name: String) -> Property? { properties.first { $0.name == name } }

    /// The properties with storage, in declared order.
    public var persistedProperties: [Property] { properties.filter(\.isPersisted) }

    /// Checks the class on its own and against the rest of `schema`; errors name class and property.
    func validate(in schema: Schema) throws {
        guard isValidName(className, maxBytes: maxClassNameBytes) else {
            throw RealmError(
                .schemaValidation,
                "Class name '\(className)' is invalid: it must be 1 to \(maxClassNameBytes) bytes, "
                    + "without '.' or control characters."
            )
        }
        var seen = Set<String>()
        for p in properties {
            try validateName(of: p, seen: &seen)
            if p.type == .object || p.type == .linkingObjects {
                try validateLink(p, in: schema)
            }
            if p.isPrimaryKey {
                try validatePrimaryKey(p)
            }
            if p.isIndexed && (!p.type.canBeIndexed || p.collection != .none) {
                throw RealmError(
                    .schemaValidation,
                    "Property '\(className).\(p.name)' of type '\(p.typeString)' cannot be indexed.")
            }
        }
        if properties.filter(\.isPrimaryKey).count > 1 {
            throw RealmError(.schemaValidation, "Class '\(className)' has more than one primary key.")
        }
    }

    /// A property's name: an identifier, not reserved, declared once.
    private func validateName(of p: Property, seen: inout Set<String>) throws {
        let c = className
        guard isValidName(p.name, maxBytes: maxPropertyNameBytes), !p.name.hasPrefix("__") else {
            throw RealmError(
                .schemaValidation,
                "Property '\(c).\(p.name)' has an invalid name: it must be 1 to \(maxPropertyNameBytes) bytes, "
                    + "without '.', control characters or a leading '__'."
            )
        }
        guard p.name != "_key" else {
            throw RealmError(.schemaValidation, "Property '\(c)._key' uses a reserved name.")
        }
        guard seen.insert(p.name).inserted else {
            throw RealmError(.schemaValidation, "Property '\(c).\(p.name)' is declared more than once.")
        }
    }

    /// A link or linking-objects property: its target exists and the link can be stored.
    private func validateLink(_ p: Property, in schema: Schema) throws {
        let c = className
        guard let target = p.objectClassName, let targetSchema = schema[target] else {
            throw RealmError(
                .schemaValidation,
                "Property '\(c).\(p.name)' of type '\(p.typeString)' "
                    + "links to an unknown class '\(p.objectClassName ?? "")'."
            )
        }
        // A default value for a link makes every new object create a linked object, whose
        // own default creates another, without end for a class linking to itself: the host
        // crashed with a stack overflow (found by realm-fuzz schema-lua).
        if p.type == .object, let d = p.defaultValue, !d.isNull {
            throw RealmError(
                .schemaValidation, "Property '\(c).\(p.name)': a link cannot have a default value.")
        }
        if p.type == .object && p.collection == .list && p.isOptional {
            throw RealmError(
                .schemaValidation,
                "Property '\(c).\(p.name)': a list of objects cannot hold nil ('\(p.typeString)').")
        }
        if p.type == .object && p.collection == .set && targetSchema.isEmbedded {
            throw RealmError(
                .schemaValidation, "Property '\(c).\(p.name)': a set cannot hold embedded objects.")
        }
        if p.type == .linkingObjects {
            guard let origin = p.linkOriginPropertyName, let originProperty = targetSchema[origin],
                originProperty.type == .object, originProperty.objectClassName == c
            else {
                throw RealmError(
                    .schemaValidation,
                    "Property '\(c).\(p.name)' declares linking objects through "
                        + "'\(target).\(p.linkOriginPropertyName ?? "")', which is not a link to '\(c)'."
                )
            }
        }
    }

    /// A primary key: of a type that can be one, on a class that is not embedded.
    private func validatePrimaryKey(_ p: Property) throws {
        guard p.type.canBePrimaryKey, p.collection == .none else {
            throw RealmError(
                .schemaValidation,
                "Property '\(className).\(p.name)' cannot be a primary key: "
                    + "only int, string, objectId and uuid can.")
        }
        guard !isEmbedded else {
            throw RealmError(.schemaValidation, "Embedded class '\(className)' cannot have a primary key.")
        }
    }
}
