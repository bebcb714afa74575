import Foundation
import RealmSync

/// The audit tap: the server as the transport sees it, with everything in and out watched. From
/// the messages alone it follows each session (user, client file, subscription set in force) and
/// records the writer of each uploaded changeset as the server does (the session's set when its
/// upload message arrived); after each integration it feeds the audit the new history;
/// it shows the audit everything the server sends.
final class AuditingServer: SyncServerEndpoint {
    private struct Key: Hashable {
        var connection: ConnectionID
        var session: UInt32
    }

    private struct Session {
        var user: String
        var fileID: UInt64?
        var subscriptions: [String: ViewPredicate] = [:]
    }

    let server: any SyncServerEndpoint
    /// The server's state (a cluster's servers share one).
    let state: ServerState
    private let audit: ViewAudit
    private var sessions: [Key: Session] = [:]
    /// Per client file, the writer of each changeset waiting for the next integration, by client
    /// version (the first upload of a version counts: a repeat is skipped by the server).
    private var pendingWriters: [UInt64: [UInt64: OracleWriter]] = [:]
    /// Several servers on one store: the writers of the uploads put in the inbox, which outlive
    /// their sessions and go only when their file identifies again (the server drops its
    /// unsettled uploads then) or once integrated. Nil for one server.
    private(set) var inboxWriters: [UInt64: [UInt64: OracleWriter]]?
    /// `SYNC_VIEW_SIMULATION_TRACE=<client file id>`: every message to and from that file is
    /// printed, to trace a failing seed.
    private let tracedFile = ProcessInfo.processInfo.environment["SYNC_VIEW_SIMULATION_TRACE"].flatMap { UInt64($0) }

    /// `inbox`: several servers on one store, and the writers of what their inbox holds (the inbox
    /// outlives the servers' processes); nil: one server.
    init(
        _ server: any SyncServerEndpoint, state: ServerState, audit: ViewAudit,
        inbox: [UInt64: [UInt64: OracleWriter]]? = nil
    ) {
        self.server = server
        self.state = state
        inboxWriters = inbox
        self.audit = audit
    }

    func receive(_ message: SyncMessage, on connection: ConnectionID) -> [Outgoing] {
        let key = Key(connection: connection, session: message.session)
        trace("<-", message, key)
        switch message {
        case .bind(_, let user, _):
            if sessions[key] == nil { sessions[key] = Session(user: user) }
        case .identify(_, let fileID, _, _, let query):
            sessions[key]?.fileID = fileID
            inboxWriters?[fileID] = nil
            trace("<-", message, key)
            sessions[key]?.subscriptions = subscriptions(query)
        case .upload(_, let changesets):
            if let session = sessions[key], let fileID = session.fileID {
                let writer = OracleWriter(user: session.user, subscriptions: session.subscriptions)
                for changeset in changesets where pendingWriters[fileID]?[changeset.clientVersion] == nil {
                    pendingWriters[fileID, default: [:]][changeset.clientVersion] = writer
                }
            }
        case .unbind:
            forgetPendingWriters(of: key)
            sessions[key] = nil
        default:
            break
        }
        let out = server.receive(message, on: connection)
        // A refused set leaves the session's view as it was.
        if case .query(_, let query) = message, !out.contains(where: { $0.isQueryError(for: key.session) }) {
            sessions[key]?.subscriptions = subscriptions(query)
        }
        return watched(out)
    }

    func integratePending() -> [Outgoing] {
        var writers = pendingWriters
        pendingWriters = [:]
        if var inbox = inboxWriters {
            // Every server puts what it received in the inbox first; the first writer of a
            // version stays (the inbox keeps an upload sent twice once, and integrates in order).
            for (file, byVersion) in writers { inbox[file, default: [:]].merge(byVersion) { first, _ in first } }
            writers = inbox
        }
        let log = (try? state.latestServerVersion()) ?? 0
        let out = server.integratePending()
        audit.integrated(state, writers: writers)
        if inboxWriters != nil {
            inboxWriters = writers
            // What was integrated leaves the inbox.
            for entry in (try? state.integrationLog(after: log)) ?? [] {
                inboxWriters?[entry.changeset.clientFileID]?[entry.changeset.clientVersion] = nil
            }
        }
        return watched(out)
    }

    func disconnect(_ connection: ConnectionID) {
        for key in sessions.keys where key.connection == connection { forgetPendingWriters(of: key) }
        sessions = sessions.filter { $0.key.connection != connection }
        server.disconnect(connection)
    }

    /// The server forgets a session's uploads not yet integrated when the session ends.
    private func forgetPendingWriters(of key: Key) {
        if let fileID = sessions[key]?.fileID { pendingWriters[fileID] = nil }
    }

    private func subscriptions(_ query: QuerySet) -> [String: ViewPredicate] {
        guard let compiled = audit.subscriptions(of: query) else {
            audit.violation("the server accepted subscription set \(query.version), which is outside the subset")
            return [:]
        }
        return compiled
    }

    /// Shows the audit each message; an error ends its session (and its pending upload) on the server.
    private func watched(_ out: [Outgoing]) -> [Outgoing] {
        for delivery in out {
            let key = Key(connection: delivery.connection, session: delivery.message.session)
            trace("->", delivery.message, key)
            if case .error = delivery.message {
                forgetPendingWriters(of: key)
                sessions[key] = nil
                continue
            }
            guard let session = sessions[key] else { continue }
            audit.sent(delivery.message, to: session.user, fileID: session.fileID)
        }
        return out
    }
}

extension AuditingServer {
    private func trace(_ direction: String, _ message: SyncMessage, _ key: Key) {
        guard let tracedFile, sessions[key]?.fileID == tracedFile else { return }
        print("trace file \(tracedFile) at server version \(audit.oracle.serverVersion) \(direction) \(message)")
    }
}

extension Outgoing {
    fileprivate func isQueryError(for session: UInt32) -> Bool {
        if case .queryError(session, _, _) = message { return true }
        return false
    }
}
