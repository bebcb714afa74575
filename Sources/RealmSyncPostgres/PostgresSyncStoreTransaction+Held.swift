import RealmSync

/// The objects each replica holds (`held`), and the changes to them not yet known to have reached
/// the replica (`held_log`, in the order they were made), as the SQLite store keeps them. Changes
/// wait in the pending rows; an object's holders are read whole and kept.
extension PostgresSyncStoreTransaction {
    func holds(_ fileID: UInt64, _ ref: ObjectRef) throws -> Bool {
        try holders(of: ref).contains(fileID)
    }

    func holders(of ref: ObjectRef) throws -> [UInt64] {
        guard let id = try objectID(ref) else { return [] }
        return Array(try holderSet(id, ref))
    }

    private func holderSet(_ id: Int64, _ ref: ObjectRef) throws -> Set<UInt64> {
        if let known = cache.holders[id] { return known }
        let files = Set(
            try select(StoreStatements.holders.postgres, [.int(id)], "reading the holders of \(ref)")
                .map { try $0.u64(0) })
        cache.holders.set(id, files)
        return files
    }

    func heldObjects(by fileID: UInt64, after cursor: UInt64, limit: Int) throws -> [(cursor: UInt64, ref: ObjectRef)] {
        try select(
            """
            SELECT o.id, o.class, o.pk FROM held h JOIN objects o ON o.id = h.object
            WHERE h.file_id = $1 AND h.object > $2 ORDER BY h.object LIMIT $3
            """,
            [.u64(fileID), .u64(cursor), .int(Int64(max(0, limit)))], "listing the objects file \(fileID) holds"
        ).map { row in
            let (id, ref) = try row.objectInPage()
            cache.ids.set(ref, id)
            return (UInt64(bitPattern: id), ref)
        }
    }

    func setHeld(_ fileID: UInt64, _ ref: ObjectRef, _ held: Bool, at position: ViewPosition) throws {
        let key = PendingRows.HeldKey(fileID: fileID, object: try requireObjectID(ref))
        pending.held[key] = held
        pending.heldLog.append(PendingRows.HeldLogEntry(key: key, position: position, held: held))
        changeCachedHolders(key, held)
    }

    private func changeCachedHolders(_ key: PendingRows.HeldKey, _ held: Bool) {
        guard cache.holders[key.object] != nil else { return }
        cache.holders.modify(key.object, default: []) { files in
            if held { files.insert(key.fileID) } else { files.remove(key.fileID) }
        }
    }

    func forgetHeldLog(of fileID: UInt64, before serverVersion: UInt64) throws {
        pending.forgetHeldLog(.before(fileID: fileID, serverVersion: serverVersion))
    }

    func markHeld(_ fileID: UInt64, _ ref: ObjectRef) throws {
        guard let id = try objectID(ref) else { return }
        // Held already: its log must still rewind a lost message that brought it.
        guard try !holderSet(id, ref).contains(fileID) else { return }
        let key = PendingRows.HeldKey(fileID: fileID, object: id)
        pending.held[key] = true
        // What was logged before no longer says what the replica had: it has the object now.
        pending.forgetHeldLog(.object(key))
        changeCachedHolders(key, true)
    }

    func rewindHeld(of fileID: UInt64, to position: ViewPosition) throws {
        // Each logged change flipped the object's state: its state at `position` is the opposite of
        // what the first change after `position` made it.
        var undone = Set<Int64>()
        var held: [Int64] = []
        var dropped: [Int64] = []
        for row in try select(
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
        try execute(
            """
            WITH gone AS (DELETE FROM held WHERE file_id = $1 AND object = ANY($3)),
                back AS (INSERT INTO held(file_id, object) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING)
            DELETE FROM held_log WHERE file_id = $1
            """, [.u64(fileID), .ints(held), .ints(dropped)], "rewinding the held objects of file \(fileID)")
        for id in held { changeCachedHolders(PendingRows.HeldKey(fileID: fileID, object: id), true) }
        for id in dropped { changeCachedHolders(PendingRows.HeldKey(fileID: fileID, object: id), false) }
    }

    func resetHeld(of fileID: UInt64, to refs: [ObjectRef]) throws {
        let ids = try resolveIDs(refs)
        guard ids.count == Set(refs).count else {
            let missing = refs.first { cache.ids[$0] == nil }.map { "\($0)" } ?? "an object"
            throw SyncStoreError("the sync store has no record of \(missing) to write below")
        }
        try execute(
            """
            WITH log AS (DELETE FROM held_log WHERE file_id = $1), gone AS (DELETE FROM held WHERE file_id = $1)
            SELECT 1
            """, [.u64(fileID)], "resetting the held objects of file \(fileID)")
        try execute(
            "INSERT INTO held(file_id, object) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING",
            [.u64(fileID), .ints(Array(ids.keys))], "recording the objects file \(fileID) holds")
        cache.holders.modifyAll { id, files in
            if ids[id] != nil { files.insert(fileID) } else { files.remove(fileID) }
        }
    }
}
