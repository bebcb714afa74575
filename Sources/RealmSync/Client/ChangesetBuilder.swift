import Foundation
import RealmDatabase

/// The instructions of one local commit, read from its `ChangeSet` and the rows as they are at
/// commit time (docs/SYNC.md "Changesets"): set and map edits from what the row engine captured
/// (`SetAndMapEdits`), list edits from a diff against the list mirror (`_sync_list`), which it moves
/// along, so the next commit is diffed against this one.
struct ChangesetBuilder {
    let realm: Realm
    let store: ClientStore
    let syncedClasses: Set<String>

    /// Appends the commit's instructions to `body`, in order: per class (by name) erases, creates, updates.
    func record(_ changes: ChangeSet, ids: inout ElementIDSource, into body: inout ChangesetBodyWriter) throws {
        let created = changes.classes.mapValues(\.insertions)
        let setsAndMaps = SetAndMapEdits(realm: realm, store: store, changes: changes)
        var collectionsToDiff: [RootCollection] = []
        // Links the server holds to objects created now resolve (there as here, without an
        // instruction), once every collection is diffed: a list's mirror moves with the commit.
        var awaited: [DynamicObject] = []
        for className in changes.classes.keys.sorted() {
            guard let classChanges = changes.classes[className], let schema = realm.schema[className] else { continue }
            if syncedClasses.contains(className) {
                body.append(contentsOf: try erasures(classChanges, of: schema))
                try creations(classChanges.insertions, of: schema, ids: &ids, into: &body, awaited: &awaited)
                for key in classChanges.modifications.keys.sorted() {
                    body.append(
                        contentsOf: try updates(
                            schema, key: key, properties: classChanges.modifications[key] ?? [],
                            edits: classChanges.collectionEdits[key] ?? [:], created: created, setsAndMaps: setsAndMaps,
                            ids: &ids))
                }
            } else if schema.isEmbedded {
                for key in classChanges.modifications.keys.sorted() {
                    let properties = classChanges.modifications[key] ?? []
                    body.append(
                        contentsOf: try embeddedUpdates(
                            className, key: key, properties: properties, collections: &collectionsToDiff))
                }
            }
        }
        // Writes inside embedded elements of a collection: a list's diff finds the changed elements
        // (`listSet`, or writes by path through the element), once per list; a map's entry holding
        // the element is put whole, unless the map's own edits already put or removed that key.
        var seen = Set<RootCollection>()
        var diffedLists = Set<RootCollection>()
        for collection in collectionsToDiff where seen.insert(collection).inserted {
            guard let object = try realm.object(ofType: collection.className, forKey: collection.key),
                let property = object.objectSchema?[collection.field]
            else { continue }
            let ref = try SyncValueConversion.ref(of: object)
            if property.collection == .map {
                body.append(contentsOf: try mapEntryPuts(collection, of: object, ref: ref, changes: changes))
                continue
            }
            guard diffedLists.insert(collection.withoutElement).inserted else { continue }
            body.append(
                contentsOf: try CollectionDiff(store: store, created: created).instructions(
                    for: property, of: object, key: collection.key, ref: ref, ids: &ids))
        }
        let links = UnresolvedLinks(realm: realm, store: store, syncedClasses: syncedClasses)
        for object in awaited { try links.objectCreated(object) }
    }

    /// An `erase` per deleted object, named by the primary key its deletion kept (its row is gone).
    private func erasures(_ changes: ChangeSet.ClassChanges, of schema: ObjectSchema) throws -> [Instruction] {
        var instructions: [Instruction] = []
        for key in changes.deletions {
            try forgetCollections(of: schema, key: key)
            try store.forgetUnresolved(schema.className, key)
            guard let stored = changes.deletedPrimaryKeys[key] else {
                throw SyncError(.otherError, "The deleted '\(schema.className)' #\(key) kept no primary key")
            }
            let primaryKey = try realm.deletedPrimaryKey(stored, ofType: schema.className)
            instructions.append(
                .erase(
                    ObjectRef(schema.className, try SyncValueConversion.primaryKey(primaryKey, of: schema.className))))
        }
        return instructions
    }

    func forgetCollections(of schema: ObjectSchema, key: Int64) throws {
        for property in schema.persistedProperties where property.collection == .list {
            try store.forgetList(table: Realm.collectionTableName(schema.className, property), owner: key)
        }
    }

