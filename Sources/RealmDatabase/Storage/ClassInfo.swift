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
        rowColumns = objectSchema.persistedProperties.filter { !$0.isCollection }
        collectionProperties = objectSchema.persistedProperties.filter(\.isCollection)
        var rowSlots = [Slot]()
        var position = 0
        for p in rowColumns {
            rowSlots.append(Slot(p, position: position))
            position += p.type == .mixed ? 2 : 1
        }
        var slotIndexByName = [String: Int]()
        var summaries = [SlotSummary]()  // names kept alive by `objectSchema` (see `StringBits`)
        var slotList = [Slot]()
        for p in objectSchema.properties where slotIndexByName[p.name] == nil {
            let slot = rowSlots.first { $0.property.name == p.name } ?? Slot(p, position: nil)
            slotIndexByName[p.name] = slotList.count
            summaries.append(
                SlotSummary(
                    nameBits: StringBits(p.name), index: slotList.count, position: slot.position ?? -1, type: p.type))
            slotList.append(slot)
        }
        self.rowSlots = rowSlots
        primaryKeyProperty = objectSchema.primaryKeyProperty
        hasObjectCreatingColumns = rowSlots.contains { $0.encodingMayCreateObjects }
        plainColumnCount = rowSlots.count { !$0.encodingMayCreateObjects }
        self.slotIndexByName = slotIndexByName
        self.slotList = slotList
        self.summaries = summaries
    }

    var className: String { objectSchema.className }

    /// A property and, for a non-collection one, its position in a row from `fetchRow` (a mixed
    /// property's tag follows its value).
    final class Slot {
        let property: Property
        /// Where the value is in a row from `fetchRow` (nil for a collection or backlink).
        let position: Int?
        /// Copies of what reading a value needs, so a read never copies the whole `Property`.
        let type: PropertyType
        let objectClassName: String?
        /// A link or mixed value: storing one may add or create the objects it holds.
        var encodingMayCreateObjects: Bool { type == .object || type == .mixed }
        init(_ property: Property, position: Int?) {
            self.property = property
            self.position = position
            type = property.type
            objectClassName = property.objectClassName
        }
    }

    /// What a read needs of a slot, without references: copying one costs no reference counting.
    struct SlotSummary {
        let nameBits: StringBits
        /// Where the slot is in `slotList`.
        let index: Int
        /// `Slot.position`, or -1 for a collection or backlink.
        let position: Int
        let type: PropertyType
    }

    /// The slots in property order, their summaries in the same order, and their index by name.
    private let slotList: [Slot]
    private let summaries: [SlotSummary]
    private let slotIndexByName: [String: Int]

    /// The summary of a property's slot, by name. Reads look one up for every property of every
    /// object, and hashing a name costs more than the rest of a read: a name whose bits equal
    /// those of a property's name (always so for short names, which Swift stores inline) is found
    /// by comparing two words per property; any other name takes the dictionary.
    @inline(__always)
    func slotSummary(_ name: String) throws -> SlotSummary {
        let bits = StringBits(name)
        for summary in summaries where summary.nameBits == bits { return summary }
        return try slotSummaryByHashing(name)
    }

    private func slotSummaryByHashing(_ name: String) throws -> SlotSummary {
        guard let index = slotIndexByName[name] else {
            throw RealmError(.invalidProperty, "Property '\(name)' does not exist on object type '\(className)'.")
        }
        return summaries[index]
    }

    func slot(at index: Int) -> Slot { slotList[index] }

    /// The slot of a property by name (see `slotSummary`).
    @inline(__always)
    func slot(_ name: String) throws -> Slot { slotList[try slotSummary(name).index] }

    func property(_ name: String) throws -> Property { try slot(name).property }

    /// The non-collection properties, in the order `selectRowSQL` lists their columns.
    let rowColumns: [Property]
    /// The primary key property, if the class has one (looked up on every insert).
    let primaryKeyProperty: Property?
    /// Whether some row column is a link or mixed (see `Slot.encodingMayCreateObjects`).
    let hasObjectCreatingColumns: Bool
    /// How many row columns are neither links nor mixed.
    let plainColumnCount: Int
    /// The slots of `rowColumns`, in that order.
    let rowSlots: [Slot]
    /// The list, set and map properties.
    let collectionProperties: [Property]

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
        let placeholders = Array(repeating: "?", count: cols.count).joined(separator: ", ")
        let sql =
            cols.isEmpty
            ? "INSERT INTO \(quotedTable) DEFAULT VALUES"
            : "INSERT INTO \(quotedTable) (\(cols.joined(separator: ", "))) VALUES (\(placeholders))"
        cachedInsertSQL = sql
        return sql
    }

    /// Call after changing `storage`.
    func storageChanged() {
        cachedSelectRowSQL = nil
        cachedColumnNames = nil
        cachedInsertSQL = nil
        insertStatement = nil
        updateStatements.removeAll()
    }

    /// Per slot index, the prepared `UPDATE … SET <column> = ? WHERE _key = ?` on the owning
    /// realm's connection (a migration's writes skip building and hashing the SQL per object).
    var updateStatements = [Int: Statement]()

    /// The prepared `insertSQL` on the owning realm's connection (an insert skips the statement
    /// cache's lookup by SQL text).
    var insertStatement: Statement?
    /// True while an insert binds `insertStatement`: a nested insert of the same class (a value
    /// creating an object of its own class) prepares a statement of its own instead.
    var isInsertStatementBusy = false
}

/// A string's two words as stored. Equal bits mean equal strings (the same inline bytes, or the
/// same buffer and length); different bits say nothing, so this is only ever a fast positive test.
/// Invariant: whoever keeps the bits of a string keeps the string alive too, so that its buffer
/// cannot be freed and reused by a different string with the same length.
struct StringBits: Equatable {
    let low: UInt64
    let high: UInt64

    init(_ string: String) {
        #if arch(x86_64) || arch(arm64)
            (low, high) = unsafeBitCast(string, to: (UInt64, UInt64).self)  // a String is two words here
        #else
            #error("StringBits reads a String as two 64-bit words: check the layout on this platform")
        #endif
    }
}
