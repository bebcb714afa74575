import RealmSync

/// The dense history of integrated changesets, and the client files.
extension PostgresSyncStoreTransaction {

    func history(after serverVersion: UInt64, limit: Int) throws -> [HistoryEntry] {
        try select(
            StoreStatements.history.postgres,
            [.u64(serverVersion), .int(Int64(max(0, limit)))], "reading the history after \(serverVersion)"
        ).map { try $0.historyEntry() }
    }

    func originalChangesets(after serverVersion: UInt64, limit: Int) throws -> [(serverVersion: UInt64, Changeset)] {
        try select(
            StoreStatements.originalChangesets.postgres,
            [.u64(serverVersion), .int(Int64(max(0, limit)))], "reading the uploaded changesets after \(serverVersion)"
        ).map { row in
            let entry = try row.historyEntry()
            return (entry.serverVersion, entry.kept)
        }
    }

    func highestClientVersion(of clientFileID: UInt64, atOrBelow serverVersion: UInt64) throws -> UInt64 {
        try select(
            StoreStatements.highestClientVersion.postgres,
            [.u64(clientFileID), .u64(serverVersion)], "reading the highest client version of file \(clientFileID)"
        ).first?.u64(0) ?? 0
    }

    func latestClock(atOrBelow serverVersion: UInt64) throws -> HLCTimestamp {
        // Clocks are stored as their bit pattern; readings stay below 2^63 until the year 4400.
        HLCTimestamp(
            rawValue: try select(
                "SELECT COALESCE(max(clock), 0) FROM history WHERE server_version <= $1", [.u64(serverVersion)],
                "reading the latest clock at \(serverVersion)"
            ).first?.u64(0) ?? 0)
    }

    func client(_ fileID: UInt64) throws -> ClientRecord? {
        if let cached = cache.clients[fileID] { return cached }
        let record = try readClient(fileID)
        cache.clients.set(fileID, .some(record))
        return record
    }

    private func readClient(_ fileID: UInt64) throws -> ClientRecord? {
        guard
            let row = try lookUp(
                StoreStatements.client.postgres, [.u64(fileID)],
                "reading client file \(fileID)"
            ).first
        else { return nil }
        return try row.client(fileID)
    }

    func appendHistory(_ record: HistoryRecord) throws {
        let latest = try latestServerVersion()
        guard record.serverVersion == latest + 1 else {
            throw SyncStoreError(
                "history must stay dense: appending server version \(record.serverVersion) after \(latest)")
        }
        pending.history.append(record)
        latestVersion = record.serverVersion
    }

    func writeClient(_ record: ClientRecord) throws {
        pending.clients[record.fileID] = record
        cache.clients.set(record.fileID, .some(record))
    }

    func allocateClient(salt: UInt64, user: String) throws -> UInt64 {
        // Servers sharing the store allocate one at a time: the lock is held to the commit.
        _ = try select(
            "SELECT pg_advisory_xact_lock($1)", [.int(PostgresStoreSchema.clientAllocationLock)],
            "locking the allocation of a client file")
        let last =
            try select("SELECT COALESCE(max(file_id), 0) FROM clients", [], "allocating a client file")
            .first?.u64(0) ?? 0
        let fileID = last + 1
        try writeClient(ClientRecord(fileID: fileID, salt: salt, lastIntegratedClientVersion: 0, user: user))
        return fileID
    }
}
