import Foundation
import RealmDatabase
import RealmLua

/// What the REPL's `.sync` shows of one of a tenant's sessions.
public struct SyncSessionStatus: Sendable {
    /// The realm file, relative to the data folder.
    public var file: String
    public var server: String
    /// `active` or `inactive` (paused).
    public var state: String
    /// `disconnected`, `connecting` or `connected`.
    public var connection: String
    public var lastConnectionError: String?
    public var sessionError: String?
    /// Whether local commits wait for the server's acknowledgement.
    public var waitingForUpload: Bool
    /// How many (nil: the file could not be read).
    public var commitsWaitingForUpload: Int?
    /// The server version the file has downloaded through.
    public var downloadedThrough: UInt64
    /// The latest subscription set's version and state, and its subscriptions (`name: Class where
    /// query`; unnamed ones `(unnamed): …`), each in its set's state as in Realm.
    public var subscriptionSetVersion: Int64
    public var subscriptionState: String
    public var subscriptions: [String]
    /// The same subscriptions, each by its parts (the REPL's `.subs`).
    public var subscriptionEntries: [SyncSubscriptionStatus]
    /// The session's latest errors, a line per write the server undid, oldest first.
    public var recentErrors: [String]
}

/// One subscription of a synced realm's latest set.
public struct SyncSubscriptionStatus: Sendable, Equatable {
    /// nil: unnamed.
    public var name: String?
    public var className: String
    public var query: String
}

extension Tenant {
    /// The tenant's sync sessions, by file: none when the host has no sync server or no script
    /// opened a flexible-sync realm yet.
    public var syncStatus: [SyncSessionStatus] { (runtime.syncProvider as? TenantSyncProvider)?.status ?? [] }
}

extension TenantSyncProvider {
    var status: [SyncSessionStatus] {
        sessions.sorted { $0.key < $1.key }.map { path, session in
            session.status(file: (path as NSString).lastPathComponent, server: serverURL)
        }
    }
}

extension TenantSyncSession {
    func status(file: String, server: String) -> SyncSessionStatus {
        let (waiting, pending, cursor, version, setState, entries) = handle.withEndpoint { endpoint in
            let set = try? endpoint.client.realm.subscriptions
            let entries = set?.map { s in
                SyncSubscriptionStatus(name: s.name, className: s.objectClassName, query: s.queryString)
            }
            return (
                endpoint.client.hasUnacknowledgedChanges, endpoint.client.pendingCommitCount,
                endpoint.client.downloadCursor, set?.version ?? 0, set?.state.rawValue ?? "unreadable", entries ?? []
            )
        }
        let subscriptions = entries.map { "\($0.name ?? "(unnamed)"): \($0.className) where \($0.query)" }
        return SyncSessionStatus(
            file: file, server: server, state: state, connection: connectionState,
            lastConnectionError: lastConnectionError, sessionError: sessionError, waitingForUpload: waiting,
            commitsWaitingForUpload: pending, downloadedThrough: cursor, subscriptionSetVersion: version,
            subscriptionState: setState, subscriptions: subscriptions, subscriptionEntries: entries,
            recentErrors: recentErrorLines)
    }
}
