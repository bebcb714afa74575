import RealmValues

/// Something that records each commit of a file inside the commit's own transaction (sync records a
/// changeset per commit this way). Set on `Realm.Configuration.commitRecorder`; every instance
/// opened from that configuration calls the same recorder.
///
/// `willCommit` runs after the commit's version bump and before SQLite's COMMIT: what it writes
/// (through `Realm.executeSQL`) commits with the data, and a throw rolls the whole commit back and
/// reaches the caller of `commitWrite`, the data unchanged. A migration's transaction does not call
/// it (it does not end in `commitWrite`). With no recorder set, a commit costs what it did before.
public protocol CommitRecorder: AnyObject {
    func willCommit(_ realm: Realm, changes: ChangeSet) throws
    /// True when a server, through this recorder's sync client, decides when each subscription set
    /// version is complete (`SubscriptionProgress`); false (the default) keeps a committed set
    /// complete at once, as a local realm's.
    var subscriptionsAwaitServer: Bool { get }
}

extension CommitRecorder {
    public var subscriptionsAwaitServer: Bool { false }
}

extension Realm {
    /// Runs one SQL statement on this instance's connection, inside whatever transaction is open.
    /// For a `CommitRecorder` and its engine, which keep tables of their own in the file (never a
    /// class's table: writes to those must go through the object API so they are captured).
    package func executeSQL(_ sql: String, _ bindings: [SQLiteValue] = []) throws {
        try connection.run(sql, bindings)
    }

    /// The rows a query returns, each as its column values.
    package func querySQL(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        try connection.rows(sql, bindings)
    }

    /// The live object of `className` with object key `key`, nil when there is none: how a recorder
    /// reads the objects a `ChangeSet` names.
    package func object(ofType className: String, forKey key: Int64) throws -> DynamicObject? {
        let info = try classInfo(className)
        let found = try connection.scalarInt(
            "SELECT count(*) FROM \(StorageLayout.quotedTable(className)) WHERE _key = ?", [.integer(key)])
        guard found ?? 0 > 0 else { return nil }
        return DynamicObject(realm: self, info: info, key: key)
    }

    /// The primary key of a deleted object of `className` from its stored form
    /// (`ChangeSet.ClassChanges.deletedPrimaryKeys`).
    package func deletedPrimaryKey(_ stored: SQLiteValue, ofType className: String) throws -> RealmValue {
        guard let pk = try classInfo(className).primaryKeyProperty else { return .null }
        return ValueCoding.decode(stored, as: pk.type)
    }

    /// The non-collection properties of a class, in the order `forEachObject` gives their values.
    package func rowProperties(ofType className: String) throws -> [Property] {
        try classInfo(className).rowColumns
    }

    /// The objects of `className` whose keys are in `keys`, in key order, with the values of their
    /// non-collection properties (`rowProperties` order): one statement for a whole run of keys,
    /// where `object(ofType:forKey:)` costs a lookup per object (a bulk insert's keys are one run).
    package func forEachObject(
        ofType className: String, keys: ClosedRange<Int64>,
        _ body: (_ key: Int64, _ values: [RealmValue]) throws -> Void
    ) throws {
        let info = try classInfo(className)
        let sql =
            "SELECT \(info.selectRowSQL) FROM \(info.quotedTable) AS t0 WHERE t0.\"_key\" BETWEEN ? AND ? "
            + "ORDER BY t0.\"_key\""
        // One array for every row: `body` reads it and lets it go, so it is reused in place.
        var values: [RealmValue] = []
        values.reserveCapacity(info.rowSlots.count)
        try connection.forEachRow(sql, [.integer(keys.lowerBound), .integer(keys.upperBound)]) { statement in
            values.removeAll(keepingCapacity: true)
            for slot in info.rowSlots {
                // Column 0 is the key; a slot's position counts from the first value column.
                let column = Int32(1 + (slot.position ?? 0))
                values.append(
                    try rows.decodeStored(
                        statement.value(at: column), tag: slot.type == .mixed ? statement.value(at: column + 1) : nil,
                        type: slot.type, objectClassName: slot.objectClassName))
            }
            try body(statement.int64(at: 0), values)
        }
    }

    /// The keys of the objects of `className` whose field `field` (a to-one link or a mixed value)
    /// holds `target`: those a deletion of `target` sets to null.
    package func keysOfObjects(ofType className: String, whose field: String, holding target: DynamicObject) throws
        -> [Int64]
    {
        let info = try classInfo(className)
        guard let property = info.objectSchema[field], !property.isCollection, let targetKey = target.objectKey else {
            return []
        }
        let match = rows.linkMatch(
            IncomingLink(info: info, property: property), toObject: targetKey, of: target.className)
        var keys: [Int64] = []
        try connection.forEachRow(
            "SELECT \"_key\" FROM \(info.quotedTable) WHERE \(match.sql)", [match.binding], cache: false
        ) { keys.append($0.int64(at: 0)) }
        return keys
    }

