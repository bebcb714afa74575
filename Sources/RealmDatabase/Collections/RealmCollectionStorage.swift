import Foundation
import RealmValues

/// The rows of one collection property of one object, in its side table: the single place that
/// reads and writes lists, sets and maps (see StorageLayout for the tables).
struct RealmCollectionStorage {
    let realm: Realm
    let ownerInfo: ClassInfo
    let ownerKey: Int64
    let property: Property
    /// The owner is being created: a commit recorder reads its collections whole, so no edit of
    /// them is captured (`CollectionEdits`).
    var ownerIsNew = false

    init(realm: Realm, ownerInfo: ClassInfo, ownerKey: Int64, property: Property) {
        self.realm = realm
        self.ownerInfo = ownerInfo
        self.ownerKey = ownerKey
        self.property = property
    }

    init(realm: Realm, owner: DynamicObject, property: Property) throws {
        guard let (_, info, key) = owner.managed else {
            throw RealmError(.internalError, "collection of an unmanaged object")
        }
        self.init(realm: realm, ownerInfo: info, ownerKey: key, property: property)
    }

    var table: String { ownerInfo.quotedStorage(property) }
    var isMixed: Bool { property.type == .mixed }
    var valueColumns: String { isMixed ? "value, value__t" : "value" }
    var owner: SQLiteValue { .integer(ownerKey) }

    /// The order elements are read in: list position, map key, set insertion.
    var order: String {
        switch property.collection {
        case .list: return "pos, \"_row\""
        case .map: return "key"
        default: return "\"_row\""
        }
    }

    func element(_ statement: Statement, at column: Int32) throws -> RealmValue {
        try realm.rows.decodeStored(
            statement.value(at: column), tag: isMixed ? statement.value(at: column + 1) : nil, property: property)
    }

    // MARK: Reading

    func count() throws -> Int {
        Int(try realm.connection.scalarInt("SELECT count(*) FROM \(table) WHERE owner = ?", [owner]) ?? 0)
    }

    func allValues() throws -> [RealmValue] {
        var out = [RealmValue]()
        try realm.connection.forEachRow(
            "SELECT \(valueColumns) FROM \(table) WHERE owner = ? ORDER BY \(order)", [owner]
        ) {
            out.append(try element($0, at: 0))
        }
        return out
    }

    func allEntries() throws -> [String: RealmValue] {
        var out = [String: RealmValue]()
        try realm.connection.forEachRow(
            "SELECT key, \(valueColumns) FROM \(table) WHERE owner = ? ORDER BY key", [owner]
        ) {
            out[$0.string(at: 0)] = try element($0, at: 1)
        }
        return out
    }

    func snapshotValue() throws -> RealmValue {
        property.collection == .map ? .dictionary(try allEntries()) : .list(try allValues())
    }

    /// The row id and position of the element at `index` (list order).
    func row(at index: Int) throws -> (row: Int64, pos: Int64, value: RealmValue) {
        guard index >= 0 else { throw outOfRange(index) }
        let posColumn = order == "\"_row\"" ? "\"_row\"" : "pos"
        let statement = try realm.connection.cached(
            "SELECT \"_row\", \(posColumn), \(valueColumns) FROM \(table) "
                + "WHERE owner = ? ORDER BY \(order) LIMIT 1 OFFSET ?"
        )
        try statement.bind([owner, .integer(Int64(index))])
        defer { statement.reset() }
        guard try statement.step() else { throw outOfRange(index) }
        return (statement.int64(at: 0), statement.int64(at: 1), try element(statement, at: 2))
    }

    func value(at index: Int) throws -> RealmValue { try row(at: index).value }

    func outOfRange(_ index: Int) -> RealmError {
        let n = (try? count()) ?? 0
        return RealmError(.indexOutOfRange, "Index \(index) is out of bounds (must be less than \(n)).")
    }

    /// The stored value (and tag) of an element, adding or creating linked objects as needed.
    func encode(_ value: RealmValue, policy: UpdatePolicy, mode: LinkMode) throws -> [SQLiteValue] {
        if property.type == .object {
            guard let target = property.objectClassName else { return [.null] }
            if value.isNull && property.collection != .map { throw nilElement(target) }
            return [
                try realm.rows.linkKey(
                    value, target: target, policy: policy, mode: mode,
                    holder: property.collection == .map ? .dictionary : .list
                ).map { .integer($0) } ?? .null
            ]
        }
        let (stored, tag) = try realm.rows.encodeForStorage(
            value, property: Property(name: property.name, type: property.type, isOptional: property.isOptional),
            info: ownerInfo, policy: policy, mode: mode)
        return isMixed ? [stored, tag] : [stored]
    }

