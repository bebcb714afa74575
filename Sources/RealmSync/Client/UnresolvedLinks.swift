import Foundation
import RealmDatabase

/// To-one links to objects this replica does not have. The server keeps a link by reference
/// whether or not its target exists; the realm can only hold null. So the replica remembers the
/// reference (`_sync_unresolved`), dumps it as the server does, and restores the link when the
/// object is created again. Local writes to the field replace it (their instruction says what the
/// field holds).
struct UnresolvedLinks {
    let realm: Realm
    let store: ClientStore
    let syncedClasses: Set<String>

    /// Before a remote erase deletes `target`: the synced objects linking to it keep the reference.
    func targetWillBeErased(_ target: DynamicObject, _ ref: ObjectRef) throws {
        guard let targetKey = target.objectKey else { return }
        for schema in realm.schema.objectSchemas where syncedClasses.contains(schema.className) {
            for property in schema.persistedProperties
            where property.type == .object && !property.isCollection && property.objectClassName == ref.className {
                let sql =
                    "SELECT _key FROM \(Realm.quoteSQLName(Realm.classTableName(schema.className))) "
                    + "WHERE \(Realm.quoteSQLName(property.name)) = ?"
                for row in try realm.querySQL(sql, [.integer(targetKey)]) {
                    guard case .integer(let key)? = row.first else { continue }
                    try store.rememberUnresolved(schema.className, key, property.name, ref)
                }
            }
        }
    }

    /// After a remote write of a top-level field: remembers a link whose target is missing here,
    /// forgets what the field held before.
    func fieldWritten(_ object: DynamicObject, _ field: String, _ value: SyncValue) throws {
        guard let key = object.objectKey, object.objectSchema?[field]?.type == .object else { return }
        if case .link(let target) = value, try SyncValueConversion.object(target, in: realm) == nil {
            try store.rememberUnresolved(object.className, key, field, target)
        } else {
            try store.forgetUnresolved(object.className, key, field)
        }
    }

    /// After `object` was created (here or by a download): the links waiting for it point at it again.
    func objectCreated(_ object: DynamicObject) throws {
        try objectCreated(object, ref: try SyncValueConversion.ref(of: object))
    }

    /// `objectCreated(_:)` when the caller knows the object's reference.
    func objectCreated(_ object: DynamicObject, ref: ObjectRef) throws {
        for waiting in try store.takeUnresolved(to: ref) {
            guard let source = try realm.object(ofType: waiting.className, forKey: waiting.key) else { continue }
            try source.setValue(.object(object), forKey: waiting.field)
        }
    }
}