    /// One entry of a collection that holds a link (`collectionEntries`): its owner's key, its row
    /// in the collection's table, and its key when the collection is a map.
    package struct LinkEntry: Hashable, Sendable {
        package let owner: Int64
        package let row: Int64
        package let key: String?
    }

    /// The entries of the collection `field` (of links or of mixed values) of objects of
    /// `className` that hold `target`: those a deletion of `target` removes (list, set) or sets to
    /// null (map), by the row engine's own match.
    package func collectionEntries(ofType className: String, whose field: String, holding target: DynamicObject)
        throws -> [LinkEntry]
    {
        let info = try classInfo(className)
        guard let property = info.objectSchema[field], property.isCollection, let targetKey = target.objectKey else {
            return []
        }
        let match = rows.linkMatch(
            IncomingLink(info: info, property: property), toObject: targetKey, of: target.className)
        let isMap = property.collection == .map
        var entries: [LinkEntry] = []
        try connection.forEachRow(
            "SELECT owner, \"_row\"\(isMap ? ", key" : "") FROM \(info.quotedStorage(property)) WHERE \(match.sql)",
            [match.binding], cache: false
        ) { row in
            entries.append(
                LinkEntry(owner: row.int64(at: 0), row: row.int64(at: 1), key: isMap ? row.string(at: 2) : nil))
        }
        return entries
    }

    /// The SQLite table holding a collection property's elements (docs/STORAGE.md).
    package static func collectionTableName(_ className: String, _ property: Property) -> String {
        StorageLayout.collectionTable(className, property)
    }

    // MARK: Set and map edits (`ChangeSet.ClassChanges.collectionEdits`)

    /// Whether the set `field` of the object `key` holds `element` (as stored) now.
    package func setContains(_ element: StoredElement, ofType className: String, key: Int64, field: String) throws
        -> Bool
    {
        let (info, property) = try collectionProperty(className, field)
        let tagCondition = property.type == .mixed ? " AND value__t IS ?" : ""
        return try connection.scalar(
            "SELECT 1 FROM \(info.quotedStorage(property)) WHERE owner = ? AND value IS ?\(tagCondition) LIMIT 1",
            [.integer(key)] + element.columns) != nil
    }

    /// The value the map `field` of the object `key` holds under `mapKey` now, as stored; nil when
    /// it has no such key.
    package func storedMapValue(ofType className: String, key: Int64, field: String, mapKey: String) throws
        -> StoredElement?
    {
        let (info, property) = try collectionProperty(className, field)
        let columns = property.type == .mixed ? "value, value__t" : "value"
        return try connection.rows(
            "SELECT \(columns) FROM \(info.quotedStorage(property)) WHERE owner = ? AND key = ?",
            [.integer(key), .text(mapKey)]
        ).first.map(StoredElement.init)
    }

    /// The keys under which the map `field` of the object `key` holds the object `target` (an
    /// embedded object, whose write is a write to its map entry).
    package func mapKeys(ofType className: String, key: Int64, field: String, holding target: Int64) throws
        -> [String]
    {
        let (info, property) = try collectionProperty(className, field)
        return try connection.rows(
            "SELECT key FROM \(info.quotedStorage(property)) WHERE owner = ? AND value = ? ORDER BY key",
            [.integer(key), .integer(target)]
        ).compactMap { if case .text(let name)? = $0.first { name } else { nil } }
    }

    /// A stored element of the collection `field` of `className` as a value (links resolved).
    package func collectionValue(_ element: StoredElement, ofType className: String, field: String) throws
        -> RealmValue
    {
        let (_, property) = try collectionProperty(className, field)
        return try rows.decodeStored(element.value, tag: element.tag, property: property)
    }

    /// The object a stored element of the collection `field` links to, by class and key; nil when
    /// it holds no link. The object may be gone (deleted by the same write).
    package func linkTarget(of element: StoredElement, ofType className: String, field: String) throws
        -> (className: String, key: Int64)?
    {
        let (_, property) = try collectionProperty(className, field)
        switch property.type {
        case .object:
            guard case .integer(let key) = element.value, let target = property.objectClassName else { return nil }
            return (target, key)
        case .mixed:
            guard element.tag == .integer(MixedTag.object.rawValue), case .text(let ref) = element.value else {
                return nil
            }
            return RowStore.mixedReference(ref)
        default:
            return nil
        }
    }

    private func collectionProperty(_ className: String, _ field: String) throws -> (ClassInfo, Property) {
        let info = try classInfo(className)
        guard let property = info.objectSchema[field], property.isCollection else {
            throw RealmError(
                .invalidProperty, "'\(className).\(field)' is not a collection property of the realm's schema.")
        }
        return (info, property)
    }

    /// The SQLite table holding a class's objects.
    package static func classTableName(_ className: String) -> String { StorageLayout.table(className) }

    /// A table or column name quoted for SQL.
    package static func quoteSQLName(_ name: String) -> String { StorageLayout.quote(name) }
}
