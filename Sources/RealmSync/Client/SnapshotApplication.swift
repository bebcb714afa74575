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

    /// Objects that left the view: deleted, recording nothing; links to them become unresolved,
    /// as for a remote erase. Except an object a pending changeset writes: its writes are on their
    /// way, and the server judges them (a refusal, or a write outside the view, comes back as a
    /// correction). Deleted now, the object would come back with its pending fields at their
    /// defaults: a later snapshot or remote write skips the fields a pending write holds.
    func remove(_ objects: [ObjectRef]) throws {
        let written = Set(pending.flatMap { $0.instructions.map(\.object) })
        for object in objects where !written.contains(object) { try deleteObject(object) }
    }

    /// One object sent whole, as timed remote writes. First the pending writes on it the server will
    /// drop as concurrent with its erase (or with a replacement of an embedded object above them) are
    /// voided: the server's values stand over them.
    private mutating func applyWhole(_ snapshot: ObjectSnapshot) throws {
        let o = snapshot.object
        let times = snapshot.times
        void { changeset, instruction in
            guard instruction.object == o else { return false }
            switch instruction {
            case .erase: return false
            case .set(_, let path, _): return times.dropsAsConcurrent(path, from: changeset)
            default: return times.dropsAsConcurrent([], from: changeset)
            }
        }
        try apply(.create(o, fields: []), at: .zero)
        guard !writes.erased.contains(o), let object = try SyncValueConversion.object(o, in: realm) else { return }
        let primaryKey = realm.schema[o.className]?.primaryKey
        for field in snapshot.fields where field.name != primaryKey {
            try set(object, o, path: [field.name], value: field.value, at: times.time(of: [field.name]), whole: times)
        }
        for (instruction, time) in Self.collectionWrites(snapshot) { try apply(instruction, at: time) }
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
