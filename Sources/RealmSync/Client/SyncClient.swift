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
    /// The classes this client syncs (subscribes to), sorted.
    public let classes: [String]
    private let recorder: ChangesetRecorder
    private let wallClock: any WallClock
    private var store: ClientStore { ClientStore(realm: realm) }
    private var session: UInt32?
    /// The highest client version uploaded on this connection.
    private var sentThrough: UInt64 = 0
    /// A file that never downloaded waits, after `identify`, for the session's first download (which
    /// follows its bootstrap, if any) before it uploads: a bootstrap rebases the pending changesets,
    /// which must not be integrated yet.
    private var awaitingFirstDownload = true
    public private(set) var uploadAcknowledged: UInt64 = 0
    public private(set) var downloadCursor: UInt64 = 0

    /// Opens (creating if needed) the synced realm file at `configuration`, whose schema must be
    /// given and which may not migrate (no migration block). `classes`: the classes to sync; nil
    /// means every class with a primary key.
    public init(
        configuration: Realm.Configuration, user: String, wallClock: any WallClock, classes: [String]? = nil
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
        recorder = ChangesetRecorder(syncedClasses: Set(synced), wallClock: wallClock)
        var config = configuration
        config.commitRecorder = recorder
        realm = try Realm(configuration: config)
        // Tables are created together; one added later is created on the next open.
        let tables = try realm.querySQL(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '\\_sync\\_%' ESCAPE '\\'")
        if tables.count < ClientStore.tableCount {
            try recorder.applyingDownload { try realm.write { try store.createTables() } }
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
            return !(try realm.querySQL("SELECT 1 FROM _sync_history LIMIT 1").isEmpty)
        } catch {
            return true
        }
    }

    // MARK: Messages

    /// The messages that open `session`: a bind, then (when the file has its id) an identify.
    public func connect(session: UInt32) throws -> [SyncMessage] {
        self.session = session
        sentThrough = uploadAcknowledged
        // A bootstrap belongs to one session: the batches of an interrupted one are stale.
        if try store.hasBootstrapBatches() { try writeRemote { try store.forgetBootstrapBatches() } }
        let state = try store.state()
        awaitingFirstDownload = state.downloadCursor == 0
        guard state.clientFileID != 0 else { return [.bind(session: session, user: user, needsClientFileID: true)] }
        return [.bind(session: session, user: user, needsClientFileID: false), identify(session, state)]
    }

    private func identify(_ session: UInt32, _ state: ClientState) -> SyncMessage {
        .identify(
            session: session, clientFileID: state.clientFileID, salt: state.salt, downloadCursor: state.downloadCursor,
            query: .allObjects(of: classes))
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
            try adopt(clientFileID: clientFileID, salt: salt)
            return [identify(session, try store.state())]
        case .download(_, let cursor, let acknowledged, let changesets, _, _, _):
            try applyDownload(cursor: cursor, acknowledged: acknowledged, changesets: changesets)
            awaitingFirstDownload = false
            return []
        case .bootstrap(_, let serverVersion, let latestClock, let acknowledged, let objects, let isLast, _, _, _):
            try receiveBootstrap(
                Bootstrap(serverVersion: serverVersion, latestClock: latestClock, acknowledged: acknowledged),
                objects: objects, isLast: isLast)
            return []
        case .mark(let session, let requestID):
            return try pendingUploads() + [.mark(session: session, requestID: requestID)]
        case .error(_, let code, let message, _):
            throw SyncError(code, "The server ended the session: \(message)")
        case .queryError(_, let version, let message):
            throw SyncError(.badQuery, "The server refused subscription set \(version): \(message)")
        case .bind, .identify, .query, .upload, .unbind:
            throw SyncError(.unknownMessage, "A client does not accept a \(message) message")
        }
    }

    /// Uploads of the local changesets not yet sent on this connection (none before the file has its id).
    public func pendingUploads() throws -> [SyncMessage] {
        guard let session, !awaitingFirstDownload, try store.number(.clientFileID) != 0 else { return [] }
        let changesets = try store.history(after: max(sentThrough, uploadAcknowledged))
        guard let last = changesets.last else { return [] }
        sentThrough = last.clientVersion
        return [.upload(session: session, changesets: changesets)]
    }

    // MARK: Applying

    /// Runs `body` in one write transaction of the client's own, recording no changeset.
    private func writeRemote(_ body: () throws -> Void) throws {
        try recorder.applyingDownload { try realm.write(body) }
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

    private func applyDownload(cursor: UInt64, acknowledged: UInt64, changesets: [IntegratedChangeset]) throws {
        try writeRemote {
            let state = try store.state()
            var applier = DownloadApplier(
                realm: realm, store: store, syncedClasses: Set(classes), pending: try store.history())
            var clock = HybridLogicalClock(last: state.lastClock)
            for changeset in changesets where changeset.serverVersion > state.downloadCursor {
                // The server decided this changeset after the local ones up to `recipientClientVersion`:
                // only the later ones are pending relative to it.
                try applier.forgetPending { $0 <= changeset.recipientClientVersion }
                try applier.apply(changeset.origin)
                clock.observe(changeset.origin.clock)
            }
            try applier.finish(acknowledged: acknowledged)
            try store.setNumber(.lastClock, clock.last.rawValue)
            try store.setNumber(.downloadCursor, max(cursor, state.downloadCursor))
            try store.setNumber(.uploadAcknowledged, max(acknowledged, state.uploadAcknowledged))
            try store.trimHistory(through: acknowledged)
        }
    }

    /// What a bootstrap message says besides its objects.
    private struct Bootstrap {
        var serverVersion: UInt64
        var latestClock: HLCTimestamp
        var acknowledged: UInt64
    }

    /// Batches are stored aside; the last one applies them all, in one transaction. First the
    /// pending changesets (none of them integrated: nothing is uploaded before the first download)
    /// are rebased after the bootstrap (`PendingRewrite.rebase`); then each object is applied as a
    /// remote create (and collection inserts) at time zero: a pending local write wins, as it will
    /// when it reaches the server. Local objects the snapshot lacks and no pending changeset
    /// creates are gone on the server: deleted. Then the cursor is the bootstrap's version.
    private func receiveBootstrap(_ bootstrap: Bootstrap, objects: [ObjectSnapshot], isLast: Bool) throws {
        try writeRemote {
            try store.appendBootstrapBatch(serverVersion: bootstrap.serverVersion, objects)
            guard isLast else { return }
            let snapshot = try store.takeBootstrapObjects()
            let acknowledged = max(bootstrap.acknowledged, try store.number(.uploadAcknowledged))
            var clock = HybridLogicalClock(last: HLCTimestamp(rawValue: try store.number(.lastClock)))
            clock.observe(bootstrap.latestClock)
            try PendingRewrite(store: store).rebase(
                try store.history(after: acknowledged), onto: bootstrap.serverVersion, clock: &clock,
                now: wallClock.nowMilliseconds())
            try store.setNumber(.lastClock, clock.last.rawValue)
            try store.trimHistory(through: acknowledged)
            try store.setNumber(.uploadAcknowledged, acknowledged)
            var applier = DownloadApplier(
                realm: realm, store: store, syncedClasses: Set(classes), pending: try store.history())
            try applier.apply(
                Changeset(
                    clientVersion: 0, basedOnServerVersion: bootstrap.serverVersion, clock: .zero, clientFileID: 0,
                    instructions: snapshot.flatMap(Self.instructions)))
            try applier.deleteObjects(notIn: Set(snapshot.map(\.object)))
            try applier.removeEntries(notIn: snapshot)
            try applier.finish(acknowledged: acknowledged)
            try store.setNumber(.downloadCursor, max(bootstrap.serverVersion, try store.number(.downloadCursor)))
        }
    }

    private static func instructions(_ snapshot: ObjectSnapshot) -> [Instruction] {
        let o = snapshot.object
        var result: [Instruction] = [.create(o, fields: snapshot.fields)]
        for list in snapshot.lists {
            // The replica may have the element already (this file's insert, integrated): the insert is
            // a repeat, so the snapshot's position and value follow as a move and a set at time zero
            // (no-ops where they are the replica's already; skipped behind a pending move or set).
            result += list.elements.flatMap { element -> [Instruction] in
                [
                    .listInsert(
                        o, field: list.field, element: element.id, position: element.position, value: element.value),
                    .listMove(o, field: list.field, element: element.id, position: element.position),
                    .listSet(o, field: list.field, element: element.id, value: element.value),
                ]
            }
        }
        for set in snapshot.sets { result += set.values.map { .setAdd(o, field: set.field, value: $0) } }
        for map in snapshot.maps {
            result += map.entries.map { .mapPut(o, field: map.field, key: $0.name, value: $0.value) }
        }
        return result
    }

    // MARK: Dump

    /// Every object of the synced classes in canonical form (docs/SYNC.md; `CanonicalState`).
    public func canonicalState() throws -> CanonicalState {
        var objects: [ObjectRef: [SyncField]] = [:]
        for className in classes {
            for object in try realm.objects(className) {
                var fields = try SyncValueConversion.fields(of: object)
                // A link the server holds to an object this replica does not have reads null here.
                if let key = object.objectKey {
                    let unresolved = try store.unresolved(className, key)
                    for i in fields.indices { if let ref = unresolved[fields[i].name] { fields[i].value = .link(ref) } }
                }
                objects[try SyncValueConversion.ref(of: object)] = fields
            }
        }
        return CanonicalState(objects: objects)
    }
}
