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

    /// A property and, for a non-collection one, its position in a row from `fetchRow` (a mixed
    /// property's tag follows its value). Reads look a slot up for every property of every
    /// object, so slots are found with one dictionary lookup.
    final class Slot {
        let property: Property
        let position: Int?
        /// Copies of what reading a value needs, so a read never copies the whole `Property`.
        let type: PropertyType
        let objectClassName: String?
        init(_ property: Property, _ position: Int?) {
            self.property = property
            self.position = position
            type = property.type
            objectClassName = property.objectClassName
        }
    }

    private(set) lazy var slots: [String: Slot] = {
        var positions = [String: Int]()
        var i = 0
        for p in rowColumns {
            positions[p.name] = i
            i += p.type == .mixed ? 2 : 1
        }
        var slots = [String: Slot]()
        for p in objectSchema.properties where slots[p.name] == nil { slots[p.name] = Slot(p, positions[p.name]) }
        return slots
    }()

    func slot(_ name: String) throws -> Slot {
        guard let slot = slots[name] else {
            throw RealmError(.invalidProperty, "Property '\(name)' does not exist on object type '\(className)'.")
        }
        return slot
    }

    func property(_ name: String) throws -> Property { try slot(name).property }

    /// The non-collection properties, in the order `selectRowSQL` lists their columns.
    private(set) lazy var rowColumns: [Property] = objectSchema.persistedProperties.filter { !$0.isCollection }
    /// The list, set and map properties.
    private(set) lazy var collectionProperties: [Property] = objectSchema.persistedProperties.filter(\.isCollection)

    /// The quoted column (or side table) of a persisted property.
    func quotedStorage(_ property: Property) -> String {
        StorageLayout.quote(storage[property.name] ?? property.name)
    }

    func quotedTypeTag(_ property: Property) -> String {
        StorageLayout.quote(StorageLayout.typeTagColumn(storage[property.name] ?? property.name))
    }


    private var cachedSelectRowSQL: String?

    /// `t0."_key"` and every non-collection column of the row aliased `t0` (a mixed property's
    /// value then its tag), in `rowColumns` order.
    var selectRowSQL: String {
        if let cachedSelectRowSQL { return cachedSelectRowSQL }
        let sql = (["\"_key\""] + columnNames).map { "t0." + $0 }.joined(separator: ", ")
        cachedSelectRowSQL = sql
        return sql
    }

    private var cachedColumnNames: [String]?
    private var cachedInsertSQL: String?

    /// The quoted non-collection columns, in `rowColumns` order (mixed: value then tag).
    /// Cached: every insert reads it.
    var columnNames: [String] {
        if let cachedColumnNames { return cachedColumnNames }
        var cols = [String]()
        for p in rowColumns {
            cols.append(quotedStorage(p))
            if p.type == .mixed { cols.append(quotedTypeTag(p)) }
        }
        cachedColumnNames = cols
        return cols
    }

    /// The INSERT of a new row with every column of `columnNames` bound, in that order.
    var insertSQL: String {
        if let cachedInsertSQL { return cachedInsertSQL }
        let cols = columnNames
        let sql = cols.isEmpty ? "INSERT INTO \(quotedTable) DEFAULT VALUES"
            : "INSERT INTO \(quotedTable) (\(cols.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: cols.count).joined(separator: ", ")))"
        cachedInsertSQL = sql
        return sql
    }

    /// Call after changing `storage`.
    func storageChanged() {
        cachedSelectRowSQL = nil
        cachedColumnNames = nil
        cachedInsertSQL = nil
        insertStatement = nil
    }

    /// The prepared `insertSQL` on the owning realm's connection (an insert skips the statement
    /// cache's lookup by SQL text).
    var insertStatement: Statement?
}
