import Foundation
import RealmDatabase

/// The client side of sync for one realm file, without a network: it turns local commits into
/// changesets (recorded inside each commit by `ChangesetRecorder`), produces the messages to send,
/// and applies what the server sends (docs/SYNC.md).
///
/// Everything it knows is in the file (`_sync_*` tables): a new client on the same file resumes
/// where the last one stopped, re-sending what was not acknowledged. Only what was sent on the
/// current connection is kept in memory.
///
/// Client file id: commits made before the server allocated one carry the provisional id 0 (in
/// their changesets and in the ids of the list elements they inserted). Only this file can have
/// made them, so they stay unique; the `ident` that brings the real id rewrites them all, in one
/// transaction, before anything is uploaded.
public final class SyncClient: SyncClientEndpoint {
    /// The replica's realm: local writes go through it as usual.
    public let realm: Realm
    public let user: String
    /// The classes this client syncs, sorted.
    public let classes: [String]
    /// Which objects of `classes` the replica holds.
    public let viewSource: SyncViewSource
    /// Told of the writes the server refused and reverted (after the correction is applied) and of
    /// client resets.
    let errorHandler: ((SyncError, [CompensatingWrite]) -> Void)?
    /// What the file does when the server asks for a client reset (`ClientReset.swift`).
    public let clientResetMode: ClientResetMode
    /// The reset the server asked for in `manual` mode: the session stays stopped.
    public internal(set) var clientResetRequired: SyncError?
    /// After an automatic reset, until the new `ident`: the server ended the session, and answers
    /// what was sent before the new bind with `badSession` errors, which are expected.
    var rebindingAfterReset = false
    /// Every compensating write received, in arrival order (also given to `errorHandler`).
    public private(set) var compensatingWrites: [CompensatingWrite] = []
    private let recorder: ChangesetRecorder
    private let wallClock: any WallClock
    var store: ClientStore { ClientStore(realm: realm, decoded: decodedHistory) }
    /// The pending changesets as last decoded: a download reads them all (`DecodedHistory`).
    let decodedHistory = DecodedHistory()
    var session: UInt32?
    /// The highest client version uploaded on this connection.
    private var sentThrough: UInt64 = 0
    /// A file that never downloaded waits, after `identify`, for the session's first download (which
    /// follows its bootstrap, if any) before it uploads: a bootstrap then rebases the pending
    /// changesets, which must not be integrated yet. With subscriptions it waits for the bootstrap,
    /// which the server always sends such a file first: a download at cursor 0 does not end the wait,
    /// or the bootstrap of a set sent with it could rebase changesets uploaded meanwhile.
    private var awaitingFirstDownload = true
    /// The highest subscription set version sent (or active) on this connection, and those sent:
    /// the one the server completes becomes the active set.
    private var queriedThrough: Int64 = 0
    private var sentQueries: [Int64: QuerySet] = [:]
    public private(set) var uploadAcknowledged: UInt64 = 0
    public private(set) var downloadCursor: UInt64 = 0
    /// The fraction (0…1) of the bootstrap arriving on this connection, as its last batch said; nil
    /// before a bootstrap (`Realm.asyncOpen` reports it as its `progress` state).
    public private(set) var bootstrapProgress: Double?
    /// The most bytes an upload message may take encoded (a transport's frame limit): the changesets
    /// pending are split into as many uploads as it takes. nil: one upload carries them all. A
    /// changeset over it alone still goes alone (the transport cannot send it, and says so).
    public var maxUploadBytes: Int?

