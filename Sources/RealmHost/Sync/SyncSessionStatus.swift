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
        let (waiting, pending, cursor, version, setState, subscriptions) = handle.withEndpoint { endpoint in
            let set = try? endpoint.client.realm.subscriptions
            let described = set?.map { s in
                "\(s.name ?? "(unnamed)"): \(s.objectClassName) where \(s.queryString)"
            }
            return (
                endpoint.client.hasUnacknowledgedChanges, endpoint.client.pendingCommitCount,
                endpoint.client.downloadCursor, set?.version ?? 0, set?.state.rawValue ?? "unreadable", described ?? []
            )
        }
        return SyncSessionStatus(
            file: file, server: server, state: state, connection: connectionState,
            lastConnectionError: lastConnectionError, sessionError: sessionError, waitingForUpload: waiting,
            commitsWaitingForUpload: pending, downloadedThrough: cursor, subscriptionSetVersion: version,
            subscriptionState: setState, subscriptions: subscriptions)
    }
}
