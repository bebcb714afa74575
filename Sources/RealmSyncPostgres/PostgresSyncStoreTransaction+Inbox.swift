import RealmSync

/// The inbox of uploads of several servers on one store (docs/SYNC.md "Several servers on one
/// store"), as the SQLite store keeps it: any server adds, the integrator settles, each server reads
/// and forgets the outcomes of its own.
extension PostgresSyncStoreTransaction {
    func unsettledUploads(limit: Int) throws -> [InboxUpload] {
        try db.rows(
            "SELECT id, client_file_id, body FROM inbox WHERE settled_at IS NULL ORDER BY id LIMIT $1",
            [.int(Int64(max(0, limit)))], "reading the inbox"
        ).map { InboxUpload(id: try $0.u64(0), clientFileID: try $0.u64(1), body: try $0.bytes(2) ?? []) }
    }

    func uploadOutcomes(_ ids: [UInt64]) throws -> [UInt64: [UInt8]] {
        guard !ids.isEmpty else { return [:] }
        var result: [UInt64: [UInt8]] = [:]
        for row in try db.rows(
            "SELECT id, outcome FROM inbox WHERE id = ANY($1) AND settled_at IS NOT NULL",
            [.ints(ids.map { Int64(bitPattern: $0) })], "reading the outcomes of \(ids.count) uploads")
        {
            if let outcome = try row.bytes(1) { result[try row.u64(0)] = outcome }
        }
        return result
    }

    func settledUploads(of fileID: UInt64) throws -> [UInt64: [UInt8]] {
        var result: [UInt64: [UInt8]] = [:]
        for row in try db.rows(
            "SELECT id, outcome FROM inbox WHERE client_file_id = $1 AND settled_at IS NOT NULL", [.u64(fileID)],
            "reading the settled uploads of file \(fileID)")
        {
            result[try row.u64(0)] = try row.bytes(1) ?? []
        }
        return result
    }

    func addUpload(clientFileID: UInt64, lastClientVersion: UInt64, body: [UInt8]) throws -> UInt64 {
        // The same upload twice (sent again after a reconnection) is kept once: its first id.
        let rows = try db.rows(
            """
            WITH added AS (
                INSERT INTO inbox(client_file_id, last_client_version, body) VALUES ($1, $2, $3)
                ON CONFLICT(client_file_id, last_client_version) DO NOTHING RETURNING id)
            SELECT id FROM added UNION ALL
            SELECT id FROM inbox WHERE client_file_id = $1 AND last_client_version = $2
            """, [.u64(clientFileID), .u64(lastClientVersion), .bytes(body)],
            "adding an upload of file \(clientFileID) to the inbox")
        guard let id = try rows.first?.u64(0) else {
            throw SyncStoreError("the upload of client file \(clientFileID) was not kept in the inbox")
        }
        return id
    }

    func settleUpload(_ id: UInt64, outcome: [UInt8], now: UInt64) throws {
        try db.query(
            "UPDATE inbox SET outcome = $1, settled_at = $2 WHERE id = $3", [.bytes(outcome), .u64(now), .u64(id)],
            "settling upload \(id)")
    }

    func dropUnsettledUploads(of fileID: UInt64) throws {
        try db.query(
            "DELETE FROM inbox WHERE client_file_id = $1 AND settled_at IS NULL", [.u64(fileID)],
            "dropping the unsettled uploads of file \(fileID)")
    }

    func forgetUploads(_ ids: [UInt64], settledBefore: UInt64) throws {
        try db.query(
            "DELETE FROM inbox WHERE settled_at IS NOT NULL AND (id = ANY($1) OR settled_at < $2)",
            [.ints(ids.map { Int64(bitPattern: $0) }), .u64(settledBefore)], "forgetting settled uploads")
    }
}
