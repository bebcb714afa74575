import Foundation

/// A class as the accessors see it: its schema and where each property is stored.
///
/// Normally a property is stored under its own name. During a migration the views differ: the old
/// view may read a renamed column, and the new view may write a property whose type changed into a
/// temporary column; both are expressed by the `storage` map, so accessors have one code path.
final class ClassInfo {
    let objectSchema: ObjectSchema
    let table: String
    let quotedTable: String
    /// Property name → column name (non-collection) or side-table name (collection).
    var storage: [String: String]
    /// The old view in a migration: reads only.
    let isReadOnlyView: Bool

    init(_ objectSchema: ObjectSchema, readOnlyView: Bool = false) {
        self.objectSchema = objectSchema
        table = StorageLayout.table(objectSchema.className)
        quotedTable = StorageLayout.quote(table)
        isReadOnlyView = readOnlyView
        var storage = [String: String]()
        for p in objectSchema.persistedProperties {
            storage[p.name] = p.isCollection ? StorageLayout.collectionTable(objectSchema.className, p) : p.name
        }
        self.storage = storage
    }

    var className: String { objectSchema.className }

    /// Properties by name, and each non-collection property's position in a row from `fetchRow`
    /// (reads look these up for every property of every object, so they are dictionaries).
    private lazy var propertiesByName = Dictionary(objectSchema.properties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    lazy var rowPositions: [String: Int] = {
        var positions = [String: Int]()
        var i = 0
        for p in rowColumns {
            positions[p.name] = i
            i += p.type == .mixed ? 2 : 1
        }
        return positions
    }()

    func property(_ name: String) throws -> Property {
        guard let p = propertiesByName[name] else {
            throw RealmError(.invalidProperty, "Property '\(name)' does not exist on object type '\(className)'.")
        }
        return p
    }

    /// The quoted column (or side table) of a persisted property.
    func quotedStorage(_ property: Property) -> String {
        StorageLayout.quote(storage[property.name] ?? property.name)
    }

    func quotedTypeTag(_ property: Property) -> String {
        StorageLayout.quote(StorageLayout.typeTagColumn(storage[property.name] ?? property.name))
    }

    /// The non-collection properties, in the order `selectRowSQL` lists their columns.
    var rowColumns: [Property] { objectSchema.persistedProperties.filter { !$0.isCollection } }

    private var cachedSelectRowSQL: String?

    /// `t0."_key"` and every non-collection column of the row aliased `t0` (a mixed property's
    /// value then its tag), in `rowColumns` order.
    var selectRowSQL: String {
        if let cachedSelectRowSQL { return cachedSelectRowSQL }
        let sql = (["\"_key\""] + columnNames).map { "t0." + $0 }.joined(separator: ", ")
        cachedSelectRowSQL = sql
        return sql
    }

    /// The quoted non-collection columns, in `rowColumns` order (mixed: value then tag).
    var columnNames: [String] {
        var cols = [String]()
        for p in rowColumns {
            cols.append(quotedStorage(p))
            if p.type == .mixed { cols.append(quotedTypeTag(p)) }
        }
        return cols
    }

    /// Call after changing `storage`.
    func storageChanged() { cachedSelectRowSQL = nil }
}
