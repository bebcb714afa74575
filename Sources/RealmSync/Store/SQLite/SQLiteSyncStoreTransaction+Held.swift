import Foundation
import RealmDatabase

/// The objects each replica holds (`held`), and the changes to them not yet known to have reached
/// the replica (`held_log`, in the order they were made).
extension SQLiteSyncStoreTransaction {
    func holds(_ fileID: UInt64, _ ref: ObjectRef) throws -> Bool {
        guard let id = try objectID(ref) else { return false }
        return try db.row("SELECT 1 FROM held WHERE file_id = ? AND object = ?", [.u64(fileID), .integer(id)]) != nil
    }

    func holders(of ref: ObjectRef) throws -> [UInt64] {
        guard let id = try objectID(ref) else { return [] }
        return try db.rows(StoreStatements.holders.sqlite, [.integer(id)]).map { $0[0].u64 }
    }

    func heldObjects(by fileID: UInt64, after cursor: UInt64, limit: Int) throws -> [(cursor: UInt64, ref: ObjectRef)] {
        try db.storedRows(
            """
            SELECT o.id, o.class, o.pk FROM held h JOIN objects o ON o.id = h.object
            WHERE h.file_id = ? AND h.object > ? ORDER BY h.object LIMIT ?
            """,
            [.u64(fileID), .u64(cursor), .integer(Int64(max(0, limit)))]
        ).map { row in
            let (id, ref) = try row.objectInPage()
            return (UInt64(bitPattern: id), ref)
        }
    }

    func setHeld(_ fileID: UInt64, _ ref: ObjectRef, _ held: Bool, at position: ViewPosition) throws {
        let id = try requireObjectID(ref)
        try write(fileID, id, held)
        try db.run(
            "INSERT INTO held_log(file_id, object, server_version, query_version, held) VALUES (?, ?, ?, ?, ?)",
            [
                .u64(fileID), .integer(id), .u64(position.serverVersion), .integer(position.queryVersion),
                .integer(held ? 1 : 0),
            ])
    }

    func forgetHeldLog(of fileID: UInt64, before serverVersion: UInt64) throws {
        try db.run(
            "DELETE FROM held_log WHERE file_id = ? AND server_version < ?", [.u64(fileID), .u64(serverVersion)])
    }

    func markHeld(_ fileID: UInt64, _ ref: ObjectRef) throws {
        guard let id = try objectID(ref) else { return }
        try db.run("INSERT OR IGNORE INTO held(file_id, object) VALUES (?, ?)", [.u64(fileID), .integer(id)])
        // Held already: its log must still rewind a lost message that brought it.
        guard db.changes == 1 else { return }
        // What was logged before no longer says what the replica had: it has the object now.
        try db.run("DELETE FROM held_log WHERE file_id = ? AND object = ?", [.u64(fileID), .integer(id)])
    }

    func rewindHeld(of fileID: UInt64, to position: ViewPosition) throws {
        // Each logged change flipped the object's state: its state at `position` is the opposite of
        // what the first change after `position` made it.
        var undone = Set<Int64>()
        for row in try db.rows(
            """
            SELECT object, held FROM held_log
            WHERE file_id = ? AND (server_version > ? OR (server_version = ? AND query_version > ?)) ORDER BY seq
            """,
            [
                .u64(fileID), .u64(position.serverVersion), .u64(position.serverVersion),
                .integer(position.queryVersion),
            ])
        {
            guard case .integer(let id) = row[0], undone.insert(id).inserted else { continue }
            try write(fileID, id, row[1].u64 == 0)
        }
        try db.run("DELETE FROM held_log WHERE file_id = ?", [.u64(fileID)])
    }

    func resetHeld(of fileID: UInt64, to refs: [ObjectRef]) throws {
        try db.run("DELETE FROM held_log WHERE file_id = ?", [.u64(fileID)])
        try db.run("DELETE FROM held WHERE file_id = ?", [.u64(fileID)])
        for ref in refs { try write(fileID, try requireObjectID(ref), true) }
    }

    private func write(_ fileID: UInt64, _ object: Int64, _ held: Bool) throws {
        try db.run(
            held
                ? "INSERT OR IGNORE INTO held(file_id, object) VALUES (?, ?)"
                : "DELETE FROM held WHERE file_id = ? AND object = ?",
            [.u64(fileID), .integer(object)])
    }
}
