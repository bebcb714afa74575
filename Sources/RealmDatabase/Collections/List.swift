import Foundation

/// Shared by the live collections of an object's property: the owner, and how writes are made.
public class ManagedCollection {
    public let realm: Realm
    /// The object owning the collection.
    public let owner: DynamicObject
    public let property: Property

    init(realm: Realm, owner: DynamicObject, property: Property) {
        self.realm = realm
        self.owner = owner
        self.property = property
    }

    var storage: RealmCollectionStorage {
        get throws {
            _ = try owner.loadRow()  // throws when the owner was deleted
            return try RealmCollectionStorage(realm: realm, owner: owner, property: property)
        }
    }

    public var isFrozen: Bool { realm.isFrozen }
    public var isInvalidated: Bool { owner.isInvalidated }
    /// Whether the owning object has been deleted, or the error that kept it from being checked.
    public func checkInvalidated() throws -> Bool { try owner.checkInvalidated() }

    /// Runs a mutation: in the open write, or in an implicit one for the implicit-write verbs.
    func mutate(_ mode: WriteMode, _ body: (RealmCollectionStorage) throws -> Void) throws {
        if realm.isFrozen { throw RealmError.frozenCollectionWrite }
        try withoutActuallyEscaping(body) { body in
            let run = {
                try self.realm.checkWritable()
                try body(try self.storage)
            }
            if mode == .implicit { try realm.writeImplicitly(run) } else { try run() }
        }
    }

    /// The number of elements. On error (owner deleted, connection closed) reports it through
    /// `RealmDiagnostics` and answers 0; `fetchCount()` throws.
    public var count: Int {
        reportingErrors("counting '\(owner.className).\(property.name)'", neutral: 0) { try fetchCount() }
    }

    /// The number of elements, or the error reading it.
    public func fetchCount() throws -> Int { try storage.count() }
    public var isEmpty: Bool { count == 0 }

    /// The elements, in order (links as `.object`).
    public func values() throws -> [RealmValue] { try storage.allValues() }

    /// The owner at the frozen version of a frozen realm (or the live version when thawing).
    func ownerIn(_ other: Realm) throws -> DynamicObject? {
        guard let key = owner.objectKey else { return nil }
        let o = DynamicObject(realm: other, info: try other.classInfo(owner.className), key: key)
        return try o.checkInvalidated() ? nil : o
    }

    /// The values of a collection of values that match a query on `self` (`"self > 5"`), in the
    /// collection's order: realm-core queries a collection of primitives through its `self`
    /// (RealmSwift's `PrimitiveListTests`/`testFilter`, `list.filter("self > 5")`). The query
    /// runs in SQL over the side table, with `self` as the element column.
    public func values(where query: String, arguments: [RealmValue] = []) throws -> [RealmValue] {
        guard property.type != .object else { throw RealmError(.query, "Query a collection of objects with filter.") }
        let element = Property(name: "self", type: property.type, isOptional: property.isOptional)
        let elementSchema = ObjectSchema(className: "\(owner.className).\(property.name)", properties: [element])
        let compiled = try QueryLanguage.compile(
            query, arguments: arguments, objectSchema: elementSchema, schema: realm.schema
        ) { _ in throw RealmError(.query, "A collection of values holds no objects to compare with.") }
        guard compiled.descriptors.isEmpty else {
            throw RealmError(.query, "SORT, DISTINCT and LIMIT apply to collections of objects.")
        }
        let s = try storage
        let tag = s.isMixed ? ", value__t AS \"self__t\"" : ""
        let sql =
            "SELECT \(s.valueColumns) FROM (SELECT *, value AS \"self\"\(tag) FROM \(s.table) WHERE owner = ?) AS t0 "
            + "WHERE \(compiled.predicateSQL) ORDER BY \(s.order)"
        var out = [RealmValue]()
        try realm.connection.forEachRow(sql, [s.owner] + compiled.bindings, cache: false) {
            out.append(try s.element($0, at: 0))
        }
        return out
    }

    /// Live Results over the objects of a collection of links.
    func linkResults() throws -> Results {
        guard property.type == .object, let target = property.objectClassName, let ownerKey = owner.objectKey else {
            throw RealmError(
                .invalidValue,
                "Only collections of objects can be queried; '\(owner.className).\(property.name)' holds "
                    + "'\(property.type.rawValue)' values."
            )
        }
        let info = try realm.classInfo(target)
        let table = try realm.classInfo(owner.className).quotedStorage(property)
        return Results(
            realm: realm, info: info,
            source: .collection(table: table, ownerKey: ownerKey, ordered: property.collection == .list), owner: owner)
    }
}

/// A live list property: ordered, duplicates allowed (RealmSwift's `List`).
public final class List: ManagedCollection, Sequence {
    public subscript(index: Int) -> RealmValue {
        get throws { try storage.value(at: index) }
    }

    /// Appends a value (an object, unmanaged or of this realm, or a value to create one from).
    /// An implicit write: outside a write transaction it commits its own.
    public func append(_ value: RealmValue) throws {
        let value = try realm.thawArgument(value)
        try mutate(.implicit) { try $0.append(value) }
    }

    public func append(_ object: DynamicObject) throws { try append(.object(object)) }

    public func append<S: Sequence>(contentsOf values: S) throws where S.Element == RealmValue {
        // One edit of the list, captured once however many values it appends.
        try mutate(.implicit) { storage in
            var appended = false
            for v in values {
                try storage.append(v, record: false)
                appended = true
            }
            if appended { storage.recordChange() }
        }
    }

