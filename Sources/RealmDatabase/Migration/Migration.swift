import Foundation

/// What a migration block receives (RealmSwift's `Migration`): the old and new schemas, old
/// objects (read-only, in the old schema) paired with new ones (writable, in the new schema), and
/// operations to create, delete and rename.
public final class Migration {
    /// The schema stored in the file before the migration.
    public let oldSchema: Schema
    /// The schema the realm is being migrated to.
    public let newSchema: Schema
    /// The realm in the new schema, inside the migration's write transaction.
    let realm: Realm
    /// Per class, the old view: reads the columns of the old schema (renames followed).
    var oldInfos: [String: ClassInfo]
    /// Classes whose data `deleteData` removed and whose table must go with them.
    var droppedClasses = Set<String>()
    /// Properties renamed: class → old name → new name.
    var renamed: [String: [String: String]] = [:]
    private var deletedKeys: [String: Set<Int64>] = [:]
    /// The enumerations under way (nested when a block enumerates another class).
    private var walks = [MigrationWalk]()
    /// How many objects `enumerateObjects` visited, per class (for the migration report).
    var enumeratedCounts: [String: Int] = [:]

    /// Per old class, the largest object key before the block ran. Keys are never reused
    /// (AUTOINCREMENT), so the objects at or below it are the old file's objects: Realm enumerates
    /// those (its old realm is the file before the migration), not the ones the block creates.
    /// No entry: the class had no objects.
    private var oldKeyBounds: [String: Int64] = [:]
    /// Per class, the properties under their current names in the block → their name in the old
    /// schema. A rename to a name the new schema lacks is an intermediate step of a chain.
    private var currentNames: [String: [String: String]] = [:]

    init(oldSchema: Schema, newSchema: Schema, realm: Realm) throws {
        self.oldSchema = oldSchema
        self.newSchema = newSchema
        self.realm = realm
        var infos = [String: ClassInfo]()
        for objectSchema in oldSchema.objectSchemas {
            let info = ClassInfo(objectSchema, readOnlyView: true)
            infos[objectSchema.className] = info
            // One indexed look-up per class: no per-object work.
            oldKeyBounds[objectSchema.className] = try realm.connection.scalarInt(
                "SELECT max(\"_key\") FROM \(info.quotedTable)")
        }
        oldInfos = infos
    }

    /// Calls `block` for every object of a class: with the old and the new object when the class
    /// is in both schemas, with nil for `newObject` when the class was removed, and with nil for
    /// `oldObject` when it is new (then for the objects created so far).
    public func enumerateObjects(
        ofType className: String, _ block: (_ oldObject: DynamicObject?, _ newObject: DynamicObject?) throws -> Void
    ) throws {
        let oldInfo = oldInfos[className]
        let newInfo = newSchema[className] != nil ? try realm.classInfo(className) : nil
        guard let info = oldInfo ?? newInfo else {
            throw RealmError(
                .migration,
                "Cannot enumerate objects of type '\(className)': it is in neither the old nor the new schema.")
        }
        if droppedClasses.contains(className) { return }
        // Walk the keys in batches, up to the old file's largest key (a class new in this version:
        // the largest key now, as RLMMigration enumerates what the block created for a new table).
        // Memory stays flat however many objects there are.
        let table = info.quotedTable
        let bound =
            oldInfo != nil
            ? oldKeyBounds[className]
            : try realm.connection.scalarInt("SELECT max(\"_key\") FROM \(table)")
        guard let maxKey = bound else { return }
        let total = Int(
            try realm.connection.scalarInt("SELECT count(*) FROM \(table) WHERE \"_key\" <= ?", [.integer(maxKey)]) ?? 0
        )
        let walk = MigrationWalk(realm: realm, table: table, oldInfo: oldInfo, maxKey: maxKey)
        walks.append(walk)
        defer {
            walk.close()
            walks.removeAll { $0 === walk }
        }
        try visit(walk, className, oldInfo: oldInfo, newInfo: newInfo, total: total, block)
    }

