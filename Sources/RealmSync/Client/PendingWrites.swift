import RealmDatabase

/// What the local changesets not yet acknowledged write, with the latest time of each write: what a
/// remote instruction is checked against (docs/SYNC.md "How a replica applies a download").
struct PendingWrites {
    private(set) var erased = Set<ObjectRef>()
    private var fields: [ObjectRef: [[String]: WriteTime]] = [:]
    private var clears: [FieldKey: WriteTime] = [:]
    private var listErases = Set<ElementKey>()
    private var moves: [ElementKey: WriteTime] = [:]
    private var elementSets: [ElementKey: WriteTime] = [:]
    private var setValues: [ValueKey: WriteTime] = [:]
    private var mapKeys: [MapKey: WriteTime] = [:]

    struct FieldKey: Hashable {
        let object: ObjectRef
        let field: String
    }
    struct ElementKey: Hashable {
        let object: ObjectRef
        let field: String
        let element: ElementID
    }
    struct ValueKey: Hashable {
        let object: ObjectRef
        let field: String
        let value: SyncValue
    }
    struct MapKey: Hashable {
        let object: ObjectRef
        let field: String
        let key: String
    }

    init(_ changesets: [Changeset]) {
        for changeset in changesets {
            let time = WriteTime(of: changeset)
            for instruction in changeset.instructions { note(instruction, at: time) }
        }
    }

    private static func later(_ a: WriteTime?, _ b: WriteTime) -> WriteTime { a.map { max($0, b) } ?? b }

    private mutating func note(_ instruction: Instruction, at time: WriteTime) {
        switch instruction {
        case .erase(let o): erased.insert(o)
        case .create(let o, let fields):
            for field in fields {
                self.fields[o, default: [:]][[field.name]] = Self.later(self.fields[o]?[[field.name]], time)
            }
        case .set(let o, let path, _): fields[o, default: [:]][path] = Self.later(fields[o]?[path], time)
        case .listClear(let o, let field):
            let key = FieldKey(object: o, field: field)
            clears[key] = Self.later(clears[key], time)
        case .listMove(let o, let field, let e, _):
            let key = ElementKey(object: o, field: field, element: e)
            moves[key] = Self.later(moves[key], time)
        case .listSet(let o, let field, let e, _):
            let key = ElementKey(object: o, field: field, element: e)
            elementSets[key] = Self.later(elementSets[key], time)
            // A new value of the element is a write of its path too: an ancestor of the paths
            // that write inside it (`fieldIsLater`).
            let path = [field, ElementStep.name(e)]
            fields[o, default: [:]][path] = Self.later(fields[o]?[path], time)
        case .setAdd(let o, let field, let v), .setRemove(let o, let field, let v):
            let key = ValueKey(object: o, field: field, value: v)
            setValues[key] = Self.later(setValues[key], time)
        case .mapPut(let o, let field, let k, _), .mapRemove(let o, let field, let k):
            let key = MapKey(object: o, field: field, key: k)
            mapKeys[key] = Self.later(mapKeys[key], time)
        case .listErase(let o, let field, let e):
            listErases.insert(ElementKey(object: o, field: field, element: e))
        case .listInsert:
            break
        }
    }

    /// A remote write to `path` at `time` is skipped: a pending local write to the path itself is
    /// later, or one to an ancestor (a replacement of an embedded object) is pending at all. A
    /// replacement beats a concurrent write inside it whatever the clocks (the server's rule 3);
    /// docs/SYNC.md's "is later" for the ancestor case would let the replica keep a write the
    /// server drops.
    func fieldIsLater(_ o: ObjectRef, _ path: [String], than time: WriteTime) -> Bool {
        guard let times = fields[o] else { return false }
        if let own = times[path], own > time { return true }
        return (1..<max(1, path.count)).contains { times[Array(path.prefix($0))] != nil }
    }

    /// A remote instruction at `time` is skipped: a pending local write to what it writes is later
    /// (for a list insert: a pending clear later than the element's insertion, or a pending erase of
    /// the element, which the server keeps whatever the times: only a bootstrap's snapshot inserts an
    /// element the replica already knew). A create, an erase, a list erase or clear is never skipped
    /// here.
    func overrides(_ instruction: Instruction, at time: WriteTime) -> Bool {
        switch instruction {
        case .set(let o, let path, _):
            return fieldIsLater(o, path, than: time)
        case .listInsert(let o, let field, let e, _, _):
            return listErases.contains(ElementKey(object: o, field: field, element: e))
                || Self.isLater(clears[FieldKey(object: o, field: field)], than: WriteTime(insertionOf: e))
        case .listMove(let o, let field, let e, _):
            return Self.isLater(moves[ElementKey(object: o, field: field, element: e)], than: time)
        case .listSet(let o, let field, let e, _):
            return Self.isLater(elementSets[ElementKey(object: o, field: field, element: e)], than: time)
        case .setAdd(let o, let field, let v), .setRemove(let o, let field, let v):
            return Self.isLater(setValues[ValueKey(object: o, field: field, value: v)], than: time)
        case .mapPut(let o, let field, let k, _), .mapRemove(let o, let field, let k):
            return Self.isLater(mapKeys[MapKey(object: o, field: field, key: k)], than: time)
        case .create, .erase, .listErase, .listClear:
            return false
        }
    }

    private static func isLater(_ pending: WriteTime?, than time: WriteTime) -> Bool {
        pending.map { $0 > time } ?? false
    }
}
