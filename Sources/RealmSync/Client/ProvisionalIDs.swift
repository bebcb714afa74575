import Foundation
import RealmDatabase

/// Rewrites the provisional client file id 0 of commits made before the server allocated the
/// file's id: in the stored changesets and the element ids of the list mirror.
struct ProvisionalIDs {
    let store: ClientStore
    let clientFileID: UInt64

    func rewrite() throws {
        for var changeset in try store.history() where changeset.clientFileID == 0 {
            changeset.clientFileID = clientFileID
            changeset.instructions = changeset.instructions.map(rewrite)
            try store.appendHistory(changeset)
        }
        // Bytes 9…16 of a stored element id are its client file id (`ClientEncodings.encode(_: ElementID)`).
        let rows = try store.realm.querySQL(
            "SELECT tbl, row, element FROM _sync_list WHERE substr(element, 9, 8) = zeroblob(8)")
        for row in rows {
            guard row.count == 3, case .text(let table) = row[0], case .integer(let r) = row[1],
                case .blob(let bytes) = row[2]
            else { throw SyncError(.badChangeset, "A row of the list mirror is damaged") }
            let element = rewrite(try ClientEncodings.decodeElement(bytes, of: table))
            try store.realm.executeSQL(
                "UPDATE _sync_list SET element = ? WHERE tbl = ? AND row = ?",
                [.blob(ClientEncodings.encode(element)), .text(table), .integer(r)])
        }
    }

    private func rewrite(_ e: ElementID) -> ElementID {
        e.clientFileID == 0 ? ElementID(clock: e.clock, clientFileID: clientFileID, index: e.index) : e
    }

    private func rewrite(_ i: Instruction) -> Instruction {
        switch i {
        case .listInsert(let o, let f, let e, let p, let v):
            return .listInsert(o, field: f, element: rewrite(e), position: p, value: v)
        case .listErase(let o, let f, let e): return .listErase(o, field: f, element: rewrite(e))
        case .listMove(let o, let f, let e, let p): return .listMove(o, field: f, element: rewrite(e), position: p)
        case .listSet(let o, let f, let e, let v): return .listSet(o, field: f, element: rewrite(e), value: v)
        default: return i
        }
    }
}
