import Foundation
import RealmDatabase

/// Values between the realm (`RealmValue`, objects by key) and sync (`SyncValue`, objects by
/// primary key, embedded objects whole). The one place the two meet.
enum SyncValueConversion {
    /// The primary key of a value stored in a primary-key property.
    static func primaryKey(_ value: RealmValue, of className: String) throws -> SyncPrimaryKey {
        guard let primitive = SyncValue(primitive: value), let key = SyncPrimaryKey(primitive) else {
            throw SyncError(.badChangeset, "The primary key of a '\(className)' is a \(value.typeName)")
        }
        return key
    }

    static func realmValue(_ key: SyncPrimaryKey) -> RealmValue { key.value.primitiveRealmValue ?? .null }

    /// The sync identity of a live object of a class with a primary key.
    static func ref(of object: DynamicObject) throws -> ObjectRef {
        guard let schema = object.objectSchema, let pk = schema.primaryKey else {
            throw SyncError(.badChangeset, "A '\(object.className)' has no primary key and cannot sync")
        }
        return ObjectRef(object.className, try primaryKey(object.value(forKey: pk), of: object.className))
    }

    /// A realm value as it travels: links by reference, embedded objects whole.
    static func syncValue(_ value: RealmValue) throws -> SyncValue {
        switch value {
        case .object(let o):
            if o.objectSchema?.isEmbedded == true { return .embedded(try fields(of: o)) }
            return .link(try ref(of: o))
        case .list(let items): return .list(try items.map(syncValue))
        case .dictionary(let entries):
            return .map(try entries.keys.sorted().map { SyncField($0, try syncValue(entries[$0] ?? .null)) })
        default: return SyncValue(primitive: value) ?? .null
        }
    }

    /// Every persisted property of an object, by name; collections as `.list` (sets sorted) and `.map`.
    /// The canonical form of an embedded object, and of a synced object in a dump.
    static func fields(of object: DynamicObject) throws -> [SyncField] {
        guard let schema = object.objectSchema else { return [] }
        var result: [SyncField] = []
        for property in schema.persistedProperties.sorted(by: { $0.name < $1.name }) {
            var value = try syncValue(object.value(forKey: property.name))
            if property.collection == .set, case .list(let items) = value {
                value = .list(items.sorted(by: SyncValue.order))
            }
            result.append(SyncField(property.name, value))
        }
        return result
    }

    /// A travelling value as the realm stores it. A link to an object this replica does not have
    /// is null (the server's state names it; it arrives with its create).
    static func realmValue(_ value: SyncValue, in realm: Realm) throws -> RealmValue {
        switch value {
        case .link(let ref):
            return try object(ref, in: realm).map { .object($0) } ?? .null
        case .embedded(let fields), .map(let fields):
            var entries: [String: RealmValue] = [:]
            for field in fields { entries[field.name] = try realmValue(field.value, in: realm) }
            return .dictionary(entries)
        case .list(let items): return .list(try items.map { try realmValue($0, in: realm) })
        default: return value.primitiveRealmValue ?? .null
        }
    }

    /// A travelling value as an element of a collection: nil for a link to an object this replica
    /// does not have (the element waits for it rather than hold null).
    static func collectionItem(_ value: SyncValue, in realm: Realm) throws -> RealmValue? {
        let item = try realmValue(value, in: realm)
        if case .link = value, item.isNull { return nil }
        return item
    }

    /// The live object a reference names, nil when this replica has none.
    static func object(_ ref: ObjectRef, in realm: Realm) throws -> DynamicObject? {
        guard realm.schema[ref.className]?.primaryKey != nil else {
            throw SyncError(.badChangeset, "The class '\(ref.className)' of \(ref) has no primary key here")
        }
        return try realm.object(ofType: ref.className, forPrimaryKey: realmValue(ref.primaryKey))
    }
}
