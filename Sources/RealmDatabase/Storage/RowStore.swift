import Foundation
import RealmValues

/// The row engine under a `Realm`: reads and writes objects' rows and collections in SQLite.
/// It encodes and decodes values, keeps the prepared inserts (in the class infos), creates,
/// updates and deletes objects with their cascades (embedded objects, links, collections), and
/// records every change at one capture point (`ChangeTracker`).
///
/// `Realm` is the façade: it checks the write state and the arguments of Realm's API, then
/// delegates here. The engine is confined to the realm's thread, as its connection is.
final class RowStore {
    /// The realm this engine serves: objects decoded here are handles of it.
    unowned let realm: Realm
    let connection: SQLiteConnection
    let changeTracker: ChangeTracker
    /// Per class, what the engine knows of its storage.
    private(set) var classInfos: [String: ClassInfo] = [:]
    /// The class `classInfo` found last, and the bits of its name (a string `info` keeps alive,
    /// see `StringBits`).
    private var lastClassInfo: (bits: StringBits, info: ClassInfo)?
    /// Per class, the places that can link to its objects (see `incomingLinks(to:)`).
    var incomingLinksCache: [String: [IncomingLink]] = [:]
    /// True while a migration block runs on this (temporary) instance: primary keys are not enforced.
    var isMigrating = false
    /// The objects the running `add` or `create` has reached (see `ObjectGraph`).
    var graph = ObjectGraph()
    /// How many `createOrUpdate` calls are running (`withGraphLevel`); `graph` is forgotten when
    /// it returns to 0. Kept out of `graph`: read on every insert, and no access to it spans a
    /// call, so the optimizer can drop its dynamic exclusivity checks.
    var graphDepth = 0
    /// Whether a commit recorder reads the commits: a deletion then keeps the row's primary key
    /// (`ChangeSet.ClassChanges.deletedPrimaryKeys`) and set and map edits are captured
    /// (`CollectionEdits`). A local realm pays nothing for either.
    let feedsCommitRecorder: Bool

    init(realm: Realm, schema: Schema) {
        self.realm = realm
        self.connection = realm.connection
        self.changeTracker = realm.changeTracker
        feedsCommitRecorder = realm.configuration.commitRecorder != nil
        for objectSchema in schema.objectSchemas { classInfos[objectSchema.className] = ClassInfo(objectSchema) }
    }

    func classInfo(_ className: String) throws -> ClassInfo {
        // Bulk work names one class again and again: compare the name's bits before hashing it.
        if let last = lastClassInfo, last.bits == StringBits(className) { return last.info }
        guard let info = classInfos[className] else {
            throw RealmError(.invalidClass, "Object type '\(className)' is not managed by the Realm.")
        }
        lastClassInfo = (StringBits(info.className), info)
        return info
    }
}

extension RowStore {
    // MARK: Reading

    func fetchRow(_ info: ClassInfo, key: Int64) throws -> [SQLiteValue]? {
        let statement = try connection.cached(
            "SELECT \(info.selectRowSQL) FROM \(info.quotedTable) AS t0 WHERE t0.\"_key\" = ?")
        try statement.bind([.integer(key)])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return (1..<statement.columnCount).map { statement.value(at: $0) }
    }

    /// The key and the row (as `fetchRow` reads it) of the object whose primary key is `value`, in
    /// one statement; nil when there is none.
    func fetchRow(_ info: ClassInfo, primaryKey pk: Property, value: RealmValue) throws -> (
        key: Int64, row: [SQLiteValue]
    )? {
        guard let encoded = ValueCoding.encode(value, as: pk.type) else {
            throw invalidValue(value, for: pk, in: info)
        }
        let statement = try connection.cached(
            "SELECT \(info.selectRowSQL) FROM \(info.quotedTable) AS t0 WHERE t0.\(info.quotedStorage(pk)) IS ?")
        try statement.bind([encoded])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        guard case .integer(let key) = statement.value(at: 0) else {
            throw RealmError(.internalError, "a row of '\(info.className)' has no integer key")
        }
        return (key, (1..<statement.columnCount).map { statement.value(at: $0) })
    }

    /// The position of a property's value (and of a mixed tag after it) in a row from `fetchRow`.
    func rowIndex(_ info: ClassInfo, _ property: Property) -> Int? { (try? info.slot(property.name))?.position }

    func readValue(_ info: ClassInfo, property: Property, row: [SQLiteValue]) throws -> RealmValue {
        guard let i = rowIndex(info, property), i < row.count else {
            throw RealmError(
                .invalidProperty, "Property '\(property.name)' does not exist on object type '\(info.className)'.")
        }
        return try decodeStored(row[i], tag: property.type == .mixed ? row[i + 1] : nil, property: property)
    }

    /// A stored value as a `RealmValue`, with links resolved to objects.
    func decodeStored(_ stored: SQLiteValue, tag: SQLiteValue?, property: Property) throws -> RealmValue {
        try decodeStored(stored, tag: tag, type: property.type, objectClassName: property.objectClassName)
    }

    func decodeStored(_ stored: SQLiteValue, tag: SQLiteValue?, type: PropertyType, objectClassName: String?) throws
        -> RealmValue
    {
        switch type {
        case .object:
            guard case .integer(let key) = stored, let target = objectClassName else { return .null }
            return .object(DynamicObject(realm: realm, info: try classInfo(target), key: key))
        case .mixed:
            guard case .integer(let t)? = tag else { return .null }
            let value = ValueCoding.decodeMixed(stored, tag: t)
            if t == MixedTag.object.rawValue, case .string(let ref) = value { return try objectFromMixedReference(ref) }
            return value
        default:
            return ValueCoding.decode(stored, as: type)
        }
    }

    /// The class and key a mixed value's stored object reference (`Class:key`) names.
    static func mixedReference(_ ref: String) -> (className: String, key: Int64)? {
        guard let colon = ref.lastIndex(of: ":"), let key = Int64(ref[ref.index(after: colon)...]) else { return nil }
        return (String(ref[..<colon]), key)
    }

    func objectFromMixedReference(_ ref: String) throws -> RealmValue {
        guard let (className, key) = Self.mixedReference(ref), let info = classInfos[className] else { return .null }
        let object = DynamicObject(realm: realm, info: info, key: key)
        return object.isInvalidated ? .null : .object(object)
    }

    func existingKey(_ info: ClassInfo, primaryKey pk: Property, value: RealmValue) throws -> Int64? {
        guard let encoded = ValueCoding.encode(value, as: pk.type) else {
            throw invalidValue(value, for: pk, in: info)
        }
        return try connection.scalarInt(
            "SELECT \"_key\" FROM \(info.quotedTable) WHERE \(info.quotedStorage(pk)) IS ?", [encoded])
    }

    func invalidValue(_ value: RealmValue, for property: Property, in info: ClassInfo) -> RealmError {
        RealmError(
            .invalidValue,
            "Invalid value '\(value)' of type '\(value.typeName)' for '\(property.typeString)' property "
                + "'\(info.className).\(property.name)'."
        )
    }

}
