import RealmSync

/// The objects each replica holds (`held`), and the changes to them not yet known to have reached
/// the replica (`held_log`, in the order they were made), as the SQLite store keeps them.
extension PostgresSyncStoreTransaction {
    func holds(_ fileID: UInt64, _ ref: ObjectRef) throws -> Bool {
        guard let id = try objectID(ref) else { return false }
        return try !db.rows(
            "SELECT 1 FROM held WHERE file_id = $1 AND object = $2", [.u64(fileID), .int(id)],
            "reading whether file \(fileID) holds \(ref)"
        ).isEmpty
    }

    func holders(of ref: ObjectRef) throws -> [UInt64] {
        guard let id = try objectID(ref) else { return [] }
        return try db.rows("SELECT file_id FROM held WHERE object = $1", [.int(id)], "reading the holders of \(ref)")
            .map { try $0.u64(0) }
    }

    func heldObjects(by fileID: UInt64, after cursor: UInt64, limit: Int) throws -> [(cursor: UInt64, ref: ObjectRef)] {
        try db.rows(
            """
            SELECT o.id, o.class, o.pk FROM held h JOIN objects o ON o.id = h.object
            WHERE h.file_id = $1 AND h.object > $2 ORDER BY h.object LIMIT $3
            """,
            [.u64(fileID), .u64(cursor), .int(Int64(max(0, limit)))], "listing the objects file \(fileID) holds"
        ).map { row in
            let ref = ObjectRef(try row.text(1), try primaryKey(try row.bytes(2)))
            let id = try row.int(0)
            objectIDs[ref] = id
            return (UInt64(bitPattern: id), ref)
        }
    }

    func setHeld(_ fileID: UInt64, _ ref: ObjectRef, _ held: Bool, at position: ViewPosition) throws {
        let id = try requireObjectID(ref)
        // The state and its log entry in one statement.
        let change =
            held
            ? "INSERT INTO held(file_id, object) VALUES ($1, $2) ON CONFLICT DO NOTHING"
            : "DELETE FROM held WHERE file_id = $1 AND object = $2"
        try db.send(
            """
            WITH change AS (\(change))
            INSERT INTO held_log(file_id, object, server_version, query_version, held) VALUES ($1, $2, $3, $4, $5)
            """,
            [.u64(fileID), .int(id), .u64(position.serverVersion), .int(position.queryVersion), .bool(held)],
            "recording that file \(fileID) \(held ? "holds" : "no longer holds") \(ref)")
    }

    func forgetHeldLog(of fileID: UInt64, before serverVersion: UInt64) throws {
        try db.send(
            "DELETE FROM held_log WHERE file_id = $1 AND server_version < $2", [.u64(fileID), .u64(serverVersion)],
            "forgetting the held log of file \(fileID)")
    }

    func markHeld(_ fileID: UInt64, _ ref: ObjectRef) throws {
        guard let id = try objectID(ref) else { return }
        let inserted = try db.query(
            "INSERT INTO held(file_id, object) VALUES ($1, $2) ON CONFLICT DO NOTHING", [.u64(fileID), .int(id)],
            "marking \(ref) held by file \(fileID)")
        // Held already: its log must still rewind a lost message that brought it.
        guard inserted.metadata.rows == 1 else { return }
        // What was logged before no longer says what the replica had: it has the object now.
        try db.send(
            "DELETE FROM held_log WHERE file_id = $1 AND object = $2", [.u64(fileID), .int(id)],
            "forgetting the held log of \(ref) for file \(fileID)")
    }

    func rewindHeld(of fileID: UInt64, to position: ViewPosition) throws {
        // Each logged change flipped the object's state: its state at `position` is the opposite of
        // what the first change after `position` made it.
        var undone = Set<Int64>()
        var held: [Int64] = []
        var dropped: [Int64] = []
        for row in try db.rows(
            """
            SELECT object, held FROM held_log
            WHERE file_id = $1 AND (server_version > $2 OR (server_version = $2 AND query_version > $3)) ORDER BY seq
            """,
            [.u64(fileID), .u64(position.serverVersion), .int(position.queryVersion)],
            "reading the held log of file \(fileID)")
        {
            let id = try row.int(0)
            guard undone.insert(id).inserted else { continue }
            if try row.bool(1) { dropped.append(id) } else { held.append(id) }
        }
        try db.send(
            """
            WITH gone AS (DELETE FROM held WHERE file_id = $1 AND object = ANY($3)),
                back AS (INSERT INTO held(file_id, object) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING)
            DELETE FROM held_log WHERE file_id = $1
            """, [.u64(fileID), .ints(held), .ints(dropped)], "rewinding the held objects of file \(fileID)")
    }

    func resetHeld(of fileID: UInt64, to refs: [ObjectRef]) throws {
        let ids = try resolveIDs(refs)
        guard ids.count == Set(refs).count else {
            let missing = refs.first { objectIDs[$0] == nil }.map { "\($0)" } ?? "an object"
            throw SyncStoreError("the sync store has no record of \(missing) to write below")
        }
        try db.send(
            """
            WITH log AS (DELETE FROM held_log WHERE file_id = $1), gone AS (DELETE FROM held WHERE file_id = $1)
            SELECT 1
            """, [.u64(fileID)], "resetting the held objects of file \(fileID)")
        try db.send(
            "INSERT INTO held(file_id, object) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING",
            [.u64(fileID), .ints(Array(ids.keys))], "recording the objects file \(fileID) holds")
    }
}
