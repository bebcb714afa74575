import RealmDatabase

/// How a replica takes what the server sends (a download, a first bootstrap, a new view), inside the
/// client's write transaction: one applier over the pending changesets, one clock that observes what
/// arrives, and at the end one rule for the cursors. Every apply path opens one and closes it, so the
/// cursors move the same way whatever arrived; a client reset is the one other writer of the cursors
/// (`restart`), and it sets them back to a file that never synced.
///
/// Invariants kept by `close`: the download cursor and the upload acknowledgement never move back;
/// the clock is at least every time the replica has seen; no changeset the server acknowledges stays
/// pending or in the history.
struct ReplicaAdvance {
    let store: ClientStore
    /// The replica's state when the advance was opened (the cursors it must not move back).
    let before: ClientState
    /// The server version the replica holds once this advance is closed.
    let serverVersion: UInt64
    /// The highest client version of this file the server has integrated in what arrived.
    let acknowledged: UInt64
    /// Applies what arrived; opened over every stored changeset, since a download's changesets were
    /// each decided against the local ones before their own `recipientClientVersion`.
    var applier: DownloadApplier
    /// Observes every time that arrives: a write made after this advance is later than all of them.
    var clock: HybridLogicalClock

    /// `clock`: one that has already observed something (a first bootstrap's rebase); nil starts
    /// from the replica's last clock.
    init(
        realm: Realm, store: ClientStore, syncedClasses: Set<String>, serverVersion: UInt64, acknowledged: UInt64,
        clock: HybridLogicalClock? = nil
    ) throws {
        self.store = store
        before = try store.state()
        self.serverVersion = serverVersion
        self.acknowledged = acknowledged
        applier = DownloadApplier(
            realm: realm, store: store, syncedClasses: syncedClasses, pending: try store.history())
        self.clock = clock ?? HybridLogicalClock(last: before.lastClock)
    }

    /// The pending changesets the server acknowledges stop counting as pending now, before the
    /// server's state of the objects is applied: that state includes them.
    mutating func forgetAcknowledged() throws {
        try applier.forgetPending { $0 <= acknowledged }
    }

    /// Ends the advance: the applier stores the changesets still pending, the clock is kept, the
    /// cursors move forward (never back), and the acknowledged changesets leave the history.
    mutating func close() throws {
        try applier.finish(acknowledged: acknowledged)
        try store.setNumber(.lastClock, clock.last.rawValue)
        try store.setNumber(.downloadCursor, max(serverVersion, before.downloadCursor))
        try store.setNumber(.uploadAcknowledged, max(acknowledged, before.uploadAcknowledged))
        try store.trimHistory(through: acknowledged)
    }

    /// A client reset: the file forgets its sync identity (client file id, salt, cursors, deferred
    /// erases, stored bootstrap batches) and is again a file that never synced, whose next
    /// `lastClientVersion` commits are the ones it keeps pending.
    static func restart(_ store: ClientStore, lastClientVersion: UInt64) throws {
        for name in [ClientState.Name.clientFileID, .salt, .downloadCursor, .uploadAcknowledged] {
            try store.setNumber(name, 0)
        }
        try store.setNumber(.lastClientVersion, lastClientVersion)
        try store.realm.executeSQL("DELETE FROM _sync_deferred_erase")
        try store.forgetBootstrapBatches()
    }
}
