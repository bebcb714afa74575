import Foundation

/// The objects one `add`, `create` or assignment reaches while it runs, so that a graph with
/// cycles (`o1.obj = o2; o2.obj = o1`) or shared objects adds each object once and links them as
/// the graph says, as RealmSwift does.
///
/// An object's key is known from the moment its row is inserted: a new object whose links may
/// reach objects still to be created is inserted with those links empty first, and they are
/// written right after (`RowStore.createOrUpdate`), so a path back to it finds its key.
struct ObjectGraph {
    /// An object of the graph: an unmanaged one by identity, one of another realm (copied in)
    /// by its class and key there, as each read of it makes a new handle.
    enum Node: Hashable {
        case unmanaged(ObjectIdentifier)
        case foreign(realm: ObjectIdentifier, className: String, key: Int64)
    }

    /// The deepest nesting of objects created from one value: deeper graphs (or an embedded
    /// object containing itself) fail with an error rather than exhaust the stack.
    static let maxDepth = 100

    /// The key of each node whose row exists.
    var keys: [Node: Int64] = [:]
    /// The objects behind `.unmanaged` nodes, kept alive while their identifiers are keys.
    var retained: [DynamicObject] = []
    /// The unmanaged objects made managed so far, with their values before: a failure puts them
    /// back as they were (the rows they were given are rolled back).
    var adopted: [(object: DynamicObject, className: String, values: [String: RealmValue])] = []
}

extension RowStore {
    /// The graph node of an object value that creating a link to would add or copy: nil for
    /// anything else (an object of this realm, a nested value without identity).
    func graphNode(_ value: RealmValue) -> ObjectGraph.Node? {
        guard case .object(let o) = value else { return nil }
        guard let (other, info, key) = o.managed else { return .unmanaged(ObjectIdentifier(o)) }
        if other === realm { return nil }
        return .foreign(realm: ObjectIdentifier(other), className: info.className, key: key)
    }

    /// Runs one level of object creation: counts the depth, and forgets the graph when the
    /// outermost level returns (also by an error).
    func withGraphLevel<T>(_ info: ClassInfo, _ body: () throws -> T) throws -> T {
        guard graphDepth < ObjectGraph.maxDepth else {
            throw RealmError(
                .invalidValue,
                "Cannot create '\(info.className)': objects nested more than \(ObjectGraph.maxDepth) levels deep "
                    + "(an embedded object containing itself, or a chain of new objects too long to add at once).")
        }
        graphDepth += 1
        defer {
            graphDepth -= 1
            if graphDepth == 0 { graph = ObjectGraph() }
        }
        do {
            return try body()
        } catch {
            if graphDepth == 1 { unadoptGraph() }
            throw error
        }
    }

    /// Makes an unmanaged object of the graph the managed object `key` (RealmSwift's `add`: the
    /// object given becomes the managed one).
    func adopt(_ object: DynamicObject, info: ClassInfo, key: Int64) {
        // Recorded only while a graph is being written: the outermost object is adopted last,
        // when nothing can fail any more (and the graph has been forgotten).
        if graphDepth > 0, case .unmanaged(let className, let values) = object.state {
            graph.adopted.append((object, className, values))
        }
        object.adopt(realm: realm, info: info, key: key)
    }

    /// A failed add: every object it made managed is unmanaged again, with its values.
    private func unadoptGraph() {
        for (object, className, values) in graph.adopted.reversed() {
            object.unadopt(className: className, values: values)
        }
    }

    /// Records that `node`'s row exists under `key`.
    func graphRowWritten(_ node: ObjectGraph.Node?, key: Int64, object: DynamicObject? = nil) {
        guard let node else { return }
        graph.keys[node] = key
        if let object { graph.retained.append(object) }
    }

    /// Whether writing an object from `values` may write more than its one row (nested objects,
    /// collections, or an update of an existing object): only then can a failure part-way leave
    /// something behind, and `add`/`create` need a savepoint (`Realm.undoingOnFailure`); a single
    /// INSERT fails whole.
    func mayWriteSeveralRows(_ info: ClassInfo, values: [String: RealmValue], policy: UpdatePolicy) -> Bool {
        if policy != .error || isMigrating { return true }
        if hasCollectionValues(info, values) { return true }
        guard info.hasObjectCreatingColumns else { return false }
        return info.rowSlots.contains { slot in
            slot.encodingMayCreateObjects && values[slot.property.name].map { !$0.isNull } ?? false
        }
    }

    /// Whether `values` give a (non-nil) value for one of the class's collection properties.
    func hasCollectionValues(_ info: ClassInfo, _ values: [String: RealmValue]) -> Bool {
        !info.collectionProperties.isEmpty
            && info.collectionProperties.contains { values[$0.name].map { !$0.isNull } ?? false }
    }

    /// Whether writing `value` to a link or mixed column may create objects (which may lead back
    /// to the object being inserted): an object not of this realm, or a nested value. (`add`
    /// refuses an object of another realm before creating anything.)
    func mayCreateObjects(_ value: RealmValue, mode: LinkMode) -> Bool {
        switch value {
        case .object(let o): return graphNode(value) != nil && !(mode == .add && o.managed != nil)
        case .dictionary, .list: return true
        default: return false
        }
    }

    /// Whether a new object's link and mixed values must wait until its row exists: only an
    /// object of the graph can be reached again, and only through values that create objects.
    /// Otherwise the nested objects are created first, as they always were (keys in creation order).
    func linksWaitForRow(
        _ info: ClassInfo, values: [String: RealmValue], node: ObjectGraph.Node?, mode: LinkMode
    ) -> Bool {
        guard node != nil, info.hasObjectCreatingColumns else { return false }
        return info.rowSlots.contains { slot in
            slot.encodingMayCreateObjects && values[slot.property.name].map { mayCreateObjects($0, mode: mode) } == true
        }
    }

    /// The second step of a new object whose links waited (`linksWaitForRow`): writes its link and
    /// mixed values, now that its key can be found by the objects they create.
    func writeWaitingLinks(
        _ info: ClassInfo, key: Int64, values: [String: RealmValue], policy: UpdatePolicy,
        mode: LinkMode
    ) throws {
        for slot in info.rowSlots where slot.encodingMayCreateObjects {
            guard let value = values[slot.property.name], !value.isNull else { continue }
            let p = slot.property
            let (stored, tag) = try encodeForStorage(value, property: p, info: info, policy: policy, mode: mode)
            try writeColumn(info, key: key, property: p, stored: stored, tag: tag)
        }
    }
}