    /// Opens (creating if needed) the synced realm file at `configuration`, whose schema must be
    /// given and which may not migrate (no migration block). `classes`: the classes to sync; nil
    /// means every class with a primary key. `viewSource`: every object of them (the default), or
    /// the realm's subscription set. `errorHandler`: told of compensating writes and client resets.
    public init(
        configuration: Realm.Configuration, user: String, wallClock: any WallClock, classes: [String]? = nil,
        viewSource: SyncViewSource = .allObjects, clientResetMode: ClientResetMode = .recoverUnsyncedChanges,
        errorHandler: ((SyncError, [CompensatingWrite]) -> Void)? = nil
    ) throws {
        guard let schema = configuration.schema else {
            throw SyncError(.badQuery, "A synced realm needs its schema in the configuration")
        }
        // A migration's transaction records no changeset: its changes would never reach the server.
        if configuration.migrationBlock != nil || configuration.deleteRealmIfMigrationNeeded {
            throw SyncError(
                .invalidSchemaChange,
                "A synced realm cannot be migrated (part 1): remove the migration block and deleteRealmIfMigrationNeeded"
            )
        }
        let synced = try Self.syncedClasses(schema, requested: classes)
        self.classes = synced
        self.user = user
        self.wallClock = wallClock
        self.viewSource = viewSource
        self.errorHandler = errorHandler
        self.clientResetMode = clientResetMode
        recorder = ChangesetRecorder(
            syncedClasses: Set(synced), wallClock: wallClock, requiresSubscriptions: viewSource == .subscriptions)
        var config = configuration
        config.commitRecorder = recorder
        realm = try Realm(configuration: config)
        // Tables are created together; one added later (or a column, or one dropped) on the next open.
        let tables = try realm.querySQL(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '\\_sync\\_%' ESCAPE '\\'")
        let names = Set(tables.compactMap { if case .text(let name)? = $0.first { name } else { nil } })
        let upgrade = try store.needsUpgrade()
        if !ClientStore.tableNames.isSubset(of: names) || upgrade {
            try recorder.applyingDownload(on: realm) { try realm.write { try store.createTables() } }
        }
        try loadState()
    }

    private static func syncedClasses(_ schema: Schema, requested: [String]?) throws -> [String] {
        guard let requested else {
            return schema.objectSchemas.filter { !$0.isEmbedded && $0.primaryKey != nil }.map(\.className).sorted()
        }
        for name in requested {
            guard let object = schema[name] else {
                throw SyncError(.badQuery, "Cannot subscribe to '\(name)': the schema has no such class")
            }
            guard !object.isEmbedded, object.primaryKey != nil else {
                throw SyncError(.badQuery, "Cannot subscribe to '\(name)': a class without a primary key does not sync")
            }
        }
        return Array(Set(requested)).sorted()
    }

    private func loadState() throws {
        let state = try store.state()
        uploadAcknowledged = state.uploadAcknowledged
        downloadCursor = state.downloadCursor
    }

    /// True when local changesets wait for the server's acknowledgement. An unreadable file
    /// answers true: nothing may be assumed delivered.
    public var hasUnacknowledgedChanges: Bool {
        do {
            return try store.hasHistory(after: 0)
        } catch {
            return true
        }
    }

    /// How many local commits wait for the server's acknowledgement (the REPL's `.sync`, the
    /// `users` listing); nil when the file cannot be read.
    public var pendingCommitCount: Int? { try? store.historyCount() }

    /// True while another instance of this process is in a write transaction on the file (a
    /// script's open `beginWrite`): applying a download now would wait for it.
    public var isBusy: Bool { realm.isWriteHeldByAnotherInstance }

    // MARK: Messages

    /// The messages that open `session`: a bind, then (when the file has its id) an identify.
    public func connect(session: UInt32) throws -> [SyncMessage] {
        guard clientResetRequired == nil else { return [] }
        self.session = session
        bootstrapProgress = nil
        sentThrough = uploadAcknowledged
        // A bootstrap belongs to one session: the batches of an interrupted one are stale.
        if try store.hasBootstrapBatches() {
            try writeRemote {
                try store.forgetBootstrapBatches()
                try realm.markSubscriptionsBootstrapping(nil)
            }
        }
        let state = try store.state()
        awaitingFirstDownload = state.downloadCursor == 0
        // A version the server refused is not asked for again; a newer one is.
        queriedThrough = max(try store.activeQuerySet().version, try realm.subscriptionProgress().errorVersion ?? 0)
        sentQueries = [:]
        guard state.clientFileID != 0 else { return [.bind(session: session, user: user, needsClientFileID: true)] }
        // Changesets made before a newer set go first (`pendingUploads` sends the set between them).
        let hasPending = try store.hasHistory(after: uploadAcknowledged)
        let uploadsFirst = !awaitingFirstDownload && hasPending
        return [.bind(session: session, user: user, needsClientFileID: false), try identify(session, state)]
            + (uploadsFirst ? [] : try newerQuery(session))
    }

    private func identify(_ session: UInt32, _ state: ClientState) throws -> SyncMessage {
        .identify(
            session: session, clientFileID: state.clientFileID, salt: state.salt, downloadCursor: state.downloadCursor,
            query: viewSource == .allObjects ? .allObjects(of: classes) : try store.activeQuerySet())
    }

    /// The next subscription set to send, when one is newer than what this connection sent (once
    /// per version): before the first download, only the set the first changeset still to send was
    /// made under (the uploads wait for the first download, then `pendingUploads` sends each later
    /// set before the writes made under it), else the latest.
    private func newerQuery(_ session: UInt32) throws -> [SyncMessage] {
        guard viewSource == .subscriptions else { return [] }
        if awaitingFirstDownload, let first = try store.firstQueryVersion(after: uploadAcknowledged, above: 0) {
            guard first > queriedThrough, let query = try store.madeUnder(first) else { return [] }
            return [send(query, session)]
        }
        let latest = try realm.subscriptions
        guard latest.version > queriedThrough else { return [] }
        return [send(QuerySet(latest), session)]
    }

    private func send(_ query: QuerySet, _ session: UInt32) -> SyncMessage {
        queriedThrough = query.version
        sentQueries[query.version] = query
        return .query(session: session, query: query)
    }

    /// Forgets what this connection sent; the next `connect` sends the unacknowledged changesets again.
    public func disconnect() {
        session = nil
        sentThrough = 0
    }

    /// Applies a message from the server; returns the messages to send in reply.
    public func receive(_ message: SyncMessage) throws -> [SyncMessage] {
        switch message {
        case .ident(let session, let clientFileID, let salt):
            rebindingAfterReset = false
            try adopt(clientFileID: clientFileID, salt: salt)
            return [try identify(session, try store.state())] + (try newerQuery(session))
        case .download(
            _, let cursor, let acknowledged, let changesets, let replacements, let removals, let compensating):
            try applyDownload(
                cursor: cursor, acknowledged: acknowledged, changesets: changesets,
                view: ViewCorrection(replacements: replacements, removals: removals))
            if viewSource != .subscriptions || cursor > 0 { awaitingFirstDownload = false }
            report(compensating)
            return []
        case .bootstrap(
            _, let serverVersion, let latestClock, let acknowledged, let objects, let isLast, let progress,
            let queryVersion, let removals):
            // The server's figure is input: kept within 0…1 (NaN counts as nothing yet).
            bootstrapProgress = isLast ? 1 : progress.isNaN ? 0 : min(max(progress, 0), 1)
            try receiveBootstrap(
                Bootstrap(
                    serverVersion: serverVersion, latestClock: latestClock, acknowledged: acknowledged,
                    queryVersion: queryVersion),
                batch: ViewCorrection(replacements: objects, removals: removals), isLast: isLast)
            return []
        case .mark(let session, let requestID):
            return try pendingUploads() + [.mark(session: session, requestID: requestID)]
        case .error(let session, let code, let message, _):
            if let replies = try answerReset(session: session, SyncError(code, message)) { return replies }
            throw SyncError(code, "The server ended the session: \(message)")
        case .queryError(_, let version, let message):
            guard viewSource == .subscriptions else {
                throw SyncError(.badQuery, "The server refused subscription set \(version): \(message)")
            }
            // The set goes to `error`; the session goes on with the active view.
            try writeRemote { try realm.markSubscriptionsError(version, message: message) }
            return []
        case .bind, .identify, .query, .upload, .unbind:
            throw SyncError(.unknownMessage, "A client does not accept a \(message) message")
        }
    }

    /// Uploads of the local changesets not yet sent on this connection (none before the file has its id).
    /// Each subscription set a changeset was made under goes as a `query` message before it, when
    /// this connection has not sent it yet, and the latest set after them (realm-core's order: every
    /// pending set, in order): the server judges each write under the view it was made in, even
    /// after several sets made offline, or recovered by a client reset.
    public func pendingUploads() throws -> [SyncMessage] {
        guard let session, try store.number(.clientFileID) != 0 else { return [] }
        guard !awaitingFirstDownload else { return try newerQuery(session) }
        let after = max(sentThrough, uploadAcknowledged)
        let history = try store.historyWithQueryVersions(after: after)
        var messages: [SyncMessage] = []
        var run: [Changeset] = []
        for (changeset, version) in history {
            if viewSource == .subscriptions, version > queriedThrough, let query = try store.madeUnder(version) {
                messages += uploads(session, run)
                run = []
                messages.append(send(query, session))
            }
            run.append(changeset)
        }
        messages += uploads(session, run)
        if let last = history.last { sentThrough = last.changeset.clientVersion }
        return messages + (try newerQuery(session))
    }

    /// `changesets` in order, in uploads of at most `maxUploadBytes` each (none when empty).
    private func uploads(_ session: UInt32, _ changesets: [Changeset]) -> [SyncMessage] {
        guard let budget = maxUploadBytes else {
            return changesets.isEmpty ? [] : [.upload(session: session, changesets: changesets)]
        }
        var messages: [SyncMessage] = []
        var batch: [Changeset] = []
        var batchBytes = 0
        for changeset in changesets {
            // Each changeset measured as an upload of its own: a few bytes over its share, never under.
            let bytes = SyncMessageCodec.encode(.upload(session: session, changesets: [changeset])).count
            if !batch.isEmpty && batchBytes + bytes > budget {
                messages.append(.upload(session: session, changesets: batch))
                batch = []
                batchBytes = 0
            }
            batch.append(changeset)
            batchBytes += bytes
        }
        if !batch.isEmpty { messages.append(.upload(session: session, changesets: batch)) }
        return messages
    }

    // MARK: Applying

    /// Runs `body` in one write transaction of the client's own, recording no changeset.
    func writeRemote(_ body: () throws -> Void) throws {
        try recorder.applyingDownload(on: realm) { try realm.write(body) }
        try loadState()
    }

    private func adopt(clientFileID: UInt64, salt: UInt64) throws {
        guard clientFileID != 0 else {
            throw SyncError(.badClientFileIdentifier, "The server allocated the client file id 0")
        }
        try writeRemote {
            let current = try store.number(.clientFileID)
            guard current == 0 || current == clientFileID else {
                throw SyncError(
                    .badClientFileIdentifier, "The file already has client file id \(current), not \(clientFileID)")
            }
            try store.setNumber(.clientFileID, clientFileID)
            try store.setNumber(.salt, salt)
            try PendingRewrite(store: store).provisional(clientFileID: clientFileID)
        }
    }

    /// Objects the server sends whole and objects it removes from the replica: a bootstrap's, or a
    /// download's corrections (objects entering or leaving the view, compensating writes).
    private struct ViewCorrection {
        var replacements: [ObjectSnapshot]
        var removals: [ObjectRef]
    }

    private func applyDownload(
        cursor: UInt64, acknowledged: UInt64, changesets: [IntegratedChangeset], view: ViewCorrection
    ) throws {
        try writeRemote {
            var advance = try openAdvance(to: cursor, acknowledged: acknowledged)
            for changeset in changesets where changeset.serverVersion > advance.before.downloadCursor {
                // The server decided this changeset after the local ones up to `recipientClientVersion`:
                // only the later ones are pending relative to it.
                try advance.applier.forgetPending { $0 <= changeset.recipientClientVersion }
                try advance.applier.apply(changeset.origin)
                advance.clock.observe(changeset.origin.clock)
            }
            try apply(view, with: &advance)
            try advance.close()
        }
    }

    private func openAdvance(
        to serverVersion: UInt64, acknowledged: UInt64, clock: HybridLogicalClock? = nil
    ) throws -> ReplicaAdvance {
        try ReplicaAdvance(
            realm: realm, store: store, syncedClasses: Set(classes), serverVersion: serverVersion,
            acknowledged: acknowledged, clock: clock)
    }

    /// The server's state of the objects as of the advance's server version, which includes this
    /// file's changesets through its `acknowledged`: those are no longer pending, so the server's
    /// state wins over theirs (a refused write is reverted); later pending writes still win.
    private func apply(_ view: ViewCorrection, with advance: inout ReplicaAdvance) throws {
        guard !view.replacements.isEmpty || !view.removals.isEmpty else { return }
        try advance.forgetAcknowledged()
        try advance.applier.replace(with: view.replacements, at: advance.serverVersion)
        try advance.applier.remove(view.removals)
        for object in view.replacements { advance.clock.observe(object.latestClock) }
    }

    /// Compensating writes, once their corrections are committed: kept, and given to the handler.
    private func report(_ compensating: [CompensatingWrite]) {
        guard !compensating.isEmpty else { return }
        compensatingWrites += compensating
        let objects = compensating.map { "\($0.object): \($0.reason)" }.joined(separator: "; ")
        errorHandler?(
            SyncError(.compensatingWrite, "The server reverted writes it does not allow: \(objects)"), compensating)
    }

    /// What a bootstrap message says besides its objects.
    private struct Bootstrap {
        var serverVersion: UInt64
        var latestClock: HLCTimestamp
        var acknowledged: UInt64
        var queryVersion: Int64
    }

    /// Batches are stored aside; the last one applies them all, in one transaction: to a file that
    /// never downloaded, as its first state (`applyFirstBootstrap`); to one that did, as the change
    /// of its view to a new subscription set (`applyViewChange`). Then that set is complete.
    private func receiveBootstrap(_ bootstrap: Bootstrap, batch: ViewCorrection, isLast: Bool) throws {
        try writeRemote {
            try store.appendBootstrapBatch(
                serverVersion: bootstrap.serverVersion, batch.replacements, removals: batch.removals)
            guard isLast else {
                if viewSource == .subscriptions { try realm.markSubscriptionsBootstrapping(bootstrap.queryVersion) }
                return
            }
            let stored = try store.takeBootstrap()
            let view = ViewCorrection(replacements: stored.objects, removals: stored.removals)
            // To a file at cursor 0 the server sends its whole view, not a difference (its record of
            // what the replica holds starts again from it). It rebases only when this connection sent
            // nothing the bootstrap does not acknowledge: then none of the pending changesets is
            // integrated (the server drops what an ended connection left unintegrated).
            let wholeView = try store.number(.downloadCursor) == 0
            let unsent = sentThrough <= max(bootstrap.acknowledged, try store.number(.uploadAcknowledged))
            if wholeView && unsent {
                try applyFirstBootstrap(bootstrap, snapshot: view.replacements)
            } else {
                try applyViewChange(bootstrap, view, wholeView: wholeView)
            }
            if viewSource == .subscriptions { try complete(queryVersion: bootstrap.queryVersion) }
        }
        if isLast { awaitingFirstDownload = false }
    }

    /// First the pending changesets (none of them integrated: this connection sent none, and the
    /// server dropped what earlier ones left unintegrated) are rebased after the bootstrap
    /// (`PendingRewrite.rebase`); then each object is applied as a remote create (and collection
    /// inserts) at time zero: a pending local write wins, as it will when it reaches the server.
    /// Local objects the snapshot lacks and no pending changeset creates are gone on the server:
    /// deleted. Then the cursor is the bootstrap's version.
    private func applyFirstBootstrap(_ bootstrap: Bootstrap, snapshot: [ObjectSnapshot]) throws {
        let acknowledged = max(bootstrap.acknowledged, try store.number(.uploadAcknowledged))
        var clock = HybridLogicalClock(last: HLCTimestamp(rawValue: try store.number(.lastClock)))
        clock.observe(bootstrap.latestClock)
        try PendingRewrite(store: store).rebase(
            try store.history(after: acknowledged), onto: bootstrap.serverVersion, clock: &clock,
            now: wallClock.nowMilliseconds())
        var advance = try openAdvance(to: bootstrap.serverVersion, acknowledged: acknowledged, clock: clock)
        try advance.forgetAcknowledged()
        try advance.applier.apply(DownloadApplier.changeset(of: snapshot, at: bootstrap.serverVersion))
        try advance.applier.deleteObjects(notIn: Set(snapshot.map(\.object)))
        try advance.applier.removeEntries(notIn: snapshot)
        try advance.close()
    }

    /// A new subscription set's bootstrap to a replica that has downloaded: objects entering the
    /// view are applied whole, those leaving it deleted, as of the bootstrap's server version. The
    /// pending changesets are not rebased: the server has integrated the ones it acknowledges (in
    /// the snapshot), and the others, made on this replica's view, stay as they are. `wholeView`:
    /// the bootstrap is the whole view (to a file at cursor 0 that sent changesets on this
    /// connection, so it cannot rebase): the local objects it lacks go too, unless a pending
    /// changeset creates them.
    private func applyViewChange(_ bootstrap: Bootstrap, _ view: ViewCorrection, wholeView: Bool) throws {
        let acknowledged = max(bootstrap.acknowledged, try store.number(.uploadAcknowledged))
        var advance = try openAdvance(to: bootstrap.serverVersion, acknowledged: acknowledged)
        advance.clock.observe(bootstrap.latestClock)
        try apply(view, with: &advance)
        if wholeView {
            try advance.forgetAcknowledged()
            try advance.applier.deleteObjects(notIn: Set(view.replacements.map(\.object)))
        }
        try advance.close()
    }

    /// The server completed subscription set `queryVersion`: it is the active set (sent by the next
    /// `identify`), complete, and the older ones superseded.
    private func complete(queryVersion: Int64) throws {
        if queryVersion > (try store.activeQuerySet().version) {
            guard let query = sentQueries[queryVersion] else {
                throw SyncError(
                    .badQuery, "The server completed subscription set \(queryVersion), which this session did not send")
            }
            try store.setActiveQuerySet(query)
        }
        try realm.markSubscriptionsComplete(queryVersion)
    }

    // MARK: Dump

    /// Every object of the synced classes in canonical form (docs/SYNC.md; `CanonicalState`).
    public func canonicalState() throws -> CanonicalState {
        var objects: [ObjectRef: [SyncField]] = [:]
        let links = UnresolvedLinks(realm: realm, store: store, syncedClasses: Set(classes))
        let linksWait = try store.hasUnresolved()
        for className in classes {
            for object in try realm.objects(className) {
                var fields = try SyncValueConversion.fields(of: object)
                // A link the server holds to an object this replica does not have is not in the realm.
                if linksWait, let key = object.objectKey {
                    fields = try links.serverFields(fields, of: object, key: key)
                }
                objects[try SyncValueConversion.ref(of: object)] = fields
            }
        }
        return CanonicalState(objects: objects)
    }
}

extension QuerySet {
    /// A realm's subscription set as the server receives it.
    init(_ set: SubscriptionSet) {
        self.init(
            version: set.version,
            subscriptions: set.map { SubscriptionQuery(className: $0.objectClassName, query: $0.queryString) })
    }
}

/// Which objects a replica holds.
public enum SyncViewSource: Hashable, Sendable {
    /// Every object of its classes (part 1's view): `identify` sends `QuerySet.allObjects`.
    case allObjects
    /// The objects of the realm's subscription set (`realm.subscriptions`): the server completes
    /// each committed version, and a write to a class without a subscription is refused.
    case subscriptions
}
