import Foundation
import RealmValues

/// Where each part of a schema lives in SQLite. See docs/STORAGE.md; this file is its source of truth.
///
/// - Class `Dog` → table `class_Dog`: `_key INTEGER PRIMARY KEY AUTOINCREMENT` (the object key, never
///   reused, so a frozen object never thaws into a different object), then one column per persisted
///   non-collection property, named as the property. A `mixed` property has a second column
///   `<name>__t` holding its `MixedTag`.
/// - List property `Dog.tags` → `list_Dog_tags(_row INTEGER PRIMARY KEY, owner, pos, value[, value__t])`,
///   ordered by `pos` within an owner (positions may have gaps; order is what counts).
/// - Set property → `set_Dog_p(_row, owner, value[, value__t])`; map →
///   `map_Dog_p(_row, owner, key, value[, value__t])`.
/// - Links (to-one columns and collection `value`s) hold the target's `_key`, and are indexed.
/// - `_realm_meta(key PRIMARY KEY, value)` holds `format`, `schema` (JSON), `schemaVersion`, `version`,
///   `subscriptionsVersion`; `MetaTable` is the only code that reads or writes it.
enum StorageLayout {
    static let formatMagic = "RealmHost-1"

    static func quote(_ identifier: String) -> String {
        // Validated names never hold a quote: skip Foundation's (bridging, slow) replace then.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func table(_ className: String) -> String { "class_" + className }
    static func quotedTable(_ className: String) -> String { quote(table(className)) }

    /// The side table of a collection property.
    static func collectionTable(_ className: String, _ property: Property) -> String {
        switch property.collection {
        case .list: return "list_\(className)_\(property.name)"
        case .set: return "set_\(className)_\(property.name)"
        case .map: return "map_\(className)_\(property.name)"
        case .none: return ""
        }
    }

    static func typeTagColumn(_ column: String) -> String { column + "__t" }

    /// The SQLite column type (affinity) for values of a property type.
    static func declaredType(_ type: PropertyType) -> String {
        switch type {
        case .bool, .int, .date, .object: return "INTEGER"
        case .float, .double: return "REAL"
        case .string, .decimal128: return "TEXT"
        case .data, .objectId, .uuid: return "BLOB"
        case .mixed, .linkingObjects: return ""
        }
    }

    /// Column definitions for a non-collection property (mixed has two columns).
    static func columnDefinitions(_ property: Property) -> [String] {
        let name = quote(property.name)
        var defs = ["\(name) \(declaredType(property.type))".trimmingCharacters(in: .whitespaces)]
        if property.type == .mixed { defs.append("\(quote(typeTagColumn(property.name))) INTEGER") }
        return defs
    }

    static func indexName(_ className: String, _ column: String) -> String { "idx_\(className)_\(column)" }

    /// The DDL creating a class table and the indexes of its non-collection properties.
    static func createClassSQL(_ objectSchema: ObjectSchema) -> [String] {
        let c = objectSchema.className
        var columns = ["\"_key\" INTEGER PRIMARY KEY AUTOINCREMENT"]
        for p in objectSchema.persistedProperties where !p.isCollection {
            columns += columnDefinitions(p)
        }
        var sql = ["CREATE TABLE \(quotedTable(c)) (\(columns.joined(separator: ", ")))"]
        for p in objectSchema.persistedProperties where !p.isCollection {
            if let index = indexSQL(c, p) { sql.append(index) }
        }
        for p in objectSchema.persistedProperties where p.isCollection {
            sql += createCollectionSQL(c, p)
        }
        return sql
    }

    /// The index a property needs, if any: unique for a primary key, plain for `indexed` and links.
    static func indexSQL(_ className: String, _ p: Property) -> String? {
        let name = quote(indexName(className, p.name))
        if p.isPrimaryKey {
            return "CREATE UNIQUE INDEX \(name) ON \(quotedTable(className))(\(quote(p.name)))"
        }
        if p.isIndexed || p.type == .object {
            return "CREATE INDEX \(name) ON \(quotedTable(className))(\(quote(p.name)))"
        }
        return nil
    }

    static func createCollectionSQL(_ className: String, _ p: Property) -> [String] {
        let table = collectionTable(className, p)
        let q = quote(table)
        var columns = ["\"_row\" INTEGER PRIMARY KEY", "owner INTEGER NOT NULL"]
        switch p.collection {
        case .list: columns.append("pos INTEGER NOT NULL")
        case .map: columns.append("key TEXT NOT NULL")
        default: break
        }
        columns.append("value \(declaredType(p.type))".trimmingCharacters(in: .whitespaces))
        if p.type == .mixed { columns.append("value__t INTEGER") }
        var sql = ["CREATE TABLE \(q) (\(columns.joined(separator: ", ")))"]
        switch p.collection {
        case .list: sql.append("CREATE INDEX \(quote("idx_" + table)) ON \(q)(owner, pos)")
        case .map: sql.append("CREATE UNIQUE INDEX \(quote("idx_" + table)) ON \(q)(owner, key)")
        default: sql.append("CREATE INDEX \(quote("idx_" + table)) ON \(q)(owner, value)")
        }
        if p.type == .object { sql.append("CREATE INDEX \(quote("idx_" + table + "_value")) ON \(q)(value)") }
        return sql
    }
}
