import RealmSync

/// A replica's endpoint as the transport sees it, counting the compensating writes delivered to
/// it in downloads it applied; its error handler must have been told of exactly those. Both lists
/// outlive a crash of the client (a new `SyncClient` on the same file gets a new wrapper sharing them).
final class AuditedReplica: SyncClientEndpoint {
    /// What one replica was sent and told, across its client's restarts.
    final class Record {
        var delivered: [CompensatingWrite] = []
        var handled: [CompensatingWrite] = []
        /// The client file id the server allocated (0 until then), for failure reports.
        var fileID: UInt64 = 0
    }

    let client: SyncClient
    let record: Record

    init(_ client: SyncClient, record: Record) {
        self.client = client
        self.record = record
    }

    func connect(session: UInt32) throws -> [SyncMessage] { try client.connect(session: session) }

    func receive(_ message: SyncMessage) throws -> [SyncMessage] {
        let replies = try client.receive(message)
        if case .download(_, _, _, _, _, _, let compensating) = message { record.delivered += compensating }
        if case .ident(_, let fileID, _) = message { record.fileID = fileID }
        return replies
    }

    func pendingUploads() throws -> [SyncMessage] { try client.pendingUploads() }

    func disconnect() { client.disconnect() }
}
