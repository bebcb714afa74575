import RealmDatabase

/// Whole objects from the server, applied by a `DownloadApplier`: a bootstrap's, those entering or
/// leaving the view when the subscription set changes, and a download's replacements and removals.
extension DownloadApplier {
    /// The snapshots as one changeset of remote creates (and collection inserts) at time zero: a
    /// pending local write wins, as it will when it reaches the server (a first bootstrap rebases
    /// the pending changesets after it).
    static func changeset(of snapshots: [ObjectSnapshot], at serverVersion: UInt64) -> Changeset {
        Changeset(
            clientVersion: 0, basedOnServerVersion: serverVersion, clock: .zero, clientFileID: 0,
            instructions: snapshots.flatMap { [.create($0.object, fields: $0.fields)] + collectionWrites($0).map(\.0) })
    }

    /// Objects sent whole (entering the view, or restored by a compensating write): each is created
    /// if missing and written as the server has it, each datum at the time the server has for it,
    /// so a pending local write wins only where the server will let it (`applyWhole`). Its list
    /// elements, set values and map keys the snapshot lacks go unless a pending changeset writes
    /// them later than the server did.
    mutating func replace(with snapshots: [ObjectSnapshot], at serverVersion: UInt64) throws {
        guard !snapshots.isEmpty else { return }
        if pending.isEmpty {
            // Times only decide against pending writes: without any, the objects are written as
            // they are, in one changeset (a view's first objects, most often, by the thousand).
            try apply(Self.changeset(of: snapshots, at: serverVersion))
        } else {
            for snapshot in snapshots { try applyWhole(snapshot) }
        }
        try removeEntries(notIn: snapshots)
    }

    /// Objects that left the view (or that the server no longer has for this replica): deleted,
    /// recording nothing; links to them become unresolved, as for a remote erase. Nothing of the
    /// server's state stays: kept, it would hold values the server dropped, and a later remote create
    /// of the object (sent as instructions: the server knows the replica no longer holds it) would
    /// merge into them. What pending changesets write stays pending and is applied again when the
    /// object comes back: by a remote create or a whole object (`replayPending`), or at once when a
    /// pending changeset creates it (`recreateFromPending`).
    mutating func remove(_ objects: [ObjectRef]) throws {
        for ref in objects {
            try deleteObject(ref)
            try recreateFromPending(ref)
        }
    }

    /// The object as the pending changesets make it from their last create of it on, when no pending
    /// erase follows that create: the server integrates that create (sending the object whole when it
    /// exists there already, `Integrator`), so the replica has the object meanwhile, as its user made it.
    private mutating func recreateFromPending(_ ref: ObjectRef) throws {
        var start: (changeset: Int, instruction: Int)?
        for (i, changeset) in pending.enumerated() {
            for (j, instruction) in changeset.instructions.enumerated() where instruction.object == ref {
                if case .create = instruction { start = (i, j) }
                if case .erase = instruction { start = nil }
            }
        }
        guard let start, let primaryKey = realm.schema[ref.className]?.primaryKey else { return }
        let object = try realm.create(
            ref.className, value: .dictionary([primaryKey: SyncValueConversion.realmValue(ref.primaryKey)]))
        if try store.hasUnresolved() { try links.objectCreated(object, ref: ref) }
        for i in start.changeset..<pending.count {
            let time = WriteTime(of: pending[i])
            let first = i == start.changeset ? start.instruction : 0
            for instruction in pending[i].instructions[first...] where instruction.object == ref {
                try write(instruction, on: object, at: time)
            }
        }
    }

    /// One object sent whole, as timed remote writes. First the pending writes on it the server will
    /// drop as concurrent with its erase (or with a replacement of an embedded object above them) are
    /// voided: the server's values stand over them. Not those after a pending erase of the object,
    /// or after a pending write of an embedded object above them: the server judges them against
    /// that erase or replacement, the last when they arrive.
    private mutating func applyWhole(_ snapshot: ObjectSnapshot) throws {
        let o = snapshot.object
        let times = snapshot.times
        let own = PendingReplacements(of: o, in: pending, against: times)
        voidEach { changeset, index, instruction in
            guard instruction.object == o else { return false }
            let path: [String]
            switch instruction {
            case .erase: return false
            case .set(_, let p, _): path = p
            default: path = []
            }
            guard !own.cover(path, before: (changeset.clientVersion, index)) else { return false }
            // Inside a list element the snapshot's whole value is written over the replica's: a
            // pending write there stays only when the server keeps it, to be written again after.
            let inElement = ElementStep.element(startingPath: path) != nil
            return times.dropsAsConcurrent(path, from: changeset)
                || (inElement && WriteTime(of: changeset) < times.time(of: path))
        }
        // A new object gets the pending writes on it replayed after its data, not before: a pending
        // move or set of a list element needs the element the snapshot inserts.
        let existed = try SyncValueConversion.object(o, in: realm) != nil
        try apply(.create(o, fields: []), at: .zero, replayingPending: existed)
        guard !writes.erased.contains(o), let object = try SyncValueConversion.object(o, in: realm) else { return }
        let primaryKey = realm.schema[o.className]?.primaryKey
        for field in snapshot.fields where field.name != primaryKey {
            try set(object, o, path: [field.name], value: field.value, at: times.time(of: [field.name]), whole: times)
        }
        for (instruction, time) in Self.collectionWrites(snapshot) {
            try apply(instruction, at: time, ofWholeObject: true)
        }
        if !existed { try replayPending(on: o, object, existed: false) }
        try rewritePendingElementWrites(of: o, on: object, times)
    }

