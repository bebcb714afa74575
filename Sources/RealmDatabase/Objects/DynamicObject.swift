import Foundation
import RealmValues

/// How a managed object's property is written: only inside a write transaction (the default, as
/// RealmSwift's `object.name = …`), or in an implicit one when none is open (as `$object.name = …`).
public enum WriteMode: Sendable {
    case requireWrite
    case implicit
}

/// An object, read and written by property name: `try dog["name"]`.
///
/// Unmanaged, it holds its values itself; `Realm.add` makes it managed in place. Managed, it is a
/// handle to a row (class and key): reads go to the realm, so a live object always shows the
/// latest values, and a frozen one the values of its version.
public final class DynamicObject: CustomStringConvertible {
    enum State {
        case unmanaged(className: String, values: [String: RealmValue])
        case managed(realm: Realm, info: ClassInfo, key: Int64)
    }
    var state: State
    /// The schema of an unmanaged object's class, when it was built knowing it; kept once managed
    /// so that a failed add can put the object back as it was.
    private var unmanagedSchema: ObjectSchema?
    /// The managed row's values in `info.rowColumns` order, valid while the realm's stamp is unchanged.
    private var rowCache: [SQLiteValue]?
    private var rowCacheStamp = -1
    /// The `Results.forEach` loop that handed this object out: while it is still on the object's
    /// row, properties are read straight from its statement (no row is copied).
    private let cursor: RowCursor?
    private var cursorRow: Int

    /// A new unmanaged object of a class, with some of its values.
    public init(className: String, value: [String: RealmValue] = [:]) {
        state = .unmanaged(className: className, values: value)
        cursor = nil
        cursorRow = 0
    }

    /// A new unmanaged object that knows its class's schema (RealmSwift's `Dog(value:)`): every
    /// property reads its default until set, and a value of the wrong type is refused.
    public init(objectSchema: ObjectSchema, value: [String: RealmValue] = [:]) throws {
        state = .unmanaged(
            className: objectSchema.className, values: try UnmanagedValues.initial(value, schema: objectSchema))
        unmanagedSchema = objectSchema
        cursor = nil
        cursorRow = 0
    }

    init(realm: Realm, info: ClassInfo, key: Int64) {
        state = .managed(realm: realm, info: info, key: key)
        cursor = nil
        cursorRow = 0
    }

    /// An object whose row was read with its key, at `stamp` (`Realm.readStamp` before the read).
    init(realm: Realm, info: ClassInfo, key: Int64, row: [SQLiteValue], stamp: Int) {
        state = .managed(realm: realm, info: info, key: key)
        cursor = nil
        cursorRow = 0
        rowCache = row
        rowCacheStamp = stamp
    }

    init(realm: Realm, info: ClassInfo, key: Int64, cursor: RowCursor) {
        state = .managed(realm: realm, info: info, key: key)
        self.cursor = cursor
        cursorRow = cursor.row
    }

    /// Makes an object handed out by `cursor` the object on the cursor's current row. Only for
    /// an object nobody else holds (`Results.forEach` checks), so no caller sees it change.
    func moveToCursorRow(key: Int64) {
        guard let cursor, case .managed(let realm, let info, _) = state else { return }
        state = .managed(realm: realm, info: info, key: key)
        cursorRow = cursor.row
        rowCache = nil
    }

    /// Makes an object nobody else holds denote another row of its class (a migration's
    /// enumeration checks that nobody does), on its cursor's current row if it has one.
    func moveToRow(key: Int64) {
        guard case .managed(let realm, let info, _) = state else { return }
        state = .managed(realm: realm, info: info, key: key)
        if let cursor { cursorRow = cursor.row }
        rowCache = nil
    }

    public var className: String {
        switch state {
        case .unmanaged(let c, _): return c
        case .managed(_, let info, _): return info.className
        }
    }

    /// The realm managing this object; nil when unmanaged.
    public var realm: Realm? {
        if case .managed(let realm, _, _) = state { return realm }
        return nil
    }

    public var isManaged: Bool { realm != nil }
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    /// The schema of the object's class; for an unmanaged object, the one it was built with (nil
    /// when built without).
    public var objectSchema: ObjectSchema? {
        if case .managed(_, let info, _) = state { return info.objectSchema }
        return unmanagedSchema
    }

    /// `add`: this unmanaged object becomes the handle of the managed object `key`.
    func adopt(realm: Realm, info: ClassInfo, key: Int64) {
        state = .managed(realm: realm, info: info, key: key)
        rowCache = nil
    }

    /// A failed `add`: the object is unmanaged again, with the values it had.
    func unadopt(className: String, values: [String: RealmValue]) {
        state = .unmanaged(className: className, values: values)
        rowCache = nil
    }

    /// The stored key of a managed object (stable for its lifetime, never reused).
    public var objectKey: Int64? {
        if case .managed(_, _, let key) = state { return key }
        return nil
    }

