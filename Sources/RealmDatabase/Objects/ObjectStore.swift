import Foundation

/// What `add` and `create` do when an object with the same primary key exists.
public enum UpdatePolicy: String, Sendable {
    /// Fail with Realm's "existing primary key" error.
    case error
    /// Update the existing object, writing only the values that differ.
    case modified
    /// Update the existing object, writing every value given.
    case all
}

/// How a nested object value is turned into a link.
enum LinkMode {
    /// `add`: unmanaged objects are added (and become managed); objects of another realm are an error.
    case add
    /// Setting a property: unmanaged objects are added (and become managed); objects of another
    /// realm are copied in.
    case assign
    /// `create`: unmanaged objects and objects of another realm are copied in; the objects given
    /// are left as they were (as RealmSwift's `create`).
    case copy
}

/// Realm's object API: checks the write state and arguments, then delegates to the row engine.
extension Realm {
    /// Every object of a class, as live Results.
    public func objects(_ className: String) throws -> Results {
        try enterEntry("objects")
        defer { leaveEntry() }
        let info = try classInfo(className)
        if info.objectSchema.isEmbedded {
            throw RealmError(.invalidClass, "Embedded objects cannot be queried directly: '\(className)' is embedded.")
        }
        return Results(realm: self, info: info, source: .table)
    }

    /// The object of a class with a primary key value; nil when there is none.
    public func object(ofType className: String, forPrimaryKey key: RealmValue) throws -> DynamicObject? {
        try enterEntry("object(ofType:forPrimaryKey:)")
        defer { leaveEntry() }
        let info = try classInfo(className)
        guard let pk = info.objectSchema.primaryKeyProperty else {
            throw RealmError(.invalidClass, "'\(className)' does not have a primary key")
        }
        // The row comes with the key (one read transaction, not two): the object's first reads
        // are answered from it.
        let stamp = readStamp()
        guard let (objectKey, row) = try rows.fetchRow(info, primaryKey: pk, value: key) else { return nil }
        return DynamicObject(realm: self, info: info, key: objectKey, row: row, stamp: stamp)
    }

    // MARK: Adding and creating

    /// Makes an unmanaged object managed by this realm (and the unmanaged objects it links to).
    public func add(_ object: DynamicObject, update: UpdatePolicy = .error) throws {
        try enterEntry("add")
        defer { leaveEntry() }
        try checkWritable()
        // An object already managed here writes nothing: no savepoint for it.
        let needed: Bool
        if case .unmanaged(let className, let values) = object.state, let info = try? classInfo(className) {
            needed = rows.mayWriteSeveralRows(info, values: values, policy: update)
        } else {
            needed = object.managed?.realm !== self
        }
        try undoingOnFailure(when: needed) {
            _ = try rows.objectKey(for: object, targetClass: object.className, policy: update, mode: .add)
        }
    }

    /// Adds every object of a sequence.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) throws where S.Element == DynamicObject {
        for object in objects { try add(object, update: update) }
    }

    /// Creates a managed object from a value: a dictionary by property name, an array in property
    /// order, or another object (copied, even from another realm). With `.modified` or `.all` an
    /// object with the same primary key is updated instead; properties missing from the value keep
    /// their values then, and take their defaults on a new object.
    @discardableResult
    public func create(_ className: String, value: RealmValue = [:], update: UpdatePolicy = .error) throws
        -> DynamicObject
    {
        try enterEntry("create")
        defer { leaveEntry() }
        try checkWritable()
        let info = try classInfo(className)
        if info.objectSchema.isEmbedded {
            throw RealmError(
                .invalidClass,
                "Embedded objects cannot be created directly: '\(className)' is embedded; "
                    + "assign it to a property of its parent."
            )
        }
        // The object given is a node of the graph too: a cycle back to it links to the new object.
        // Node and object are taken out of the value here, so the closure below does not capture
        // (and copy) the value itself.
        let rows = self.rows
        let node = rows.graphNode(value)
        let object = value.objectValue
        let values = try rows.valuesByName(value, info: info)
        let key = try undoingOnFailure(when: rows.mayWriteSeveralRows(info, values: values, policy: update)) {
            try rows.createOrUpdate(info, values: values, policy: update, mode: .copy, node: node, object: object)
        }
        return DynamicObject(realm: self, info: info, key: key)
    }
}