    func nilElement(_ target: String) -> RealmError {
        RealmError(
            .invalidValue,
            "A list or set of '\(target)' cannot hold nil (property '\(ownerInfo.className).\(property.name)')."
        )
    }

    /// Whether the element type is an embedded class (whose objects the collection owns).
    var holdsEmbedded: Bool {
        guard property.type == .object, let target = property.objectClassName else { return false }
        return realm.rows.classInfos[target]?.objectSchema.isEmbedded ?? false
    }

    func recordChange() {
        realm.rows.recordModification(ownerInfo, key: ownerKey, property: property.name)
    }

    // MARK: Writing (callers check that a write is open)

    /// Appends a value; `record: false` when the caller records the whole edit once itself.
    func append(_ value: RealmValue, policy: UpdatePolicy = .error, mode: LinkMode = .add, record: Bool = true) throws {
        let encoded = try encode(value, policy: policy, mode: mode)
        switch property.collection {
        case .list:
            let nextPos = "(SELECT coalesce(max(pos) + 1, 0) FROM \(table) WHERE owner = ?)"
            try realm.connection.run(
                "INSERT INTO \(table) (owner, pos, \(valueColumns)) VALUES (?, \(nextPos), \(isMixed ? "?, ?" : "?"))",
                [owner, owner] + encoded)
        case .set:
            if try contains(encoded: encoded) { return }
            try realm.connection.run(
                "INSERT INTO \(table) (owner, \(valueColumns)) VALUES (?, \(isMixed ? "?, ?" : "?"))", [owner] + encoded
            )
            if capturesEdits { capture(.setElement(StoredElement(encoded), wasPresent: false)) }
        case .map, .none:
            throw RealmError(.invalidValue, "Use a key to add to the map '\(ownerInfo.className).\(property.name)'.")
        }
        if record { recordChange() }
    }

    func insert(_ value: RealmValue, at index: Int) throws {
        let n = try count()
        guard index >= 0, index <= n else {
            throw RealmError(.indexOutOfRange, "Index \(index) is out of bounds (must be less than or equal to \(n)).")
        }
        if index == n { return try append(value) }
        let target = try row(at: index)
        let encoded = try encode(value, policy: .error, mode: .add)
        try realm.connection.run(
            "UPDATE \(table) SET pos = pos + 1 WHERE owner = ? AND pos >= ?", [owner, .integer(target.pos)])
        try realm.connection.run(
            "INSERT INTO \(table) (owner, pos, \(valueColumns)) VALUES (?, ?, \(isMixed ? "?, ?" : "?"))",
            [owner, .integer(target.pos)] + encoded)
        recordChange()
    }

    func set(_ value: RealmValue, at index: Int) throws {
        let target = try row(at: index)
        let encoded = try encode(value, policy: .error, mode: .add)
        try realm.connection.run(
            "UPDATE \(table) SET \(isMixed ? "value = ?, value__t = ?" : "value = ?") WHERE \"_row\" = ?",
            encoded + [.integer(target.row)])
        // Only after the element points at the new value: deleting the replaced embedded object
        // removes every element that still holds it, which would otherwise be this one.
        try deleteOwnedObject(target.value)
        recordChange()
    }

    func remove(at index: Int) throws {
        let target = try row(at: index)
        try realm.connection.run("DELETE FROM \(table) WHERE \"_row\" = ?", [.integer(target.row)])
        try deleteOwnedObject(target.value)
        recordChange()
    }

    func move(from: Int, to: Int) throws {
        let n = try count()
        guard from >= 0, from < n, to >= 0, to < n else {
            let bad = (0..<n).contains(from) ? to : from  // the index out of range, however negative
            throw RealmError(.indexOutOfRange, "Index \(bad) is out of bounds (must be less than \(n)).")
        }
        if from == to { return }
        let moving = try row(at: from)
        try realm.connection.run("DELETE FROM \(table) WHERE \"_row\" = ?", [.integer(moving.row)])
        let rest = try count()
        let pos: Int64
        if to >= rest {
            pos = (try realm.connection.scalarInt("SELECT max(pos) + 1 FROM \(table) WHERE owner = ?", [owner])) ?? 0
        } else {
            pos = try row(at: to).pos
            try realm.connection.run(
                "UPDATE \(table) SET pos = pos + 1 WHERE owner = ? AND pos >= ?", [owner, .integer(pos)])
        }
        try realm.connection.run(
            "INSERT INTO \(table) (\"_row\", owner, pos, \(valueColumns)) SELECT ?, ?, ?, \(isMixed ? "?, ?" : "?")",
            [.integer(moving.row), owner, .integer(pos)] + (try encodeExisting(moving.value)))
        recordChange()
    }

