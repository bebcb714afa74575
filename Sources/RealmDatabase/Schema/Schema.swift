import Foundation
import RealmQuery
import Synchronization

/// The classes of a realm, in declared order.
public struct Schema: Equatable, Codable {
    public var objectSchemas: [ObjectSchema]

    public init(_ objectSchemas: [ObjectSchema]) { self.objectSchemas = objectSchemas }

    public subscript(className: String) -> ObjectSchema? { objectSchemas.first { $0.className == className } }
    public var classNames: [String] { objectSchemas.map(\.className) }

    /// Checks every class; names the first class and property at fault.
    public func validate() throws {
        var names = Set<String>()
        for objectSchema in objectSchemas {
            guard names.insert(objectSchema.className).inserted else {
                throw RealmError(.schemaValidation, "Class '\(objectSchema.className)' is declared more than once.")
            }
            try objectSchema.validate(in: self)
        }
        try validateStorageNames()
    }

    /// Every table, index and column the storage layout derives from class and property names must
    /// be unique, as SQLite compares them (ASCII case-insensitively). Names can meet: `Dog.x__t` and
    /// the type column of a mixed `Dog.x`, `Dog.name` and `Dog.Name`, the list `A.b_c` and the list
    /// `A_b.c`; such a schema passed validation and then could not be stored (found by ReliabilityTests).
    private func validateStorageNames() throws {
        func key(_ name: String) -> String {
            String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        var schemaNames = [String: String]()  // tables and indexes share one namespace
        func claim(_ name: String, by owner: String) throws {
            if let other = schemaNames.updateValue(owner, forKey: key(name)), other != owner {
                throw RealmError(
                    .schemaValidation,
                    "'\(owner)' and '\(other)' would both be stored as '\(name)': rename one of them.")
            }
        }
        for objectSchema in objectSchemas {
            let c = objectSchema.className
            try claim(StorageLayout.table(c), by: c)
            var columns = [key("_key"): "\(c)._key"]
            for p in objectSchema.persistedProperties {
                let owner = "\(c).\(p.name)"
                if p.isCollection {
                    let table = StorageLayout.collectionTable(c, p)
                    try claim(table, by: owner)
                    try claim("idx_" + table, by: owner)
                    if p.type == .object { try claim("idx_" + table + "_value", by: owner) }
                    continue
                }
                try claim(StorageLayout.indexName(c, p.name), by: owner)
                for column in p.type == .mixed ? [p.name, StorageLayout.typeTagColumn(p.name)] : [p.name] {
                    if let other = columns.updateValue(owner, forKey: key(column)) {
                        throw RealmError(
                            .schemaValidation,
                            "'\(owner)' and '\(other)' would both be stored in the column '\(column)' "
                                + "of class '\(c)': rename one of them."
                        )
                    }
                }
            }
        }
    }

    /// Only the classes named (and, so that links resolve, the classes they reach).
    func restricted(to names: [String]) throws -> Schema {
        var wanted = [String]()
        var queue = names
        while let name = queue.first {
            queue.removeFirst()
            guard !wanted.contains(name) else { continue }
            guard let objectSchema = self[name] else {
                throw RealmError(.schemaValidation, "Object type '\(name)' is not in the schema.")
            }
            wanted.append(name)
            for p in objectSchema.properties where p.type == .object {
                if let target = p.objectClassName { queue.append(target) }
            }
        }
        return Schema(objectSchemas.filter { wanted.contains($0.className) })
    }

    func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// Decodes a stored schema. Opening a realm decodes its schema every time, and JSON decoding
    /// costs as much as the rest of an open: decoded schemas are kept, by their text.
    static func fromJSON(_ data: Data) throws -> Schema {
        if let cached = decodedSchemas.withLock({ $0[data] }) { return cached.schema }
        let schema = try JSONDecoder().decode(Schema.self, from: data)
        decodedSchemas.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[data] = SchemaBox(schema: schema)
        }
        return schema
    }
}

/// A decoded stored schema (no defaults, so nothing thread-bound in it) shared between threads.
struct SchemaBox: @unchecked Sendable { let schema: Schema }
private let decodedSchemas = Mutex<[Data: SchemaBox]>([:])

/// One difference between a stored schema and a configured one.
public enum SchemaChange: Equatable, CustomStringConvertible {
    case addedClass(String)
    case removedClass(String)
    case addedProperty(class: String, property: String)
    case removedProperty(class: String, property: String)
    case changedPropertyType(class: String, property: String, from: String, to: String)
    case madeOptional(class: String, property: String)
    case madeRequired(class: String, property: String)
    case changedPrimaryKey(class: String, from: String?, to: String?)
    case changedEmbedded(class: String, embedded: Bool)
    case addedIndex(class: String, property: String)
    case removedIndex(class: String, property: String)

