import Foundation
import RealmDatabase

/// Rewrites local changesets not yet integrated, and the element ids of the list elements they
/// inserted, wherever those ids are kept (the changesets and the list mirror), in the caller's
/// transaction. Two rewrites use it: `ident` gives commits made before the file had its id the
/// real client file id (`provisional`), and a first bootstrap rebases pending changesets after
/// everything it holds (`rebase`).
struct PendingRewrite {
    let store: ClientStore

    /// Commits made before the server allocated the file's id carry the provisional id 0.
    func provisional(clientFileID: UInt64) throws {
        let changesets = try store.history().filter { $0.clientFileID == 0 }.map { changeset in
            var changeset = changeset
            changeset.clientFileID = clientFileID
            return changeset
        }
        try rewrite(changesets) {
            $0.clientFileID == 0 ? ElementID(clock: $0.clock, clientFileID: clientFileID, index: $0.index) : $0
        }
    }

    /// Gives each of `pending` (in client-version order) a new clock from `clock` and bases it on
    /// `serverVersion`, so that it is later than, and not concurrent with, anything at or below
    /// that version: what the server will decide for it is what the replica sees. The elements they
    /// insert take the new clocks. Only changesets the server has not integrated may be given.
    func rebase(_ pending: [Changeset], onto serverVersion: UInt64, clock: inout HybridLogicalClock, now: UInt64)
        throws
    {
        var clocks: [HLCTimestamp: HLCTimestamp] = [:]
        let rebased = pending.map { changeset in
            var changeset = changeset
            let reading = clock.tick(now: now)
            clocks[changeset.clock] = reading
            changeset.clock = reading
            changeset.basedOnServerVersion = serverVersion
            return changeset
        }
        // A clock names one commit of this file: the elements it inserted are the ones with its clock.
        let fileID = pending.first?.clientFileID ?? 0
        try rewrite(rebased) { e in
            guard e.clientFileID == fileID, let reading = clocks[e.clock] else { return e }
            return ElementID(clock: reading, clientFileID: e.clientFileID, index: e.index)
        }
    }

    /// Stores `changesets` (each replacing the one of its client version) and the mirror with
    /// `element` applied to every element id.
    private func rewrite(_ changesets: [Changeset], element: (ElementID) -> ElementID) throws {
        guard !changesets.isEmpty else { return }
        for var changeset in changesets {
            changeset.instructions = changeset.instructions.map { Self.rewrite($0, element) }
            try store.appendHistory(changeset)
        }
        try rewriteMirror(element)
    }

    /// The list mirror with `element` applied to every element id (a client reset renumbers too).
    func rewriteMirror(_ element: (ElementID) -> ElementID) throws {
        let rows = try store.realm.querySQL("SELECT tbl, owner, row, element FROM _sync_list")
        for row in rows {
            guard row.count == 4, case .text(let table) = row[0], case .integer(let owner) = row[1],
                case .integer(let r) = row[2], case .blob(let bytes) = row[3]
            else { throw SyncError(.badChangeset, "A row of the list mirror is damaged") }
            let old = try ClientEncodings.decodeElement(bytes, of: table)
            let new = element(old)
            guard new != old else { continue }
            try store.realm.executeSQL(
                "UPDATE _sync_list SET element = ? WHERE tbl = ? AND owner = ? AND row = ?",
                [.blob(ClientEncodings.encode(new)), .text(table), .integer(owner), .integer(r)])
        }
    }

    static func rewrite(_ i: Instruction, _ element: (ElementID) -> ElementID) -> Instruction {
        switch i {
        case .listInsert(let o, let f, let e, let p, let v):
            return .listInsert(o, field: f, element: element(e), position: p, value: v)
        case .listErase(let o, let f, let e): return .listErase(o, field: f, element: element(e))
        case .listMove(let o, let f, let e, let p): return .listMove(o, field: f, element: element(e), position: p)
        case .listSet(let o, let f, let e, let v): return .listSet(o, field: f, element: element(e), value: v)
        case .set(let o, let path, let v): return .set(o, path: ElementStep.renaming(path, element), value: v)
        default: return i
        }
    }
}
