import RealmDatabase

/// Whole objects from the server, applied by a `DownloadApplier`: a bootstrap's, those entering or
/// leaving the view when the subscription set changes, and a download's replacements and removals.
extension DownloadApplier {
    /// The snapshots as one changeset of remote creates (and collection inserts) at time zero: a
    /// pending local write wins, as it will when it reaches the server.
    static func changeset(of snapshots: [ObjectSnapshot], at serverVersion: UInt64) -> Changeset {
        Changeset(
            clientVersion: 0, basedOnServerVersion: serverVersion, clock: .zero, clientFileID: 0,
            instructions: snapshots.flatMap(instructions))
    }

    /// Objects sent whole (entering the view, or restored by a compensating write): each is created
    /// if missing and set to its snapshot; its list elements, set values and map keys the snapshot
    /// lacks go unless a pending changeset writes them.
    mutating func replace(with snapshots: [ObjectSnapshot], at serverVersion: UInt64) throws {
        guard !snapshots.isEmpty else { return }
        try apply(Self.changeset(of: snapshots, at: serverVersion))
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

    private static func instructions(_ snapshot: ObjectSnapshot) -> [Instruction] {
        let o = snapshot.object
        var result: [Instruction] = [.create(o, fields: snapshot.fields)]
        for list in snapshot.lists {
            // The replica may have the element already (this file's insert, integrated): the insert is
            // a repeat, so the snapshot's position and value follow as a move and a set at time zero
            // (no-ops where they are the replica's already; skipped behind a pending move or set).
            result += list.elements.flatMap { element -> [Instruction] in
                [
                    .listInsert(
                        o, field: list.field, element: element.id, position: element.position, value: element.value),
                    .listMove(o, field: list.field, element: element.id, position: element.position),
                    .listSet(o, field: list.field, element: element.id, value: element.value),
                ]
            }
        }
        for set in snapshot.sets { result += set.values.map { .setAdd(o, field: set.field, value: $0) } }
        for map in snapshot.maps {
            result += map.entries.map { .mapPut(o, field: map.field, key: $0.name, value: $0.value) }
        }
        return result
    }
}