    /// Whether this change alone needs a schema version bump.
    public var requiresMigration: Bool {
        switch self {
        case .addedClass, .removedClass, .addedIndex, .removedIndex: return false
        default: return true
        }
    }

    /// The class the change is in.
    public var className: String? {
        switch self {
        case .addedClass(let c), .removedClass(let c), .addedProperty(let c, _), .removedProperty(let c, _),
            .changedPropertyType(let c, _, _, _), .madeOptional(let c, _), .madeRequired(let c, _),
            .changedPrimaryKey(let c, _, _), .changedEmbedded(let c, _), .addedIndex(let c, _), .removedIndex(let c, _):
            return c
        }
    }

    /// Realm's wording for the line of a "Migration is required" error.
    public var description: String {
        switch self {
        case .addedClass(let c): return "Class '\(c)' has been added."
        case .removedClass(let c): return "Class '\(c)' has been removed."
        case .addedProperty(let c, let p): return "Property '\(c).\(p)' has been added."
        case .removedProperty(let c, let p): return "Property '\(c).\(p)' has been removed."
        case .changedPropertyType(let c, let p, let from, let to):
            return "Property '\(c).\(p)' has been changed from '\(from)' to '\(to)'."
        case .madeOptional(let c, let p): return "Property '\(c).\(p)' has been made optional."
        case .madeRequired(let c, let p): return "Property '\(c).\(p)' has been made required."
        case .changedPrimaryKey(let c, let from, let to):
            switch (from, to) {
            // Realm's wording names no property when a key is added or removed.
            case (nil, _?): return "Primary Key for class '\(c)' has been added."
            case (_?, nil): return "Primary Key for class '\(c)' has been removed."
            default: return "Primary Key for class '\(c)' has changed from '\(from ?? "")' to '\(to ?? "")'."
            }
        case .changedEmbedded(let c, let embedded):
            return embedded
                ? "Class '\(c)' has been changed from top-level to embedded."
                : "Class '\(c)' has been changed from embedded to top-level."
        case .addedIndex(let c, let p): return "Property '\(c).\(p)' has been made indexed."
        case .removedIndex(let c, let p): return "Property '\(c).\(p)' has been made unindexed."
        }
    }
}

extension Schema {
    /// The changes that turn `self` (stored) into `target` (configured), per class in target order.
    /// Classes missing from `target` are reported as removed.
    public func changes(to target: Schema) -> [SchemaChange] {
        var result = [SchemaChange]()
        for newClass in target.objectSchemas {
            guard let oldClass = self[newClass.className] else {
                result.append(.addedClass(newClass.className))
                continue
            }
            let c = newClass.className
            if oldClass.isEmbedded != newClass.isEmbedded {
                result.append(.changedEmbedded(class: c, embedded: newClass.isEmbedded))
            }
            for newProperty in newClass.properties where newProperty.isPersisted {
                guard let oldProperty = oldClass[newProperty.name], oldProperty.isPersisted else {
                    result.append(.addedProperty(class: c, property: newProperty.name))
                    continue
                }
                if oldProperty.type != newProperty.type || oldProperty.collection != newProperty.collection
                    || oldProperty.objectClassName != newProperty.objectClassName
                {
                    result.append(
                        .changedPropertyType(
                            class: c, property: newProperty.name, from: oldProperty.realmTypeName,
                            to: newProperty.realmTypeName))
                } else if oldProperty.isOptional != newProperty.isOptional {
                    result.append(
                        newProperty.isOptional
                            ? .madeOptional(class: c, property: newProperty.name)
                            : .madeRequired(class: c, property: newProperty.name))
                }
                if oldProperty.isIndexed != newProperty.isIndexed {
                    result.append(
                        newProperty.isIndexed
                            ? .addedIndex(class: c, property: newProperty.name)
                            : .removedIndex(class: c, property: newProperty.name))
                }
            }
            for oldProperty in oldClass.properties where oldProperty.isPersisted {
                if newClass[oldProperty.name]?.isPersisted != true {
                    result.append(.removedProperty(class: c, property: oldProperty.name))
                }
            }
            if oldClass.primaryKey != newClass.primaryKey {
                result.append(.changedPrimaryKey(class: c, from: oldClass.primaryKey, to: newClass.primaryKey))
            }
        }
        for oldClass in objectSchemas where target[oldClass.className] == nil {
            result.append(.removedClass(oldClass.className))
        }
        return result
    }
}