    /// Calls the block for each key of the walk. The old and new objects of a row are reused for
    /// the next row when the block did not keep them (as `Results.forEach` does): two allocations
    /// per enumeration instead of two per object. Progress is reported every 1,000 objects.
    private func visit(
        _ walk: MigrationWalk, _ className: String, oldInfo: ClassInfo?, newInfo: ClassInfo?, total: Int,
        _ block: (DynamicObject?, DynamicObject?) throws -> Void
    ) throws {
        let progress = realm.configuration.migrationProgress
        var (done, visited) = (0, 0)
        var old: DynamicObject?
        var new: DynamicObject?
        var oldCursor: RowCursor?
        while let key = try walk.next() {
            done += 1
            if done % 1000 == 0 { progress?(MigrationProgress(className: className, done: done, total: total)) }
            if let deleted = deletedKeys[className], deleted.contains(key) { continue }
            if let oldInfo {
                // A new cursor after a suspension: the objects of the old one no longer read in place.
                if let object = Self.unshared(&old), walk.cursor === oldCursor {
                    object.moveToCursorRow(key: key)
                    old = object
                } else if let cursor = walk.cursor {
                    old = DynamicObject(realm: realm, info: oldInfo, key: key, cursor: cursor)
                } else {
                    old = DynamicObject(realm: realm, info: oldInfo, key: key)
                }
                oldCursor = walk.cursor
            }
            if let newInfo {
                if let object = Self.unshared(&new) {
                    object.moveToRow(key: key)
                    new = object
                } else {
                    new = DynamicObject(realm: realm, info: newInfo, key: key)
                }
            }
            try block(old, new)
            visited += 1
        }
        // Each enumeration goes through every object of the class: the most any went through
        // counts the objects once when several steps enumerate the class.
        if visited > 0 { enumeratedCounts[className] = max(enumeratedCounts[className] ?? 0, visited) }
        if done % 1000 != 0 { progress?(MigrationProgress(className: className, done: done, total: total)) }
    }

    /// The object in `slot` when nobody else holds it (the block did not keep it); the slot is
    /// emptied either way.
    private static func unshared(_ slot: inout DynamicObject?) -> DynamicObject? {
        guard var object = slot else { return nil }
        slot = nil
        return isKnownUniquelyReferenced(&object) ? object : nil
    }

    /// Lets a schema change run while enumerations are under way (see `MigrationWalk`).
    private func suspendWalks() {
        for walk in walks { walk.close() }
    }

    /// Creates an object in the new schema (primary keys are checked when the block has run).
    @discardableResult
    public func create(_ className: String, value: RealmValue = [:]) throws -> DynamicObject {
        guard newSchema[className] != nil else {
            throw RealmError(.migration, "Cannot create an object of type '\(className)': it is not in the new schema.")
        }
        return try realm.create(className, value: value)
    }

    /// Deletes an object of the new schema.
    public func delete(_ object: DynamicObject) throws {
        guard let (_, info, key) = object.managed else {
            throw RealmError(.migration, "Can only delete a managed object in a migration.")
        }
        let target = try realm.classInfo(info.className)
        try realm.rows.deleteObject(target, key: key)
        deletedKeys[info.className, default: []].insert(key)
    }

    /// Deletes every object of a class (and the class itself when the new schema lacks it).
    /// Returns false when the file has no such class: as in Realm, a class of the new schema has
    /// its table already (made before the block ran), so it counts, objects created in the block too.
    @discardableResult
    public func deleteData(forType className: String) throws -> Bool {
        guard oldSchema[className] != nil || newSchema[className] != nil, !droppedClasses.contains(className) else {
            return false
        }
        if newSchema[className] != nil {
            let info = try realm.classInfo(className)
            var keys = [Int64]()
            try realm.connection.forEachRow("SELECT \"_key\" FROM \(info.quotedTable)", cache: false) {
                keys.append($0.int64(at: 0))
            }
            for key in keys { try realm.rows.deleteObject(info, key: key) }
            deletedKeys[className, default: []].formUnion(keys)
        } else if let objectSchema = oldSchema[className] {
            suspendWalks()
            let info = ClassInfo(objectSchema)
            for p in objectSchema.persistedProperties where p.isCollection {
                try realm.connection.execute("DROP TABLE IF EXISTS \(info.quotedStorage(p))")
            }
            try realm.connection.execute("DROP TABLE IF EXISTS \(info.quotedTable)")
            droppedClasses.insert(className)
        }
        return true
    }