    /// The pending moves and sets of list elements later than the server's: the snapshot's own move
    /// and set were skipped for them, and a replay before the snapshot inserted the element found
    /// nothing to write (an object the replica created again, holding none of its elements). Then
    /// the pending writes inside elements that `applyWhole` kept (the server keeps them): the
    /// snapshot's element value was written over them.
    private func rewritePendingElementWrites(of o: ObjectRef, on object: DynamicObject, _ times: SnapshotTimes) throws {
        for changeset in pending {
            let time = WriteTime(of: changeset)
            for instruction in changeset.instructions where instruction.object == o {
                switch instruction {
                case .listMove(_, let field, let id, _) where time > (times.element(field, id)?.position ?? .zero),
                    .listSet(_, let field, let id, _) where time > (times.element(field, id)?.value ?? .zero):
                    try write(instruction, on: object, at: time)
                case .set(_, let path, _) where ElementStep.element(startingPath: path) != nil:
                    try write(instruction, on: object, at: time)
                default:
                    continue
                }
            }
        }
    }

    /// Over an embedded object sent whole, the pending writes below it that the server keeps (as
    /// late as what it has at their path) are written again; the others are voided: the server drops
    /// them.
    mutating func rewritePending(
        below path: [String], of ref: ObjectRef, on object: DynamicObject, _ times: SnapshotTimes
    ) throws {
        func isBelow(_ p: [String]) -> Bool { p.count > path.count && Array(p.prefix(path.count)) == path }
        void { changeset, instruction in
            guard case .set(ref, let p, _) = instruction, isBelow(p) else { return false }
            return WriteTime(of: changeset) < times.time(of: p) || times.dropsAsConcurrent(p, from: changeset)
        }
        for changeset in pending {
            for case .set(ref, let p, let value) in changeset.instructions where isBelow(p) {
                try writeField(object, path: p, value: value)
            }
        }
    }

    /// The snapshot's list elements, set values and map entries as remote writes, each with the time
    /// the server has for it. The replica may have an element already (this file's insert,
    /// integrated): the insert is a repeat, so the snapshot's position and value follow as a move
    /// and a set (no-ops where they are the replica's already; skipped behind a later pending move
    /// or set).
    private static func collectionWrites(_ snapshot: ObjectSnapshot) -> [(Instruction, WriteTime)] {
        let o = snapshot.object
        let times = snapshot.times
        var result: [(Instruction, WriteTime)] = []
        for list in snapshot.lists {
            for element in list.elements {
                let time = times.element(list.field, element.id)
                let (id, position, value) = (element.id, element.position, element.value)
                result += [
                    (.listInsert(o, field: list.field, element: id, position: position, value: value), .zero),
                    (.listMove(o, field: list.field, element: id, position: position), time?.position ?? .zero),
                    (.listSet(o, field: list.field, element: id, value: value), time?.value ?? .zero),
                ]
            }
        }
        for set in snapshot.sets {
            result += set.values.map { (.setAdd(o, field: set.field, value: $0), times.time(of: set.field, key: $0)) }
        }
        for map in snapshot.maps {
            result += map.entries.map { entry in
                (
                    .mapPut(o, field: map.field, key: entry.name, value: entry.value),
                    times.time(of: map.field, key: .string(entry.name))
                )
            }
        }
        return result
    }
}

/// Where the pending changesets erase an object, or write an embedded object of it again in a write
/// the server keeps (later than its own, not concurrent with a replacement or an erase): a later
/// pending write below is judged by the server against those, not against what a snapshot says.
private struct PendingReplacements {
    typealias Position = (clientVersion: UInt64, index: Int)
    private var erase: Position?
    private var writes: [(at: Position, path: [String])] = []

    init(of object: ObjectRef, in pending: [Changeset], against times: SnapshotTimes) {
        for changeset in pending {
            for (index, instruction) in changeset.instructions.enumerated() where instruction.object == object {
                let at = (changeset.clientVersion, index)
                let paths: [[String]]
                switch instruction {
                case .erase:
                    if erase == nil { erase = at }
                    continue
                case .create(_, let fields): paths = fields.map { [$0.name] }
                case .set(_, let path, _): paths = [path]
                case .listSet(_, let field, let e, _):
                    // A new value of a list element, kept when later than the server's.
                    let path = [field, ElementStep.name(e)]
                    if cover(path, before: at) || WriteTime(of: changeset) > (times.element(field, e)?.value ?? .zero) {
                        writes.append((at, path))
                    }
                    continue
                default: continue
                }
                for path in paths where cover(path, before: at) || stands(path, changeset, times) {
                    writes.append((at, path))
                }
            }
        }
    }

    private func stands(_ path: [String], _ changeset: Changeset, _ times: SnapshotTimes) -> Bool {
        WriteTime(of: changeset) > times.time(of: path) && !times.dropsAsConcurrent(path, from: changeset)
    }

    /// A write at `path` (empty: the object itself) made at `position` follows a pending erase of the
    /// object, or a pending write of an embedded object above it that the server keeps.
    func cover(_ path: [String], before position: Position) -> Bool {
        if let erase, position >= erase { return true }
        return writes.contains { write in
            write.at < position && write.path.count < path.count && path.starts(with: write.path)
        }
    }
}
