import Foundation

/// The stored type of a property (or of the elements of a collection property).
public enum PropertyType: String, Codable, CaseIterable, Sendable {
    case bool, int, float, double, string, data, date, decimal128, objectId, uuid, mixed
    /// A link to an object of `Property.objectClassName`.
    case object
    /// Computed backlinks: the objects of `objectClassName` whose `linkOriginPropertyName` links here.
    case linkingObjects

    /// Types that can be a primary key.
    var canBePrimaryKey: Bool { [.int, .string, .objectId, .uuid].contains(self) }
    /// Types that can carry an index.
    var canBeIndexed: Bool { [.bool, .int, .string, .date, .objectId, .uuid, .mixed].contains(self) }
}

/// How a property holds its values: one value, or a collection of them.
public enum CollectionKind: String, Codable, Sendable {
    case none, list, set, map
}

/// One property of an object schema, as RealmSwift's `Property` describes it.
public struct Property: Equatable, Codable {
    public var name: String
    public var type: PropertyType
    /// The linked class, for `.object` and `.linkingObjects` properties.
    public var objectClassName: String?
    /// For `.linkingObjects`: the property of `objectClassName` that links here.
    public var linkOriginPropertyName: String?
    /// Whether the value (or, in a collection, each element) may be nil.
    public var isOptional: Bool
    public var collection: CollectionKind
    public var isPrimaryKey: Bool
    public var isIndexed: Bool
    /// The value a new object takes when none is given. Not stored in the file.
    public var defaultValue: RealmValue?

    public init(
        name: String, type: PropertyType, objectClassName: String? = nil, linkOriginPropertyName: String? = nil,
        isOptional: Bool = false, collection: CollectionKind = .none, isPrimaryKey: Bool = false,
        isIndexed: Bool = false, defaultValue: RealmValue? = nil
    ) {
        self.name = name
        self.type = type
        self.objectClassName = objectClassName
        self.linkOriginPropertyName = linkOriginPropertyName
        self.isOptional =
            isOptional || (type == .object && collection == .none) || (type == .object && collection == .map)
        self.collection = collection
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
        self.defaultValue = defaultValue
    }

    enum CodingKeys: String, CodingKey {
        case name, type
        case objectClassName = "objectType"
        case linkOriginPropertyName = "property"
        case isOptional = "optional"
        case collection
        case isPrimaryKey = "primaryKey"
        case isIndexed = "indexed"
    }

    public var isCollection: Bool { collection != .none }
    public var isLink: Bool { type == .object }
    /// Whether the property has storage (backlinks are computed).
    public var isPersisted: Bool { type != .linkingObjects }

    /// Equal except for defaults and indexes: the parts whose change needs a migration.
    func isStorageEquivalent(to other: Property) -> Bool {
        name == other.name && type == other.type && objectClassName == other.objectClassName
            && isOptional == other.isOptional && collection == other.collection
            && linkOriginPropertyName == other.linkOriginPropertyName
    }

    /// The type as a schema string: `int`, `string?`, `Dog[]`, `mixed{}`, `string<>`.
    public var typeString: String {
        if type == .linkingObjects {
            return "linkingObjects<\(objectClassName ?? "?").\(linkOriginPropertyName ?? "?")>"
        }
        var base = type == .object ? (objectClassName ?? "?") : type.rawValue
        if isOptional && !(type == .object && collection == .none) && !(type == .object && collection == .map) {
            base += "?"
        }
        if type == .object && collection == .none { base += "?" }
        switch collection {
        case .none: return base
        case .list: return base + "[]"
        case .set: return base + "<>"
        case .map: return base + "{}"
        }
    }

    /// The type as Realm's migration messages spell it: `int`, `<Dog>`, `array<string>`.
    var realmTypeName: String {
        let element = type == .object ? "<\(objectClassName ?? "?")>" : type.rawValue
        switch collection {
        case .none: return element
        case .list: return "array<\(type == .object ? (objectClassName ?? "?") : type.rawValue)>"
        case .set: return "set<\(type == .object ? (objectClassName ?? "?") : type.rawValue)>"
        case .map: return "dictionary<string, \(type == .object ? (objectClassName ?? "?") : type.rawValue)>"
        }
    }

    /// Parses a schema type string (`"string?"`, `"Dog[]"`, `"mixed{}"`, `"int<>"`, `"Address?"`).
    /// A name that is not a primitive type is a link to that class.
    public static func parse(name: String, typeString: String) throws -> Property {
        var text = typeString.trimmingCharacters(in: .whitespaces)
        var collection = CollectionKind.none
        if text.hasSuffix("[]") {
            collection = .list
            text.removeLast(2)
        } else if text.hasSuffix("<>") {
            collection = .set
            text.removeLast(2)
        } else if text.hasSuffix("{}") {
            collection = .map
            text.removeLast(2)
        }
        var optional = false
        if text.hasSuffix("?") {
            optional = true
            text.removeLast()
        }
        guard !text.isEmpty, !text.contains("?"), !text.contains("[") else {
            throw RealmError(.schemaValidation, "Property '\(name)' has an invalid type '\(typeString)'.")
        }
        if let type = PropertyType(rawValue: text), type != .object, type != .linkingObjects {
            return Property(name: name, type: type, isOptional: optional, collection: collection)
        }
        let aliases: [String: PropertyType] = [
            "decimal": .decimal128, "objectid": .objectId, "bytes": .data, "binary": .data, "timestamp": .date,
        ]
        if let type = aliases[text.lowercased()] {
            return Property(name: name, type: type, isOptional: optional, collection: collection)
        }
        guard isValidName(text, maxBytes: maxClassNameBytes) else {
            throw RealmError(.schemaValidation, "Property '\(name)' has an invalid type '\(typeString)'.")
        }
        return Property(name: name, type: .object, objectClassName: text, isOptional: optional, collection: collection)
    }
}

/// Realm accepts any class or property name that fits its table and column names (realm-core's
/// `Group::max_class_name_length`, 57 bytes, and `Table::max_column_name_length`, 63): spaces and
/// dashes included (`fav item`, `T2017-12-04`). Every name reaches SQL quoted
/// (`StorageLayout.quote`), so no character is unsafe there. Refused beyond Realm: the empty name,
/// control characters (SQLite cuts a name at NUL, and no query can type them) and `.`, which
/// key paths (queries, `sorted`, `distinct`) split on, so such a property could never be named.
func isValidName(_ name: String, maxBytes: Int) -> Bool {
    guard !name.isEmpty, name.utf8.count <= maxBytes else { return false }
    return !name.unicodeScalars.contains { $0 == "." || $0.properties.generalCategory == .control }
}

/// The longest class name (realm-core: 63 bytes of table name less the `class_` prefix).
let maxClassNameBytes = 57
/// The longest property name (realm-core's `Table::max_column_name_length`).
let maxPropertyNameBytes = 63