    var managed: (realm: Realm, info: ClassInfo, key: Int64)? {
        if case .managed(let realm, let info, let key) = state { return (realm, info, key) }
        return nil
    }

    /// True once the object has been deleted (or its realm's transaction that created it was cancelled).
    /// A read that fails for another reason (a closed or busy connection) is reported through
    /// `RealmDiagnostics`, not taken for a deletion; `checkInvalidated()` throws it instead.
    public var isInvalidated: Bool {
        guard let managed else { return false }
        return reportingErrors(
            "checking whether \(managed.info.className) object \(managed.key) was deleted",
            neutral: false
        ) { try checkInvalidated() }
    }

    /// Whether the object has been deleted, or the error that kept it from being checked.
    public func checkInvalidated() throws -> Bool {
        guard let (realm, _, _) = managed else { return false }
        if !realm.connection.isOpen { throw RealmError(.fileAccess, "The realm of this object has been closed.") }
        do {
            _ = try loadRow()
            return false
        } catch let error as RealmError where error == RealmError.invalidated {
            return true
        }
    }

    /// Whether two handles denote the same stored object (same file, class and key).
    public func isSameObject(as other: DynamicObject) -> Bool {
        if self === other { return true }
        guard let a = managed, let b = other.managed else { return false }
        return a.key == b.key && a.info.className == b.info.className && a.realm.isSameFile(as: b.realm)
    }

    /// The row, loaded if the cache is stale; throws when the object no longer exists.
    func loadRow() throws -> [SQLiteValue] {
        guard let (realm, info, key) = managed else {
            throw RealmError(.internalError, "loadRow on an unmanaged object")
        }
        let stamp = realm.readStamp()
        if let rowCache, rowCacheStamp == stamp { return rowCache }
        guard let row = try realm.rows.fetchRow(info, key: key) else {
            rowCache = nil
            throw RealmError.invalidated
        }
        rowCache = row
        rowCacheStamp = stamp
        return row
    }

    func dropRowCache() { rowCache = nil }

    /// The value of a property. Links come back as `.object`; lists and sets as a `.list`
    /// snapshot and maps as a `.dictionary` snapshot (use `dynamicList(_:)` and friends for the live
    /// collection); linking objects as a `.list` of objects.
    public subscript(name: String) -> RealmValue {
        get throws { try value(forKey: name) }
    }

    public func value(forKey name: String) throws -> RealmValue {
        if let value = try cursor?.value(forKey: name, row: cursorRow) { return value }
        switch state {
        case .unmanaged(let className, let values):
            if let unmanagedSchema, unmanagedSchema[name]?.isPersisted != true {
                throw UnmanagedValues.unknownProperty(name, className)
            }
            return values[name] ?? .null
        case .managed(let realm, let info, _):
            let slot = try info.slot(name)
            if let position = slot.position {
                // The common case, a non-collection property: read it from the row.
                let row = try loadRow()
                return try realm.rows.decodeStored(
                    row[position], tag: slot.type == .mixed ? row[position + 1] : nil,
                    type: slot.type, objectClassName: slot.objectClassName)
            }
            let property = slot.property
            switch (property.type, property.collection) {
            case (.linkingObjects, _):
                return .list(try linkingObjects(name).map { .object($0) })
            case (_, .list), (_, .set):
                return .list(try RealmCollectionStorage(realm: realm, owner: self, property: property).allValues())
            case (_, .map):
                return .dictionary(
                    try RealmCollectionStorage(realm: realm, owner: self, property: property).allEntries())
            default:
                let row = try loadRow()
                return try realm.rows.readValue(info, property: property, row: row)
            }
        }
    }

    /// Sets a property. Managed objects need a write transaction unless `mode` is `.implicit`.
    public func setValue(_ value: RealmValue, forKey name: String, mode: WriteMode = .requireWrite) throws {
        switch state {
        case .unmanaged(let className, var values):
            if let unmanagedSchema {
                guard let p = unmanagedSchema[name] else { throw UnmanagedValues.unknownProperty(name, className) }
                values[name] = try UnmanagedValues.checked(value, for: p, className: className)
            } else {
                values[name] = value
            }
            state = .unmanaged(className: className, values: values)
        case .managed(let realm, let info, let key):
            if realm.isFrozen { throw RealmError.frozenObjectWrite }
            func setManaged(_ value: RealmValue) throws {
                try realm.checkWritable()
                if info.isReadOnlyView {
                    throw RealmError(
                        .migration,
                        "Cannot modify '\(info.className).\(name)' of the old object in a migration: "
                            + "the old object is read-only."
                    )
                }
                // A migration writes every object: its plain columns skip the row load.
                if try realm.rows.setColumnInMigration(info, key: key, name: name, value: value) {
                    self.dropRowCache()
                    return
                }
                _ = try self.loadRow()
                let property = try info.property(name)
                // A collection or a link may take several rows (the old elements go, the new ones
                // come, nested objects are created): a failure partway must leave all of them as
                // they were, and record nothing. One plain column fails whole.
                let severalRows = property.isCollection || property.type == .object || property.type == .mixed
                try realm.undoingOnFailure(when: severalRows) {
                    try realm.rows.setProperty(
                        info, key: key, property: property, value: value, policy: .all, compare: false)
                }
                self.dropRowCache()
            }
            if mode == .implicit {
                let value = try realm.thawArgument(value)
                try realm.writeImplicitly { try setManaged(value) }
            } else {
                try setManaged(value)
            }
        }
    }

