import Foundation
import RealmDatabase
import Synchronization

/// Records one `Changeset` per local commit of a synced realm, inside the commit's transaction
/// (`CommitRecorder`): the instructions, the next client version, the clock's tick, appended to
/// `_sync_history`. A throw rolls the commit back with its changeset.
///
/// While the client applies a download (`applyingDownload`) a commit of the client's own instance
/// records nothing: it only forgets the list mirrors of deleted objects and the rows the realm
/// removed on its own (the applier keeps list mirrors element by element). The flag names that
/// instance: another instance of the file opened from the same configuration (a host's script)
/// may commit while the client waits for the write lock, and its commit is recorded as usual.
final class ChangesetRecorder: CommitRecorder {
    let syncedClasses: Set<String>
    let wallClock: any WallClock
    /// The replica holds the view of its subscription set (`SyncClient.ViewSource.subscriptions`):
    /// the server decides the set's states, and a local write needs a subscription to its class.
    let requiresSubscriptions: Bool
    /// The instance applying a download, if any.
    private let applying = Mutex<ObjectIdentifier?>(nil)

    init(syncedClasses: Set<String>, wallClock: any WallClock, requiresSubscriptions: Bool = false) {
        self.syncedClasses = syncedClasses
        self.wallClock = wallClock
        self.requiresSubscriptions = requiresSubscriptions
    }

    var subscriptionsAwaitServer: Bool { requiresSubscriptions }

    /// Runs `body` (a write of the client's own, on `realm`) with recording turned off for `realm`.
    func applyingDownload<T>(on realm: Realm, _ body: () throws -> T) rethrows -> T {
        applying.withLock { $0 = ObjectIdentifier(realm) }
        defer { applying.withLock { $0 = nil } }
        return try body()
    }

    func willCommit(_ realm: Realm, changes: ChangeSet) throws {
        // A commit that changed no object (the one creating a new file, among others) records
        // nothing; it may come before the client's tables exist.
        guard !changes.isEmpty else { return }
        let store = ClientStore(realm: realm)
        if applying.withLock({ $0 == ObjectIdentifier(realm) }) {
            try refreshMirrors(realm, store: store, changes: changes)
            return
        }
        // The latest committed set, read once: what the commit may write, and the version it is made under.
        let subscriptions = requiresSubscriptions ? try realm.subscriptions : nil
        if let subscriptions { try refuseUnsubscribedWrites(changes, subscriptions) }
        let state = try store.state()
        var clock = HybridLogicalClock(last: state.lastClock)
        let reading = clock.tick(now: wallClock.nowMilliseconds())
        var ids = ElementIDSource(clock: reading, clientFileID: state.clientFileID)
        let builder = ChangesetBuilder(realm: realm, store: store, syncedClasses: syncedClasses)
        // Encoded as they are made: a commit holds its changeset's bytes, not its instructions too.
        var body = ChangesetBodyWriter()
        try builder.record(changes, ids: &ids, into: &body)
        guard !body.isEmpty else { return }
        let metadata = ChangesetMetadata(
            clientVersion: state.lastClientVersion + 1, basedOnServerVersion: state.downloadCursor, clock: reading,
            clientFileID: state.clientFileID)
        try store.appendHistory(
            clientVersion: metadata.clientVersion, encoded: ChangesetCodec.encodedData(metadata, body),
            queryVersion: subscriptions?.version ?? 0)
        if let subscriptions { try store.rememberMadeUnder(QuerySet(subscriptions)) }
        try store.setNumber(.lastClientVersion, metadata.clientVersion)
        try store.setNumber(.lastClock, reading.rawValue)
    }

    /// A write to a synced class without a subscription could never reach the server's view of
    /// this replica: it is refused, with Realm's message, and the throw rolls the commit back.
    /// Checked against the latest committed set (realm-core's write validator does the same).
    private func refuseUnsubscribedWrites(_ changes: ChangeSet, _ subscriptions: SubscriptionSet) throws {
        let written = changes.classes.filter { syncedClasses.contains($0.key) && !$0.value.isEmpty }.keys.sorted()
        guard !written.isEmpty else { return }
        let subscribed = Set(subscriptions.map(\.objectClassName))
        guard let refused = written.first(where: { !subscribed.contains($0) }) else { return }
        throw RealmError(
            .subscription, "Cannot write to class \(refused) when no flexible sync subscription has been created.")
    }

    /// After a download: the list mirrors of created, modified and deleted objects.
    private func refreshMirrors(_ realm: Realm, store: ClientStore, changes: ChangeSet) throws {
        let builder = ChangesetBuilder(realm: realm, store: store, syncedClasses: syncedClasses)
        for (className, classChanges) in changes.classes where syncedClasses.contains(className) {
            guard let schema = realm.schema[className] else { continue }
            for key in classChanges.deletions {
                try builder.forgetCollections(of: schema, key: key)
                try store.forgetUnresolved(className, key)
            }
            // A class without lists has no mirror.
            let lists = schema.persistedProperties.filter { $0.collection == .list }
            guard !lists.isEmpty else { continue }
            let touched = classChanges.insertions.sorted() + classChanges.modifications.keys.sorted()
            for key in touched {
                for property in lists {
                    try store.pruneListMirror(table: Realm.collectionTableName(className, property), owner: key)
                }
            }
        }
    }
}