    /// Re-encodes a value read from this collection (links are already managed here).
    private func encodeExisting(_ value: RealmValue) throws -> [SQLiteValue] {
        if property.type == .object, case .object(let o) = value { return [o.objectKey.map { .integer($0) } ?? .null] }
        return try encode(value, policy: .error, mode: .add)
    }

    func removeAll(recordChange record: Bool = true) throws {
        if capturesEdits { try captureEveryElement() }
        if holdsEmbedded {
            for v in try allValues() { try deleteOwnedObject(v) }
        }
        try realm.connection.run("DELETE FROM \(table) WHERE owner = ?", [owner])
        if record { recordChange() }
    }

    /// Replaces the whole content with a `.list` (list, set) or `.dictionary` (map) value. Except
    /// for a list of embedded objects under `.modified`, which is updated element by element
    /// (`updateEmbeddedElements`): the owner's list is then modified only if it grew or shrank.
    func replaceAll(with value: RealmValue, policy: UpdatePolicy, mode: LinkMode, recordChange record: Bool) throws {
        if policy == .modified, property.collection == .list, case .list(let items) = value, holdsEmbedded {
            if try updateEmbeddedElements(with: items, mode: mode), record { recordChange() }
            return
        }
        try removeAll(recordChange: false)
        switch (property.collection, value) {
        case (_, .null):
            break
        case (.map, .dictionary(let entries)):
            for (k, v) in entries.sorted(by: { $0.key < $1.key }) {
                try setValue(v, forKey: k, policy: policy, mode: mode, record: false)
            }
        case (.list, .list(let items)), (.set, .list(let items)):
            for item in items { try append(item, policy: policy, mode: mode, record: false) }
        default:
            throw RealmError(
                .invalidValue,
                "Invalid value '\(value)' for '\(property.typeString)' property "
                    + "'\(ownerInfo.className).\(property.name)'."
            )
        }
        if record { recordChange() }
    }

    /// `.modified` on a list of embedded objects, as realm-core's `List::assign` with `diff`: the
    /// element at each index both lists have is updated in place (handles to it stay valid, and
    /// only the values that differ are written), further new elements are appended and surplus
    /// old ones removed (deleted, as the list owns them). Returns whether the list grew or shrank.
    private func updateEmbeddedElements(with items: [RealmValue], mode: LinkMode) throws -> Bool {
        guard let target = property.objectClassName else { return false }
        let info = try realm.rows.classInfo(target)
        let old = try elementRows()
        let shared = min(old.count, items.count)
        // Every new value is read before anything is written: one may be an element of this very
        // list (a `create` copying an object), which an earlier update would already have changed.
        let values = try items[..<shared].map { item in
            if item.isNull { throw nilElement(target) }
            return try realm.rows.embeddedElementValues(item, info: info, mode: mode)
        }
        for (i, v) in values.enumerated() {
            try realm.rows.updateEmbedded(info, key: old[i].key, values: v, from: items[i], mode: mode)
        }
        for item in items.dropFirst(shared) { try append(item, policy: .modified, mode: mode, record: false) }
        for element in old.dropFirst(shared) {
            // The element row first: deleting the object would otherwise modify the owner's list too.
            try realm.connection.run("DELETE FROM \(table) WHERE \"_row\" = ?", [.integer(element.row)])
            try realm.rows.deleteObject(info, key: element.key)
        }
        return items.count != old.count
    }

    /// The side-table row and linked key of each element of a list of links, in list order.
    private func elementRows() throws -> [(row: Int64, key: Int64)] {
        var out = [(row: Int64, key: Int64)]()
        try realm.connection.forEachRow(
            "SELECT \"_row\", value FROM \(table) WHERE owner = ? AND value IS NOT NULL ORDER BY \(order)", [owner]
        ) {
            out.append(($0.int64(at: 0), $0.int64(at: 1)))
        }
        return out
    }

    // MARK: Sets

    func contains(encoded: [SQLiteValue]) throws -> Bool {
        let sql =
            isMixed
            ? "SELECT 1 FROM \(table) WHERE owner = ? AND value IS ? AND value__t IS ? LIMIT 1"
            : "SELECT 1 FROM \(table) WHERE owner = ? AND value IS ? LIMIT 1"
        return try realm.connection.scalar(sql, [owner] + encoded) != nil
    }

    func contains(_ value: RealmValue) throws -> Bool {
        if property.type == .object, case .object(let o) = value {
            guard let key = o.objectKey, o.realm.map({ $0.isSameFile(as: realm) }) == true else { return false }
            return try contains(encoded: [.integer(key)])
        }
        guard let encoded = try? encode(value, policy: .error, mode: .add) else { return false }
        return try contains(encoded: encoded)
    }

