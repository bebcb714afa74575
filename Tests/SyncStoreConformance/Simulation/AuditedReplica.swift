import Foundation

@testable import RealmSync

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
        try printWatched(after: message)
        if case .download(_, _, _, _, _, _, let compensating) = message { record.delivered += compensating }
        if case .ident(_, let fileID, _) = message { record.fileID = fileID }
        return replies
    }

    func pendingUploads() throws -> [SyncMessage] { try client.pendingUploads() }

    /// `SYNC_VIEW_SIMULATION_TRACE=<client file id>` with `SYNC_VIEW_SIMULATION_WATCH=<class>:<integer
    /// key>`: after each message that file's replica applies, the watched object as it holds it and
    /// the pending instructions on it, to trace a failing seed.
    private func printWatched(after message: SyncMessage) throws {
        let environment = ProcessInfo.processInfo.environment
        guard let traced = environment["SYNC_VIEW_SIMULATION_TRACE"].flatMap({ UInt64($0) }), traced == record.fileID,
            let watch = environment["SYNC_VIEW_SIMULATION_WATCH"]?.split(separator: ":"), watch.count == 2,
            let key = Int64(watch[1])
        else { return }
        let ref = ObjectRef(String(watch[0]), .int(key))
        let object = try client.canonicalState().objects[ref].map { "\($0)" } ?? "absent"
        let pending = try ClientStore(realm: client.realm).history().map { changeset in
            "cv\(changeset.clientVersion)/\(changeset.basedOnServerVersion): \(changeset.instructions.filter { $0.object == ref })"
        }
        print("watch \(ref) after \(String(describing: message).prefix(70)): \(object); pending \(pending)")
    }

    func disconnect() { client.disconnect() }
}
