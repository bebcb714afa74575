import RealmSync

/// The dense history of integrated changesets, and the client files.
extension PostgresSyncStoreTransaction {
    func history(after serverVersion: UInt64, limit: Int) throws -> [HistoryEntry] {
        try db.rows(
            "SELECT server_version, kept FROM history WHERE server_version > $1 ORDER BY server_version LIMIT $2",
            [.u64(serverVersion), .int(Int64(max(0, limit)))], "reading the history after \(serverVersion)"
        ).map { row in
            let version = try row.u64(0)
            return HistoryEntry(serverVersion: version, kept: try changeset(try row.bytes(1), at: version))
        }
    }

    func originalChangesets(after serverVersion: UInt64, limit: Int) throws -> [(serverVersion: UInt64, Changeset)] {
        try db.rows(
            "SELECT server_version, original FROM history WHERE server_version > $1 ORDER BY server_version LIMIT $2",
            [.u64(serverVersion), .int(Int64(max(0, limit)))], "reading the uploaded changesets after \(serverVersion)"
        ).map { row in
            let version = try row.u64(0)
            return (version, try changeset(try row.bytes(1), at: version))
        }
    }

    private func changeset(_ bytes: [UInt8]?, at serverVersion: UInt64) throws -> Changeset {
        do {
            return try StoreEncoding.decodeChangeset(bytes ?? [])
        } catch {
            throw SyncStoreError("\(error) (the changeset of server version \(serverVersion))")
        }
    }

    func highestClientVersion(of clientFileID: UInt64, atOrBelow serverVersion: UInt64) throws -> UInt64 {
        // A file's client versions rise with the server version: the last one is the highest.
        try db.rows(
            "SELECT client_version FROM history WHERE client_file_id = $1 AND server_version <= $2 "
                + "ORDER BY server_version DESC LIMIT 1",
            [.u64(clientFileID), .u64(serverVersion)], "reading the highest client version of file \(clientFileID)"
        ).first?.u64(0) ?? 0
    }

    func latestClock(atOrBelow serverVersion: UInt64) throws -> HLCTimestamp {
        // Clocks are stored as their bit pattern; readings stay below 2^63 until the year 4400.
        HLCTimestamp(
            rawValue: try db.rows(
                "SELECT COALESCE(max(clock), 0) FROM history WHERE server_version <= $1", [.u64(serverVersion)],
                "reading the latest clock at \(serverVersion)"
            ).first?.u64(0) ?? 0)
    }

    func client(_ fileID: UInt64) throws -> ClientRecord? {
        guard
            let row = try db.rows(
                "SELECT salt, last_client_version, user_name FROM clients WHERE file_id = $1", [.u64(fileID)],
                "reading client file \(fileID)"
            ).first
        else { return nil }
        return ClientRecord(
            fileID: fileID, salt: try row.u64(0), lastIntegratedClientVersion: try row.u64(1), user: try row.text(2))
    }

    func appendHistory(_ record: HistoryRecord) throws {
        let latest = try latestServerVersion()
        guard record.serverVersion == latest + 1 else {
            throw SyncStoreError(
                "history must stay dense: appending server version \(record.serverVersion) after \(latest)")
        }
        let c = record.original
        try db.send(
            "INSERT INTO history(server_version, client_file_id, client_version, based_on, clock, original, kept) "
                + "VALUES ($1, $2, $3, $4, $5, $6, $7)",
            [
                .u64(record.serverVersion), .u64(c.clientFileID), .u64(c.clientVersion), .u64(c.basedOnServerVersion),
                .u64(c.clock.rawValue), .bytes(StoreEncoding.encode(c)), .bytes(StoreEncoding.encode(record.kept)),
            ], "appending server version \(record.serverVersion)")
        latestVersion = record.serverVersion
    }

    func writeClient(_ record: ClientRecord) throws {
        try db.send(
            """
            INSERT INTO clients(file_id, salt, last_client_version, user_name) VALUES ($1, $2, $3, $4)
            ON CONFLICT(file_id) DO UPDATE SET salt = excluded.salt,
                last_client_version = excluded.last_client_version, user_name = excluded.user_name
            """,
            [.u64(record.fileID), .u64(record.salt), .u64(record.lastIntegratedClientVersion), .text(record.user)],
            "writing client file \(record.fileID)")
    }

    func allocateClient(salt: UInt64, user: String) throws -> UInt64 {
        // Servers sharing the store allocate one at a time: the lock is held to the commit.
        try db.query(
            "SELECT pg_advisory_xact_lock($1)", [.int(PostgresStoreSchema.clientAllocationLock)],
            "locking the allocation of a client file")
        let last =
            try db.rows("SELECT COALESCE(max(file_id), 0) FROM clients", [], "allocating a client file")
            .first?.u64(0) ?? 0
        let fileID = last + 1
        try writeClient(ClientRecord(fileID: fileID, salt: salt, lastIntegratedClientVersion: 0, user: user))
        return fileID
    }
}