    /// Renames a property, keeping its values: the old name is a property of the class as the block
    /// has left it (the old schema, after earlier renames) and not of the new schema. A rename to a
    /// name the new schema lacks is an intermediate step (realm-core renames the column and lets a
    /// later rename finish the chain): a chain that never reaches the new schema fails the migration
    /// when the block has run (`checkRenameChainsFinished`).
    public func renameProperty(onType className: String, from oldName: String, to newName: String) throws {
        let (oldClass, oldInfo, newClass) = try renameClasses(className)
        if newClass[oldName] != nil {
            throw RealmError(
                .migration,
                "Cannot rename property '\(className).\(oldName)' to '\(newName)' "
                    + "because the source property still exists."
            )
        }
        var names =
            currentNames[className]
            ?? Dictionary(uniqueKeysWithValues: oldClass.persistedProperties.map { ($0.name, $0.name) })
        guard let original = names[oldName], let oldProperty = oldClass[original], oldInfo.storage[original] != nil
        else {
            throw RealmError(.migration, "Cannot rename property '\(className).\(oldName)' because it does not exist.")
        }
        names[oldName] = nil
        names[newName] = original
        guard let newProperty = newClass[newName] else {
            currentNames[className] = names
            return
        }
        try checkRename(className, oldName, newName, from: oldProperty, to: newProperty)
        suspendWalks()
        try moveStorage(className, of: original, oldInfo: oldInfo, to: newProperty)
        currentNames[className] = names
        renamed[className, default: [:]][original] = newName
        realm.noteLocalChange()
    }

    /// Realm's error for a rename chain left on a name the new schema lacks (realm-core's
    /// "property does not exist in new schema" rename test).
    func checkRenameChainsFinished() throws {
        for (className, names) in currentNames.sorted(by: { $0.key < $1.key }) {
            for (name, original) in names.sorted(by: { $0.key < $1.key }) where name != original {
                if newSchema[className]?[name] == nil {
                    throw RealmError(.migration, "Renamed property '\(className).\(name)' does not exist.")
                }
            }
        }
    }

    /// The class in the old schema (with its old view) and in the new one, or Realm's error.
    private func renameClasses(_ className: String) throws -> (ObjectSchema, ClassInfo, ObjectSchema) {
        guard let oldClass = oldSchema[className], let oldInfo = oldInfos[className] else {
            throw RealmError(.migration, "Cannot rename properties for type '\(className)' because it does not exist.")
        }
        guard let newClass = newSchema[className] else {
            throw RealmError(
                .migration,
                "Cannot rename properties for type '\(className)' because it has been removed from the Realm.")
        }
        return (oldClass, oldInfo, newClass)
    }

    /// Realm's checks: the same type and link target, and not from optional to required.
    private func checkRename(
        _ className: String, _ oldName: String, _ newName: String, from oldProperty: Property, to newProperty: Property
    ) throws {
        if oldProperty.type != newProperty.type || oldProperty.collection != newProperty.collection
            || oldProperty.objectClassName != newProperty.objectClassName
        {
            throw RealmError(
                .migration,
                "Cannot rename property '\(className).\(oldName)' to '\(newName)' because it would change "
                    + "from type '\(oldProperty.realmTypeName)' to '\(newProperty.realmTypeName)'."
            )
        }
        if oldProperty.isOptional && !newProperty.isOptional {
            throw RealmError(
                .migration,
                "Cannot rename property '\(className).\(oldName)' to '\(newName)' "
                    + "because it would change from optional to required."
            )
        }
    }

    /// Moves the storage of the old property `original` to that of `newProperty`, replacing the
    /// (default-filled) storage added for it.
    private func moveStorage(_ className: String, of original: String, oldInfo: ClassInfo, to newProperty: Property)
        throws
    {
        let newInfo = try realm.classInfo(className)
        let newName = newProperty.name
        let from = oldInfo.storage[original] ?? original
        let to = newInfo.storage[newName] ?? newName
        let q = StorageLayout.quote
        if newProperty.isCollection {
            try realm.connection.execute("DROP TABLE IF EXISTS \(q(to))")
            try renameCollectionTable(realm.connection, from: from, to: to, className: className, property: newProperty)
        } else {
            try realm.connection.execute("DROP INDEX IF EXISTS \(q(StorageLayout.indexName(className, newName)))")
            try realm.connection.execute("DROP INDEX IF EXISTS \(q(StorageLayout.indexName(className, original)))")
            try realm.connection.execute("ALTER TABLE \(newInfo.quotedTable) DROP COLUMN \(q(to))")
            if newProperty.type == .mixed {
                try realm.connection.execute(
                    "ALTER TABLE \(newInfo.quotedTable) DROP COLUMN \(q(StorageLayout.typeTagColumn(to)))")
                let (fromTag, toTag) = (q(StorageLayout.typeTagColumn(from)), q(StorageLayout.typeTagColumn(to)))
                try realm.connection.execute(
                    "ALTER TABLE \(newInfo.quotedTable) RENAME COLUMN \(fromTag) TO \(toTag)"
                )
            }
            try realm.connection.execute("ALTER TABLE \(newInfo.quotedTable) RENAME COLUMN \(q(from)) TO \(q(to))")
        }
        // The old view now reads the old values under their new storage name.
        oldInfo.storage[original] = to
        oldInfo.storageChanged()
    }
}