    func removeValue(_ value: RealmValue) throws {
        let encoded: [SQLiteValue]
        if property.type == .object, case .object(let o) = value {
            guard let key = o.objectKey else { return }
            encoded = [.integer(key)]
        } else {
            guard let e = try? encode(value, policy: .error, mode: .add) else { return }
            encoded = e
        }
        let sql =
            isMixed
            ? "DELETE FROM \(table) WHERE owner = ? AND value IS ? AND value__t IS ?"
            : "DELETE FROM \(table) WHERE owner = ? AND value IS ?"
        try realm.connection.run(sql, [owner] + encoded)
        guard realm.connection.changes > 0 else { return }
        if capturesEdits { capture(.setElement(StoredElement(encoded), wasPresent: true)) }
        recordChange()
    }

    // MARK: Maps

    func value(forKey key: String) throws -> RealmValue? {
        let statement = try realm.connection.cached("SELECT \(valueColumns) FROM \(table) WHERE owner = ? AND key = ?")
        try statement.bind([owner, .text(key)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try element(statement, at: 0)
    }

    func setValue(
        _ value: RealmValue, forKey key: String, policy: UpdatePolicy = .error, mode: LinkMode = .add,
        record: Bool = true
    ) throws {
        guard !key.isEmpty, !key.contains("."), !key.hasPrefix("$") else {
            throw RealmError(
                .invalidValue,
                "Invalid key '\(key)' for the map '\(ownerInfo.className).\(property.name)': "
                    + "keys must not be empty, contain '.' or start with '$'."
            )
        }
        try removeOwnedValue(forKey: key)
        let encoded = try encode(value, policy: policy, mode: mode)
        let placeholders = isMixed ? "?, ?" : "?"
        let updates = isMixed ? "value = excluded.value, value__t = excluded.value__t" : "value = excluded.value"
        try realm.connection.run(
            "INSERT INTO \(table) (owner, key, \(valueColumns)) VALUES (?, ?, \(placeholders)) "
                + "ON CONFLICT(owner, key) DO UPDATE SET \(updates)",
            [owner, .text(key)] + encoded)
        if record { recordChange() }
    }

    func removeValue(forKey key: String) throws {
        try removeOwnedValue(forKey: key)
        try realm.connection.run("DELETE FROM \(table) WHERE owner = ? AND key = ?", [owner, .text(key)])
        if realm.connection.changes > 0 { recordChange() }
    }

    /// Before a map key is written or removed: its edit captured (when it is) and the embedded
    /// object it held deleted, from one read of its stored value.
    private func removeOwnedValue(forKey key: String) throws {
        guard capturesEdits || holdsEmbedded else { return }
        let before = try storedValue(forKey: key)
        if capturesEdits { capture(.mapKey(key, before: before)) }
        if holdsEmbedded, let before { try deleteOwnedObject(try element(before)) }
    }

    /// A stored element as a value (links resolved).
    private func element(_ stored: StoredElement) throws -> RealmValue {
        try realm.rows.decodeStored(stored.value, tag: stored.tag, property: property)
    }

    /// Embedded objects belong to the collection holding them: removing the element deletes them.
    private func deleteOwnedObject(_ value: RealmValue) throws {
        guard holdsEmbedded, case .object(let o) = value, let (_, info, key) = o.managed else { return }
        try realm.rows.deleteObject(info, key: key)
    }

    // MARK: Edits for a commit recorder (`CollectionEdits`)

    /// Whether this collection's edits are captured: a set or a map of an object the write did not
    /// create, with a recorder reading the commits.
    private var capturesEdits: Bool {
        realm.rows.feedsCommitRecorder && !ownerIsNew && (property.collection == .set || property.collection == .map)
    }

    private func capture(_ touch: CollectionEdit.Touch) {
        realm.rows.changeTracker.recordEdit(
            CollectionEdit(className: ownerInfo.className, key: ownerKey, property: property.name, touch: touch))
    }

    /// A map key's value as stored; nil when the map has no such key.
    private func storedValue(forKey key: String) throws -> StoredElement? {
        try realm.connection.rows(
            "SELECT \(valueColumns) FROM \(table) WHERE owner = ? AND key = ?", [owner, .text(key)]
        ).first.map(StoredElement.init)
    }

    /// Before a `removeAll`: every element (set) or key (map) it removes, as it is stored.
    private func captureEveryElement() throws {
        let isMap = property.collection == .map
        let rows = try realm.connection.rows(
            "SELECT \(isMap ? "key, " : "")\(valueColumns) FROM \(table) WHERE owner = ?", [owner])
        for row in rows {
            if isMap, case .text(let key)? = row.first {
                capture(.mapKey(key, before: StoredElement(Array(row.dropFirst()))))
            } else if !isMap {
                capture(.setElement(StoredElement(row), wasPresent: true))
            }
        }
    }
}