    /// The live list of a list property.
    public func dynamicList(_ name: String) throws -> List {
        let (realm, property) = try collectionProperty(name, .list)
        return List(realm: realm, owner: self, property: property)
    }

    /// The live set of a set property.
    public func dynamicMutableSet(_ name: String) throws -> MutableSet {
        let (realm, property) = try collectionProperty(name, .set)
        return MutableSet(realm: realm, owner: self, property: property)
    }

    /// The live map of a map property.
    public func dynamicMap(_ name: String) throws -> Map {
        let (realm, property) = try collectionProperty(name, .map)
        return Map(realm: realm, owner: self, property: property)
    }

    /// The objects linking to this one through a `linkingObjects` property.
    public func linkingObjects(_ name: String) throws -> Results {
        guard let (realm, info, key) = managed else {
            throw RealmError(.invalidValue, "Linking objects are only available on managed objects.")
        }
        let property = try info.property(name)
        guard property.type == .linkingObjects, let origin = property.objectClassName,
            let via = property.linkOriginPropertyName
        else {
            throw RealmError(.invalidProperty, "Property '\(info.className).\(name)' is not a linkingObjects property.")
        }
        return try realm.linkingObjects(toKey: key, fromClass: origin, property: via)
    }

    private func collectionProperty(_ name: String, _ kind: CollectionKind) throws -> (Realm, Property) {
        guard let (realm, info, _) = managed else {
            throw RealmError(
                .invalidValue,
                "Live collections are only available on managed objects; read the value with value(forKey:).")
        }
        let property = try info.property(name)
        guard property.collection == kind else {
            throw RealmError(.invalidProperty, "Property '\(info.className).\(name)' is not a \(kind.rawValue).")
        }
        _ = try loadRow()
        return (realm, property)
    }

    /// Every property's value by name (collections as snapshots).
    public func dictionaryValue() throws -> [String: RealmValue] {
        switch state {
        case .unmanaged(_, let values): return values
        case .managed(_, let info, _):
            var out = [String: RealmValue]()
            for p in info.objectSchema.properties where p.type != .linkingObjects {
                out[p.name] = try value(forKey: p.name)
            }
            return out
        }
    }

    public var description: String {
        switch state {
        case .unmanaged(let c, let values):
            return "\(c) (unmanaged) {"
                + values.sorted { $0.key < $1.key }.map { "\($0.key) = \(Self.shallow($0.value))" }
                .joined(separator: "; ") + "}"
        case .managed(_, let info, let key):
            guard (try? loadRow()) != nil else { return "\(info.className) (invalidated)" }
            if let pk = info.objectSchema.primaryKey, let v = try? value(forKey: pk) {
                return "\(info.className)(\(pk) = \(v))"
            }
            return "\(info.className)(key \(key))"
        }
    }

    /// A value as an unmanaged object's description shows it: linked objects by class only, so
    /// that a graph with cycles (`a.next = b; b.next = a`) is described without recursing.
    private static func shallow(_ value: RealmValue) -> String {
        switch value {
        case .object(let o): return o.isManaged ? o.description : "\(o.className) (unmanaged)"
        case .list(let items): return "[" + items.map(shallow).joined(separator: ", ") + "]"
        case .dictionary(let d):
            return "[" + d.sorted { $0.key < $1.key }.map { "\($0.key): \(shallow($0.value))" }.joined(separator: ", ")
                + "]"
        default: return value.description
        }
    }

    /// A frozen handle to this object at the realm's current version.
    public func freeze() throws -> DynamicObject {
        guard let (realm, info, key) = managed else { throw RealmError.unmanagedFreeze }
        if realm.isFrozen { return self }
        _ = try loadRow()
        let frozen = try realm.freeze()
        let object = DynamicObject(realm: frozen, info: try frozen.classInfo(info.className), key: key)
        guard !object.isInvalidated else { throw RealmError.invalidated }
        return object
    }

    /// The live counterpart of a frozen object; nil if it has been deleted since.
    public func thaw() throws -> DynamicObject? {
        guard let (realm, info, key) = managed else {
            throw RealmError(.invalidValue, "Unmanaged objects cannot be thawed.")
        }
        if !realm.isFrozen { return self }
        let live = try realm.thaw()
        let object = DynamicObject(realm: live, info: try live.classInfo(info.className), key: key)
        return object.isInvalidated ? nil : object
    }
}
