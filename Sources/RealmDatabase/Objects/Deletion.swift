import Foundation

extension RealmError {
    /// Realm's refusal to delete (or remove from results) an object it does not manage.
    public static let deleteFromAnotherRealm = RealmError(
        .invalidValue, "Can only delete an object from the Realm it belongs to.")
}

extension Realm {
    /// Deletes an object: its embedded objects go with it, links to it become nil, and it leaves
    /// every list and set holding it.
    public func delete(_ object: DynamicObject) throws {
        try enterEntry("delete")
        defer { leaveEntry() }
        try checkWritable()
        guard let (realm, info, key) = object.managed else { throw RealmError.deleteFromAnotherRealm }
        guard realm === self || (realm.isSameFile(as: self) && !realm.isFrozen) else {
            throw RealmError.deleteFromAnotherRealm
        }
        guard try rows.fetchRow(info, key: key) != nil else { throw RealmError.invalidated }
        try rows.deleteObject(try classInfo(info.className), key: key)
    }

    /// Deletes every object of the results.
    public func delete(_ results: Results) throws {
        try enterEntry("delete")
        defer { leaveEntry() }
        try checkWritable()
        // As for objects: results of another file (or frozen ones) name keys of *that* file;
        // deleting them here deleted unrelated objects of this realm (found by ReliabilityTests).
        guard results.realm === self || (results.realm.isSameFile(as: self) && !results.realm.isFrozen) else {
            throw RealmError(.invalidValue, "Can only delete objects from the Realm they belong to.")
        }
        let keys = try results.keys()
        let info = try classInfo(results.className)
        for key in keys { try rows.deleteObject(info, key: key) }
    }

    /// Deletes the objects a list holds (not just the list's entries).
    public func delete(_ list: List) throws {
        try checkWritable()
        let objects = try list.values().compactMap(\.objectValue)
        try delete(objects)
    }

    /// Deletes the objects a set holds (RealmSwift's `delete` of any collection of objects).
    public func delete(_ set: MutableSet) throws {
        try checkWritable()
        try delete(try set.values().compactMap(\.objectValue))
    }

    /// Deletes the objects a map holds (its values; the keys go with them, as links to deleted objects).
    public func delete(_ map: Map) throws {
        try checkWritable()
        try delete(try map.entries().values.compactMap(\.objectValue))
    }

    public func delete<S: Sequence>(_ objects: S) throws where S.Element == DynamicObject {
        for object in objects where !object.isInvalidated { try delete(object) }
    }

    /// Deletes every object of every class.
    public func deleteAll() throws {
        try enterEntry("deleteAll")
        defer { leaveEntry() }
        try checkWritable()
        for objectSchema in schema.objectSchemas {
            try rows.deleteAllRows(try classInfo(objectSchema.className))
        }
        noteLocalChange()
    }

    /// The objects of `fromClass` whose `property` links to the object `key`.
    func linkingObjects(toKey key: Int64, fromClass: String, property name: String) throws -> Results {
        let origin = try classInfo(fromClass)
        let p = try origin.property(name)
        let sql =
            p.isCollection
            ? "t0.\"_key\" IN (SELECT owner FROM \(origin.quotedStorage(p)) WHERE value = ?)"
            : "t0.\(origin.quotedStorage(p)) = ?"
        return try objects(fromClass).adding(sql: sql, bindings: [.integer(key)])
    }
}
