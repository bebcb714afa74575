import RealmSync

/// The inbox of several servers sharing the store (docs/SYNC.md "Several servers on one store"), as
/// the SQLite store keeps it. Adding an upload notifies the integrator, settling one every server;
/// PostgreSQL delivers a notification at the commit, once per channel and transaction.
extension PostgresSyncStoreTransaction {

    func unsettledUploads(limit: Int) throws -> [InboxUpload] {
        try select(
            StoreStatements.unsettledUploads.postgres,
            [.int(Int64(max(0, limit)))], "reading the inbox"
        ).map { try $0.inboxUpload() }
    }

    func uploadOutcomes(_ ids: [UInt64]) throws -> [UInt64: [UInt8]] {
        guard !ids.isEmpty else { return [:] }
        return try outcomes(
            "SELECT id, outcome FROM inbox WHERE id = ANY($1) AND settled_at IS NOT NULL",
            [.ints(ids.map { Int64(bitPattern: $0) })], "reading the outcomes of \(ids.count) uploads")
    }

    func settledUploads(of fileID: UInt64) throws -> [UInt64: [UInt8]] {
        try outcomes(
            StoreStatements.settledUploads.postgres, [.u64(fileID)],
            "reading the settled uploads of client file \(fileID)")
    }

    func addUpload(clientFileID: UInt64, lastClientVersion: UInt64, body: [UInt8]) throws -> UInt64 {
        let what = "putting the upload of client file \(clientFileID) in the inbox"
        // An upload kept already answers with its id (the no-op update makes RETURNING see it).
        let id = try select(
            """
            INSERT INTO inbox(client_file_id, last_client_version, body) VALUES ($1, $2, $3)
            ON CONFLICT (client_file_id, last_client_version) DO UPDATE SET client_file_id = excluded.client_file_id
            RETURNING id
            """,
            [.u64(clientFileID), .u64(lastClientVersion), .bytes(body)], what
        ).first?.u64(0)
        guard let id else { throw SyncStoreError("\(what): PostgreSQL returned no id") }
        try notify(PostgresStoreSchema.inboxChannel)
        return id
    }

    func settleUpload(_ id: UInt64, outcome: [UInt8], now: UInt64) throws {
        try execute(
            StoreStatements.settleUpload.postgres,
            [.bytes(outcome), .u64(now), .u64(id)],
            "recording the outcome of upload \(id)")
        try notify(PostgresStoreSchema.historyChannel)
    }

    func dropUnsettledUploads(of fileID: UInt64) throws {
        try execute(
            StoreStatements.dropUnsettledUploads.postgres, [.u64(fileID)],
            "dropping the unsettled uploads of client file \(fileID)")
    }

    func forgetUploads(_ ids: [UInt64], settledBefore: UInt64) throws {
        try execute(
            "DELETE FROM inbox WHERE settled_at IS NOT NULL AND (id = ANY($1) OR settled_at < $2)",
            [.ints(ids.map { Int64(bitPattern: $0) }), .u64(settledBefore)], "forgetting settled uploads")
    }

    private func outcomes(_ sql: String, _ values: [PostgresValue], _ what: String) throws -> [UInt64: [UInt8]] {
        var result: [UInt64: [UInt8]] = [:]
        for row in try select(sql, values, what) { result[try row.u64(0)] = try row.bytes(1) ?? [] }
        return result
    }

    private func notify(_ channel: String) throws {
        try execute("SELECT pg_notify($1, '')", [.text(channel)], "notifying \(channel)")
    }
}
