import Foundation
import RealmDatabase

/// What a replica does when the server says its file cannot continue with it (realm-core's client
/// reset): the server does not know the file (its store was replaced), or the file has downloaded
/// past the server's latest version (its store was restored from a backup). Realm's modes.
public enum ClientResetMode: String, Hashable, Sendable, CaseIterable {
    /// The pending changesets stay and are uploaded again, after the server's state, as new
    /// commits of a new client file: the replica ends with the server's state and its own writes.
    case recoverUnsyncedChanges
    /// The pending changesets are forgotten: the replica ends with the server's state.
    case discardUnsyncedChanges
    /// Nothing changes: the session stops and the error handler is told; the application decides.
    case manual
}

extension SyncErrorCode {
    /// The server's errors that ask for a client reset (realm-core's `ProtocolError`s whose action
    /// is `ClientReset`). Our server sends the first two; the others are realm-core's for the same
    /// situations (a trimmed history would be `clientFileExpired`).
    var requestsClientReset: Bool {
        switch self {
        case .badClientFileIdentifier, .badServerVersion, .divergingHistories, .clientFileExpired: return true
        default: return false
        }
    }
}

/// Resets a replica's file in the caller's write transaction (so a failure leaves the file as it
/// was): it forgets its sync identity (client file id, salt, cursors, deferred erases, bootstrap
/// batches) and starts again as a file that never synced; the next `ident` gives it a new id and its
/// first bootstrap makes it the server's view. The synced objects that no pending changeset creates
/// are dropped now: the server's view (or its first download, when its store is empty) brings back
/// what it still has.
struct ClientReset {
    let realm: Realm
    let store: ClientStore
    let syncedClasses: Set<String>

    /// `discardUnsyncedChanges`: no pending changeset stays, so every synced object goes. The
    /// subscriptions made since the server's last complete set (`active`) go too: the set becomes
    /// that one again, as a new version, and the offline sets read superseded once it completes
    /// (realm-core's flx "DiscardLocal: offline writes and subscriptions are lost"). nil: the view
    /// is every object, subscriptions play no part.
    func discard(returningTo active: QuerySet?) throws {
        try store.realm.executeSQL("DELETE FROM _sync_history")
        try ReplicaAdvance.restart(store, lastClientVersion: 0)
        try applier(pending: []).deleteObjects(notIn: [])
        if let active { try returnSubscriptions(to: active) }
    }

    /// The subscriptions made `active`'s (the ones on its queries keep their names; the others go;
    /// a query of it no subscription holds any more comes back unnamed), in one new version; nothing
    /// when they are already.
    private func returnSubscriptions(to active: QuerySet) throws {
        let set = try realm.subscriptions
        let key = { (className: String, query: String) in className + "\u{1F}" + query }
        let wanted = Set(active.subscriptions.map { key($0.className, $0.query) })
        let current = set.map { key($0.objectClassName, $0.queryString) }
        guard Set(current) != wanted || current.count != wanted.count else { return }
        try set.update { mutable in
            for subscription in mutable.subscriptions
            where !wanted.contains(key(subscription.objectClassName, subscription.queryString)) {
                if let name = subscription.name {
                    try mutable.remove(named: name)
                } else {
                    try mutable.removeUnnamed(ofType: subscription.objectClassName, where: subscription.queryString)
                }
            }
            for query in active.subscriptions where mutable.first(ofType: query.className, where: query.query) == nil {
                try mutable.append(QuerySubscription(className: query.className, query: query.query))
            }
        }
    }

    /// `recoverUnsyncedChanges`: the pending changesets become the commits of a file that never had
    /// an id (client versions from 1, the provisional id 0 in them and in the elements they
    /// inserted, based on server version 0), as if made offline: `ident` gives them the new id and
    /// the first bootstrap rebases them (`PendingRewrite`). The objects they create stay; the
    /// others go until the server's view brings them back (with the pending writes replayed on them).
    func recover() throws {
        let pending = try renumberedHistory()
        try ReplicaAdvance.restart(store, lastClientVersion: UInt64(pending.count))
        try applier(pending: pending).deleteObjects(notIn: [])
    }

    private func applier(pending: [Changeset]) -> DownloadApplier {
        DownloadApplier(realm: realm, store: store, syncedClasses: syncedClasses, pending: pending)
    }

    /// The stored history renumbered from 1 under the provisional id, each changeset keeping the
    /// subscription set version it was made under; the list mirror follows the element ids.
    private func renumberedHistory() throws -> [Changeset] {
        let stored = try store.historyWithQueryVersions(after: 0)
        let fileID = try store.number(.clientFileID)
        // A clock names one commit of this file: the elements a pending commit inserted carry it.
        let clocks = Set(stored.map(\.changeset.clock))
        let element = { (e: ElementID) -> ElementID in
            guard e.clientFileID == fileID, clocks.contains(e.clock) else { return e }
            return ElementID(clock: e.clock, clientFileID: 0, index: e.index)
        }
        try realm.executeSQL("DELETE FROM _sync_history")
        var renumbered: [Changeset] = []
        for (index, entry) in stored.enumerated() {
            var changeset = entry.changeset
            changeset.clientVersion = UInt64(index + 1)
            changeset.clientFileID = 0
            changeset.basedOnServerVersion = 0
            changeset.instructions = changeset.instructions.map { PendingRewrite.rewrite($0, element) }
            try store.appendHistory(
                clientVersion: changeset.clientVersion, encoded: Data(ClientEncodings.encode(changeset)),
                queryVersion: entry.queryVersion)
            renumbered.append(changeset)
        }
        try PendingRewrite(store: store).rewriteMirror(element)
        return renumbered
    }
}

extension SyncClient {
    /// The replies to a server's `error` that concerns client resets; nil for any other error (it
    /// ends the session).
    func answerReset(session: UInt32, _ error: SyncError) throws -> [SyncMessage]? {
        if error.code.requestsClientReset { return try resetClient(session: session, cause: error) }
        // The server ended the session at the reset: what was sent before it (uploads in flight)
        // is answered with `badSession`, expected until the new `ident` (or for good, in `manual`).
        if error.code == .badSession && (rebindingAfterReset || clientResetRequired != nil) { return [] }
        return nil
    }

    /// The server asked for a client reset (`cause`): done as `clientResetMode` says, and the error
    /// handler told. After an automatic reset the session starts again on this connection (the
    /// server ended it): a new bind asks for a new client file id. In `manual` mode nothing changes
    /// and the session stays stopped (no retry) until a new `SyncClient` opens the file.
    func resetClient(session: UInt32, cause: SyncError) throws -> [SyncMessage] {
        let reason = "the server said: \(cause.message) (sync error \(cause.code.rawValue))"
        let mode = clientResetMode
        guard mode != .manual else {
            let error = SyncError(
                .clientReset,
                "Client reset required (manual mode): \(reason); the file is unchanged, the session stopped")
            clientResetRequired = error
            self.session = nil
            errorHandler?(error, [])
            return []
        }
        try writeRemote {
            let reset = ClientReset(realm: realm, store: store, syncedClasses: Set(classes))
            if mode == .discardUnsyncedChanges {
                try reset.discard(returningTo: viewSource == .allObjects ? nil : try store.activeQuerySet())
            } else {
                try reset.recover()
            }
        }
        let kept = mode == .discardUnsyncedChanges ? "unsynced changes discarded" : "unsynced changes kept"
        errorHandler?(SyncError(.clientReset, "Client reset (\(mode.rawValue)): \(reason); \(kept)"), [])
        let messages = try connect(session: session)
        rebindingAfterReset = true
        return messages
    }
}
