import Foundation
import RealmDatabase

/// Links to objects this replica does not have. The server keeps a link by reference whether or
/// not its target exists (erased, or not arrived yet); the realm cannot hold it. So the replica
/// keeps the reference as Realm keeps an unresolved link: a to-one field (or a mixed one) reads
/// null, a list or a set leaves the element out, a map reads null at the key. The dump shows the reference as the
/// server does, and the link comes back when the object is created again. Local writes of the
/// field (the map's key) replace it: their instruction says what it holds now. Where they wait:
/// `_sync_unresolved_link` (`LinkSite`), and hidden elements of the list mirror for lists.
struct UnresolvedLinks {
    let realm: Realm
    let store: ClientStore
    let syncedClasses: Set<String>

    /// Before a remote erase deletes `target`: the synced objects linking to it keep the reference.
    /// (A local delete is Realm's nullify instead: the links go, and the commit records it.)
    func targetWillBeErased(_ target: DynamicObject, _ ref: ObjectRef) throws {
        guard let targetKey = target.objectKey else { return }
        for schema in realm.schema.objectSchemas where syncedClasses.contains(schema.className) {
            for property in schema.persistedProperties where Self.mayLink(property, to: ref.className) {
                try keep(ref, target, key: targetKey, linkedFrom: schema.className, property)
            }
        }
    }

    /// Whether `property` can hold a link to an object of `className` that this replica keeps
    /// unresolved: links of that class, alone or in a collection, and mixed values, alone or in a
    /// collection.
    static func mayLink(_ property: Property, to className: String) -> Bool {
        (property.type == .object && property.objectClassName == className) || property.type == .mixed
    }

    private func keep(
        _ ref: ObjectRef, _ target: DynamicObject, key targetKey: Int64, linkedFrom className: String,
        _ property: Property
    ) throws {
        let field = property.name
        guard property.isCollection else {
            for key in try realm.keysOfObjects(ofType: className, whose: field, holding: target) {
                try store.rememberUnresolved(LinkSite(className: className, key: key, field: field), ref)
            }
            return
        }
        let table = Realm.collectionTableName(className, property)
        // The row engine's own match: a link column's key, or the object tag of a mixed value.
        for entry in try realm.collectionEntries(ofType: className, whose: field, holding: target) {
            switch property.collection {
            case .list: try store.hideElement(of: table, owner: entry.owner, row: entry.row)
            case .set: try store.rememberUnresolved(.setValue(className, entry.owner, field, ref), ref)
            case .map:
                guard let key = entry.key else { continue }
                try store.rememberUnresolved(.mapKey(className, entry.owner, field, key), ref)
            case .none: break
            }
        }
    }

    /// Whether a top-level field can hold a link: a to-one link or a mixed value.
    static func holdsLinks(_ property: Property) -> Bool {
        !property.isCollection && (property.type == .object || property.type == .mixed)
    }

    /// After a remote write of a top-level field: remembers a link whose target is missing here,
    /// forgets what the field held before.
    func fieldWritten(_ object: DynamicObject, _ field: String, _ value: SyncValue) throws {
        guard let key = object.objectKey, let property = object.objectSchema?[field], Self.holdsLinks(property)
        else { return }
        let site = LinkSite(className: object.className, key: key, field: field)
        if case .link(let target) = value, try SyncValueConversion.object(target, in: realm) == nil {
            try store.rememberUnresolved(site, target)
        } else {
            try store.forgetUnresolved(site)
        }
    }

    /// After a remote write of a set's value or a map's key (`site`): a link to an object missing
    /// here waits there; anything else replaces what waited. Returns whether the link waits.
    @discardableResult
    func entryWritten(_ site: LinkSite, _ value: SyncValue?) throws -> Bool {
        if case .link(let target)? = value, try SyncValueConversion.object(target, in: realm) == nil {
            try store.rememberUnresolved(site, target)
            return true
        }
        try store.forgetUnresolved(site)
        return false
    }

    /// After `object` was created (here or by a download): the links waiting for it point at it again.
    func objectCreated(_ object: DynamicObject) throws {
        try objectCreated(object, ref: try SyncValueConversion.ref(of: object))
    }

    /// `objectCreated(_:)` when the caller knows the object's reference. A set or map entry
    /// restored during a local commit is not sent back (the server has the link already): the
    /// commit's instructions were read from its changes before it.
    func objectCreated(_ object: DynamicObject, ref: ObjectRef) throws {
        for site in try store.takeUnresolved(to: ref) {
            guard let source = try realm.object(ofType: site.className, forKey: site.key),
                let property = source.objectSchema?[site.field]
            else { continue }
            switch property.collection {
            case .none, .list:
                try source.setValue(.object(object), forKey: site.field)
            case .set:
                try source.dynamicMutableSet(site.field).insert(.object(object))
            case .map:
                let key = String(decoding: site.entry, as: UTF8.self)
                try source.dynamicMap(site.field).setValue(.object(object), forKey: key)
            }
        }
        for waiting in try store.listsWaiting(for: ref) {
            guard let (owner, property) = try listOwner(waiting.table, waiting.owner) else { continue }
            var list = try SyncedList(
                realm: realm, store: store, list: try owner.dynamicList(property.name), table: waiting.table,
                owner: waiting.owner)
            try list.resolve(ref, as: object)
        }
    }

    /// The object and list property of a list table's owner.
    private func listOwner(_ table: String, _ key: Int64) throws -> (DynamicObject, Property)? {
        for schema in realm.schema.objectSchemas where syncedClasses.contains(schema.className) {
            for property in schema.persistedProperties
            where property.collection == .list && Realm.collectionTableName(schema.className, property) == table {
                guard let owner = try realm.object(ofType: schema.className, forKey: key) else { return nil }
                return (owner, property)
            }
        }
        return nil
    }
}

extension UnresolvedLinks {
    /// An object's fields (`SyncValueConversion.fields(of:)`) as the server has them: with the links
    /// that wait for their objects (a list's hidden elements in their places).
    func serverFields(_ fields: [SyncField], of object: DynamicObject, key: Int64) throws -> [SyncField] {
        guard let schema = object.objectSchema else { return fields }
        var byName = Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        for (field, entry, ref) in try store.unresolved(object.className, key) {
            switch (schema[field]?.collection, byName[field]) {
            case (.none?, _):
                byName[field] = .link(ref)
            case (.set?, .list(let values)?):
                byName[field] = .list((values + [.link(ref)]).sorted(by: SyncValue.order))
            case (.map?, .map(var entries)?):
                let mapKey = String(decoding: entry, as: UTF8.self)
                entries.removeAll { $0.name == mapKey }
                entries.append(SyncField(mapKey, .link(ref)))
                byName[field] = .map(entries.sorted { $0.name < $1.name })
            default:
                continue
            }
        }
        for property in schema.persistedProperties
        where property.collection == .list && (property.type == .object || property.type == .mixed) {
            let mirror = try store.listMirror(table: Realm.collectionTableName(object.className, property), owner: key)
            guard mirror.contains(where: \.isHidden), case .list(let visible)? = byName[property.name] else { continue }
            var next = visible.makeIterator()
            byName[property.name] = .list(mirror.compactMap { $0.isHidden ? $0.value : next.next() })
        }
        return fields.map { SyncField($0.name, byName[$0.name] ?? $0.value) }
    }
}