    /// A `create` per inserted object with its non-collection fields, each followed by the
    /// instructions that fill its collections. The rows are read a run of keys at a time. The
    /// objects links wait for go to `awaited`.
    private func creations(
        _ keys: KeySet, of schema: ObjectSchema, ids: inout ElementIDSource, into body: inout ChangesetBodyWriter,
        awaited: inout [DynamicObject]
    ) throws {
        guard !keys.isEmpty else { return }
        let layout = try CreationLayout(realm: realm, schema: schema)
        // Most commits find no link waiting for an object: one look for the commit, not one per object.
        let linksWait = try store.hasUnresolved()
        for range in keys.ranges {
            try realm.forEachObject(ofType: schema.className, keys: range) { key, values in
                let ref = ObjectRef(
                    schema.className,
                    try SyncValueConversion.primaryKey(values[layout.primaryKey], of: schema.className))
                body.beginCreate(ref, fieldCount: layout.sortedFields.count)
                for field in layout.sortedFields {
                    body.appendField(field.name, try SyncValueConversion.syncValue(values[field.index]))
                }
                guard !layout.collections.isEmpty || linksWait,
                    let object = try realm.object(ofType: schema.className, forKey: key)
                else { return }
                for property in layout.collections {
                    body.append(
                        contentsOf: property.collection == .list
                            ? try CollectionDiff(store: store).instructions(
                                for: property, of: object, key: key, ref: ref, ids: &ids)
                            : try SetAndMapEdits.content(of: property, of: object, ref: ref))
                }
                if linksWait { awaited.append(object) }
            }
        }
    }

    private func updates(
        _ schema: ObjectSchema, key: Int64, properties: Set<String>, edits: [String: CollectionEdits],
        created: [String: KeySet], setsAndMaps: SetAndMapEdits, ids: inout ElementIDSource
    ) throws -> [Instruction] {
        guard let object = try realm.object(ofType: schema.className, forKey: key) else { return [] }
        let ref = try SyncValueConversion.ref(of: object)
        var instructions: [Instruction] = []
        for name in properties.sorted() {
            guard let property = schema[name], property.isPersisted else { continue }
            if property.collection == .list {
                instructions += try CollectionDiff(store: store, created: created).instructions(
                    for: property, of: object, key: key, ref: ref, ids: &ids)
            } else if property.isCollection {
                guard let captured = edits[name] else { continue }
                instructions += try setsAndMaps.instructions(
                    captured, of: property, in: schema.className, key: key, ref: ref)
            } else {
                // The field's value now replaces a link the server held to a missing object.
                if UnresolvedLinks.holdsLinks(property) { try store.forgetUnresolved(schema.className, key, name) }
                instructions.append(
                    .set(ref, path: [name], value: try SyncValueConversion.syncValue(object.value(forKey: name))))
            }
        }
        return instructions
    }

    // MARK: Embedded objects

    /// A write inside an embedded object: a `set` with the path from its synced root when every
    /// link on the way is to-one; a diff of the root's collection when the object (or an ancestor)
    /// is an element of it.
    private func embeddedUpdates(
        _ className: String, key: Int64, properties: Set<String>, collections: inout [RootCollection]
    ) throws -> [Instruction] {
        guard let location = try locate(className, key: key) else { return [] }
        guard let root = try realm.object(ofType: location.className, forKey: location.key) else { return [] }
        if location.inCollection && location.path.count == 1 {
            collections.append(
                RootCollection(
                    className: location.className, key: location.key, field: location.path[0],
                    element: location.element ?? key))
            return []
        }
        let ref = try SyncValueConversion.ref(of: root)
        if location.inCollection {
            // A collection inside an embedded object travels whole.
            return [.set(ref, path: location.path, value: try value(at: location.path, in: root))]
        }
        guard let embedded = try realm.object(ofType: className, forKey: key) else { return [] }
        return try properties.sorted().map { name in
            .set(
                ref, path: location.path + [name],
                value: try SyncValueConversion.syncValue(try embedded.value(forKey: name)))
        }
    }

