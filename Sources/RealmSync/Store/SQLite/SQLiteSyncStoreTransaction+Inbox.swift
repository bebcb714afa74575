import RealmDatabase

/// The inbox of uploads (docs/SYNC.md "Several servers on one store"). SQLite serves one machine,
/// but several servers in one process may share a file; the tests of the shared path run on it.
extension SQLiteSyncStoreTransaction {

    func unsettledUploads(limit: Int) throws -> [InboxUpload] {
        try db.storedRows(
            StoreStatements.unsettledUploads.sqlite,
            [.integer(Int64(max(0, limit)))]
        ).map { try $0.inboxUpload() }
    }

    func uploadOutcomes(_ ids: [UInt64]) throws -> [UInt64: [UInt8]] {
        var result: [UInt64: [UInt8]] = [:]
        for id in ids {
            if let row = try db.row(
                "SELECT outcome FROM inbox WHERE id = ? AND settled_at IS NOT NULL", [.u64(id)]),
                let outcome = row[0].byteArray
            {
                result[id] = outcome
            }
        }
        return result
    }

    func settledUploads(of fileID: UInt64) throws -> [UInt64: [UInt8]] {
        var result: [UInt64: [UInt8]] = [:]
        for row in try db.rows(
            StoreStatements.settledUploads.sqlite, [.u64(fileID)])
        {
            result[row[0].u64] = row[1].byteArray ?? []
        }
        return result
    }

    func addUpload(clientFileID: UInt64, lastClientVersion: UInt64, body: [UInt8]) throws -> UInt64 {
        try db.run(
            "INSERT OR IGNORE INTO inbox(client_file_id, last_client_version, body) VALUES (?, ?, ?)",
            [.u64(clientFileID), .u64(lastClientVersion), .bytes(body)])
        let row = try db.row(
            "SELECT id FROM inbox WHERE client_file_id = ? AND last_client_version = ?",
            [.u64(clientFileID), .u64(lastClientVersion)])
        guard let id = row?.first?.u64 else {
            throw SyncStoreError("the upload of client file \(clientFileID) was not kept in the inbox")
        }
        return id
    }

    func settleUpload(_ id: UInt64, outcome: [UInt8], now: UInt64) throws {
        try db.run(
            StoreStatements.settleUpload.sqlite,
            [.bytes(outcome), .u64(now), .u64(id)])
    }

    func dropUnsettledUploads(of fileID: UInt64) throws {
        try db.run(StoreStatements.dropUnsettledUploads.sqlite, [.u64(fileID)])
    }

    func forgetUploads(_ ids: [UInt64], settledBefore: UInt64) throws {
        for id in ids { try db.run("DELETE FROM inbox WHERE id = ? AND settled_at IS NOT NULL", [.u64(id)]) }
        try db.run("DELETE FROM inbox WHERE settled_at < ?", [.u64(settledBefore)])
    }
}