    /// Removes the element at an index (the object itself stays, unless embedded). An implicit write.
    public func remove(at index: Int) throws {
        try mutate(.implicit) { try $0.remove(at: index) }
    }

    /// Removes the first occurrence of an object. An implicit write.
    public func remove(_ object: DynamicObject) throws {
        guard let i = try index(of: .object(object)) else { return }
        try remove(at: i)
    }

    // As in RealmSwift, these need an open write by default; the Lua API makes them implicit
    // writes (`writeMode: .implicit`), decided here rather than in the binding.

    public func insert(_ value: RealmValue, at index: Int, writeMode: WriteMode = .requireWrite) throws {
        let value = writeMode == .implicit ? try realm.thawArgument(value) : value
        try mutate(writeMode) { try $0.insert(value, at: index) }
    }

    public func replace(index: Int, with value: RealmValue, writeMode: WriteMode = .requireWrite) throws {
        try mutate(writeMode) { try $0.set(value, at: index) }
    }

    /// Sets the element at `index`, or appends when `index` is the count (Lua's `list[n + 1] = v`).
    public func set(_ value: RealmValue, at index: Int, writeMode: WriteMode = .requireWrite) throws {
        let value = writeMode == .implicit ? try realm.thawArgument(value) : value
        try mutate(writeMode) { storage in
            if index == (try storage.count()) { try storage.append(value) } else { try storage.set(value, at: index) }
        }
    }

    public func move(from: Int, to: Int, writeMode: WriteMode = .requireWrite) throws {
        try mutate(writeMode) { try $0.move(from: from, to: to) }
    }

    public func removeAll(writeMode: WriteMode = .requireWrite) throws {
        try mutate(writeMode) { try $0.removeAll() }
    }

    public func index(of value: RealmValue) throws -> Int? {
        try values().firstIndex(of: value)
    }

    public func makeIterator() -> IndexingIterator<[RealmValue]> {
        reportingErrors("reading '\(owner.className).\(property.name)'", neutral: []) { try values() }.makeIterator()
    }

    /// The objects of a list of links matching a query, as live Results in list order.
    public func filter(_ query: String, _ arguments: RealmValue...) throws -> Results {
        try linkResults().filter(query, arguments: arguments)
    }

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) throws -> Results {
        try linkResults().sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The list's objects as live Results (for aggregates, sorting, observing).
    public func asResults() throws -> Results { try linkResults() }

    public func freeze() throws -> List {
        if realm.isFrozen { return self }
        let frozen = try realm.freeze()
        guard let o = try ownerIn(frozen) else { throw RealmError.invalidated }
        return List(realm: frozen, owner: o, property: property)
    }

    /// The live list; nil when its owner has been deleted.
    public func thaw() throws -> List? {
        if !realm.isFrozen { return self }
        let live = try realm.thaw()
        return try ownerIn(live).map { List(realm: live, owner: $0, property: property) }
    }
}

/// A live set property: unique elements (RealmSwift's `MutableSet`).
public final class MutableSet: ManagedCollection, Sequence {
    /// Inserts a value if absent. An implicit write.
    public func insert(_ value: RealmValue) throws {
        let value = try realm.thawArgument(value)
        try mutate(.implicit) { try $0.append(value) }
    }

    /// Removes a value if present. An implicit write.
    public func remove(_ value: RealmValue) throws {
        try mutate(.implicit) { try $0.removeValue(value) }
    }

    public func contains(_ value: RealmValue) throws -> Bool { try storage.contains(value) }

    public func removeAll(writeMode: WriteMode = .requireWrite) throws {
        try mutate(writeMode) { try $0.removeAll() }
    }

    public subscript(index: Int) -> RealmValue {
        get throws { try storage.value(at: index) }
    }

    public func makeIterator() -> IndexingIterator<[RealmValue]> {
        reportingErrors("reading '\(owner.className).\(property.name)'", neutral: []) { try values() }.makeIterator()
    }

    public func asResults() throws -> Results { try linkResults() }
}

/// A live map property: string keys to values (RealmSwift's `Map`).
public final class Map: ManagedCollection, Sequence {
    public func value(forKey key: String) throws -> RealmValue? { try storage.value(forKey: key) }

    /// Sets (or with nil… `.null`, stores nil for) a key. An implicit write.
    public func setValue(_ value: RealmValue, forKey key: String) throws {
        let value = try realm.thawArgument(value)
        try mutate(.implicit) { try $0.setValue(value, forKey: key) }
    }

    /// Removes a key. An implicit write.
    public func removeValue(forKey key: String) throws {
        try mutate(.implicit) { try $0.removeValue(forKey: key) }
    }

    public func removeAll(writeMode: WriteMode = .requireWrite) throws {
        try mutate(writeMode) { try $0.removeAll() }
    }

    /// The keys, sorted. On error reports it through `RealmDiagnostics` and answers none;
    /// `entries()` throws.
    public var keys: [String] {
        reportingErrors("reading the keys of '\(owner.className).\(property.name)'", neutral: []) {
            try storage.allEntries().keys.sorted()
        }
    }

    public func entries() throws -> [String: RealmValue] { try storage.allEntries() }

    /// The objects of a map of links as live Results (for querying, sorting, aggregates); a key
    /// holding nil has no object and is not among them.
    public func asResults() throws -> Results { try linkResults() }

    public func makeIterator() -> IndexingIterator<[(key: String, value: RealmValue)]> {
        let all = reportingErrors("reading '\(owner.className).\(property.name)'", neutral: [:]) { try entries() }
        let sorted = all.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        return sorted.makeIterator()
    }
}