    /// The entries of a map holding an embedded object written in place, each put whole (its keys
    /// the map's own edits did not touch: those are sent from the edits).
    private func mapEntryPuts(
        _ collection: RootCollection, of object: DynamicObject, ref: ObjectRef, changes: ChangeSet
    )
        throws -> [Instruction]
    {
        let edited = changes.classes[collection.className]?.collectionEdits[collection.key]?[collection.field]
        let keys = try realm.mapKeys(
            ofType: collection.className, key: collection.key, field: collection.field, holding: collection.element)
        return try keys.filter { edited?.mapKeys.index(forKey: $0) == nil }.map { mapKey in
            let value = try object.dynamicMap(collection.field).value(forKey: mapKey) ?? .null
            return .mapPut(ref, field: collection.field, key: mapKey, value: try SyncValueConversion.syncValue(value))
        }
    }

    /// The value at a path of to-one embedded links below `root`.
    private func value(at path: [String], in root: DynamicObject) throws -> SyncValue {
        var current = root
        for name in path.dropLast() {
            guard case .object(let next) = try current.value(forKey: name) else { return .null }
            current = next
        }
        guard let last = path.last else { return .null }
        var value = try SyncValueConversion.syncValue(try current.value(forKey: last))
        if current.objectSchema?[last]?.collection == .set, case .list(let items) = value {
            value = .list(items.sorted(by: SyncValue.order))
        }
        return value
    }

    /// Where an embedded object sits: its synced root and the path from it (ending at the first
    /// collection on the way, when there is one, with the element there). Nil when it has no synced
    /// root.
    private func locate(_ className: String, key: Int64) throws -> EmbeddedLocation? {
        for parent in realm.schema.objectSchemas {
            for property in parent.persistedProperties
            where property.type == .object && property.objectClassName == className {
                guard let hit = try parentKey(of: key, in: parent.className, property) else { continue }
                if parent.isEmbedded {
                    guard var location = try locate(parent.className, key: hit) else { return nil }
                    if !location.inCollection {
                        location.path.append(property.name)
                        location.inCollection = property.isCollection
                        if property.isCollection { location.element = key }
                    }
                    return location
                }
                guard syncedClasses.contains(parent.className) else { return nil }
                return EmbeddedLocation(
                    className: parent.className, key: hit, path: [property.name], inCollection: property.isCollection,
                    element: property.isCollection ? key : nil)
            }
        }
        return nil
    }

    /// The key of the object whose `property` holds the embedded object `key`, if that one does.
    private func parentKey(of key: Int64, in className: String, _ property: Property) throws -> Int64? {
        let sql: String
        if property.isCollection {
            sql =
                "SELECT owner FROM \(Realm.quoteSQLName(Realm.collectionTableName(className, property))) WHERE value = ?"
        } else {
            sql =
                "SELECT _key FROM \(Realm.quoteSQLName(Realm.classTableName(className))) WHERE \(Realm.quoteSQLName(property.name)) = ?"
        }
        guard case .integer(let parent)? = try realm.querySQL(sql, [.integer(key)]).first?.first else { return nil }
        return parent
    }
}

/// Where a created object's values are in a row from `Realm.forEachObject`: its primary key, its
/// non-collection fields in name order (a `create`'s order), and its collections.
private struct CreationLayout {
    let primaryKey: Int
    let sortedFields: [(name: String, index: Int)]
    let collections: [Property]

    init(realm: Realm, schema: ObjectSchema) throws {
        let rowProperties = try realm.rowProperties(ofType: schema.className)
        guard let primaryKeyName = schema.primaryKey,
            let primaryKey = rowProperties.firstIndex(where: { $0.name == primaryKeyName })
        else { throw SyncError(.badChangeset, "A '\(schema.className)' has no primary key and cannot sync") }
        self.primaryKey = primaryKey
        sortedFields = rowProperties.enumerated().map { (name: $0.element.name, index: $0.offset) }
            .sorted { $0.name < $1.name }
        collections = schema.persistedProperties.filter(\.isCollection)
    }
}

/// A collection of a synced object whose embedded element `element` changed in a commit.
private struct RootCollection: Hashable {
    let className: String
    let key: Int64
    let field: String
    let element: Int64

    /// A list is diffed once whichever of its elements changed.
    var withoutElement: RootCollection {
        RootCollection(className: className, key: key, field: field, element: 0)
    }
}

private struct EmbeddedLocation {
    let className: String
    let key: Int64
    var path: [String]
    var inCollection: Bool
    /// The embedded object that is the element of the first collection on the way, if any.
    var element: Int64?
}
