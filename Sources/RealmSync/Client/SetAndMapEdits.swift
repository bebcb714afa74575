import Foundation
import RealmDatabase

/// The instructions of a commit's set and map edits, from what the row engine captured
/// (`ChangeSet.ClassChanges.collectionEdits`): each element or key the write touched, as it was
/// before the write, against what the collection holds now. Nothing is mirrored: a commit reads
/// only the elements and keys it touched, and a download writes no copy of them.
struct SetAndMapEdits {
    let realm: Realm
    let store: ClientStore
    /// The commit's changes: the primary keys of objects it deleted name the links to them that
    /// their deletion removed from sets (their rows are gone).
    let changes: ChangeSet

    /// `setRemove`s then `setAdd`s, each in `SyncValue` order; `mapRemove`s then `mapPut`s, by key.
    func instructions(
        _ edits: CollectionEdits, of property: Property, in className: String, key: Int64, ref: ObjectRef
    ) throws -> [Instruction] {
        let field = property.name
        switch property.collection {
        case .set:
            var removed: [SyncValue] = []
            var added: [SyncValue] = []
            for (element, wasPresent) in edits.setElements {
                let isPresent = try realm.setContains(element, ofType: className, key: key, field: field)
                guard isPresent != wasPresent, let value = try syncValue(element, className, field) else { continue }
                if isPresent { added.append(value) } else { removed.append(value) }
            }
            return removed.sorted(by: SyncValue.order).map { .setRemove(ref, field: field, value: $0) }
                + added.sorted(by: SyncValue.order).map { .setAdd(ref, field: field, value: $0) }
        case .map:
            var removed: [String] = []
            var put: [(key: String, value: SyncValue)] = []
            for (mapKey, before) in edits.mapKeys {
                let now = try realm.storedMapValue(ofType: className, key: key, field: field, mapKey: mapKey)
                guard now != before else {
                    // Null written over a link that waits for its object (the realm read null
                    // there): the write replaces the link, as Realm records it.
                    if now?.value == .null, try store.isUnresolved(.mapKey(className, key, field, mapKey)) {
                        put.append((mapKey, .null))
                    }
                    continue
                }
                if let now {
                    guard let value = try syncValue(now, className, field) else { continue }
                    put.append((mapKey, value))
                } else {
                    removed.append(mapKey)
                }
            }
            // A key written here no longer holds the link that waited there for its object.
            for mapKey in removed + put.map(\.key) {
                try store.forgetUnresolved(.mapKey(className, key, field, mapKey))
            }
            return removed.sorted().map { .mapRemove(ref, field: field, key: $0) }
                + put.sorted { $0.key < $1.key }.map { .mapPut(ref, field: field, key: $0.key, value: $0.value) }
        case .list, .none:
            return []
        }
    }

    /// A created object's set or map, whole: a `setAdd` per element in `SyncValue` order, a
    /// `mapPut` per key in key order.
    static func content(of property: Property, of object: DynamicObject, ref: ObjectRef) throws -> [Instruction] {
        let field = property.name
        switch property.collection {
        case .set:
            return try object.dynamicMutableSet(field).values().map(SyncValueConversion.syncValue)
                .sorted(by: SyncValue.order).map { .setAdd(ref, field: field, value: $0) }
        case .map:
            let entries = try object.dynamicMap(field).entries()
            return try entries.keys.sorted().map {
                .mapPut(ref, field: field, key: $0, value: try SyncValueConversion.syncValue(entries[$0] ?? .null))
            }
        case .list, .none:
            return []
        }
    }

    /// A stored element as it syncs; a link to an object the commit deleted by that object's
    /// primary key. Nil for a link to an object gone without one (never synced).
    private func syncValue(_ element: StoredElement, _ className: String, _ field: String) throws -> SyncValue? {
        guard let target = try realm.linkTarget(of: element, ofType: className, field: field) else {
            return try SyncValueConversion.syncValue(realm.collectionValue(element, ofType: className, field: field))
        }
        if let object = try realm.object(ofType: target.className, forKey: target.key) {
            return try SyncValueConversion.syncValue(.object(object))
        }
        guard let stored = changes.classes[target.className]?.deletedPrimaryKeys[target.key] else { return nil }
        let primaryKey = try realm.deletedPrimaryKey(stored, ofType: target.className)
        return .link(ObjectRef(target.className, try SyncValueConversion.primaryKey(primaryKey, of: target.className)))
    }
}
