import RealmDatabase

/// The sync server's engine, without a network: sessions multiplexed on connections, uploads queued
/// and integrated in groups (one store transaction per `integratePending`), downloads and bootstraps
/// routed to each session's view (its subscriptions, within its user's read rules). Never traps on client input: every failure becomes an `error`
/// message to the session it concerns.
///
/// A restart is a new `SyncServer` on the same store: sessions must bind and identify again.
/// Not thread-safe: its owner serializes calls.
public final class SyncServer {
    let integrator: Integrator
    /// The server's state, for reads (canonical state, integration log, history).
    public let state: ServerState
    let options: SyncServerOptions
    /// The plugins' rules compiled; nil: every user reads and writes everything.
    let permissions: SyncPermissions?
    private let salts: () -> UInt64
    var sessions: [SessionKey: ServerSession] = [:]
    /// Built from the sessions' views when needed; dropped (set to nil) wherever a session is
    /// identified, changes its view, or goes.
    var sessionIndex: SessionIndex?
    /// Changes to what replicas hold, decided by download rounds, not yet recorded.
    var heldWrites: [HeldWrite] = []
    /// Per client file, the highest server version its uploads were based on: its replica had every
    /// message up to there, so what was logged before can be forgotten.
    var heldLogConfirmations: [UInt64: UInt64] = [:]
    /// Uploads waiting for the next integration, in arrival order, with the session they came on.
    var pending: [(key: SessionKey, upload: Upload)] = []
    /// On a shared store: this server's uploads in the inbox, by inbox id, not yet settled.
    var awaitingOutcomes: [UInt64: (key: SessionKey, fileID: UInt64)] = [:]
    /// On a shared store: the server version up to which this server routed the history to its
    /// sessions (`catchUp`).
    var routedThrough: UInt64 = 0
    /// The most bytes a message to a client may take encoded (a transport's frame limit): bootstraps
    /// are cut into as many batches as it takes. nil: batches are bounded by `bootstrapBatchSize`
    /// alone. An object over it alone still goes alone (the transport cannot send it, and says so).
    public var maxMessageBytes: Int?

    public init(
        store: any SyncStore, schema: Schema, wallClock: any WallClock, options: SyncServerOptions = .init(),
        permissions: SyncPermissions? = nil, salts: @escaping () -> UInt64
    ) throws {
        self.permissions = permissions
        integrator = Integrator(
            store: store, schema: schema, wallClock: wallClock, clockSkewTolerance: options.clockSkewTolerance,
            permissions: permissions)
        state = ServerState(store: store, schema: schema)
        self.options = options
        self.salts = salts
        // Fails now, not at the first message, on an unreadable store.
        routedThrough = try state.latestServerVersion()
    }

    public var hasPendingUploads: Bool { !pending.isEmpty }

    /// On a shared store: uploads of this server's sessions wait in the inbox for the integrator.
    public var awaitsIntegration: Bool { !awaitingOutcomes.isEmpty }

    /// Handles one message from a client; returns what to send.
    public func receive(_ message: SyncMessage, on connection: ConnectionID) -> [Outgoing] {
        let key = SessionKey(connection: connection, session: message.session)
        do {
            switch message {
            case .bind(_, let user, let needsClientFileID):
                return try bind(key, user: user, needsClientFileID: needsClientFileID)
            case .identify(_, let fileID, let salt, let cursor, let query):
                return try identify(key, fileID: fileID, salt: salt, cursor: cursor, query: query)
            case .query(_, let query):
                return try changeView(key, to: query)
            case .upload(_, let changesets):
                return try upload(key, changesets)
            case .mark(_, let requestID):
                return try mark(key, requestID)
            case .unbind:
                sessions[key] = nil
                sessionIndex = nil
                pending.removeAll { $0.key == key }
                return []
            case .ident, .download, .bootstrap, .error, .queryError:
                throw SyncError(.unknownMessage, "a server does not accept \(Self.name(of: message)) messages")
            }
        } catch {
            return fail(key, error)
        }
    }

    /// Forgets the connection's sessions and their uploads not yet integrated.
    public func disconnect(_ connection: ConnectionID) {
        sessions = sessions.filter { $0.key.connection != connection }
        sessionIndex = nil
        pending.removeAll { $0.key.connection == connection }
    }

    // MARK: Messages

    private func bind(_ key: SessionKey, user: String, needsClientFileID: Bool) throws -> [Outgoing] {
        guard sessions[key] == nil else { throw SyncError(.badSession, "session \(key.session) is already bound") }
        sessions[key] = ServerSession(connection: key.connection, id: key.session, user: user)
        guard needsClientFileID else { return [] }
        let salt = salts()
        let fileID = try state.allocateClient(salt: salt, user: user)
        return [
            Outgoing(
                connection: key.connection, message: .ident(session: key.session, clientFileID: fileID, salt: salt))
        ]
    }

    private func identify(_ key: SessionKey, fileID: UInt64, salt: UInt64, cursor: UInt64, query: QuerySet) throws
        -> [Outgoing]
    {
        guard var session = sessions[key], session.clientFileID == nil else {
            throw SyncError(.badSession, "session \(key.session) must be bound, and identified once")
        }
        guard let client = try state.client(fileID), client.salt == salt else {
            throw SyncError(.badClientFileIdentifier, "client file \(fileID) is unknown or its salt is wrong")
        }
        guard client.user == session.user else {
            throw SyncError(
                .userMismatch, "client file \(fileID) belongs to another user than '\(session.user)'")
        }
        // The set the replica completed last: it was accepted then; refused now only when the rules
        // changed, which ends the session with the reason.
        session.view = try SessionView.compile(query, user: session.user, rules: state.rules, permissions: permissions)
        session.clientFileID = fileID
        // Uploads of the file's earlier session (a connection whose end was not seen yet) are sent
        // again on this one: integrated after the answer to this identify, they would be missing
        // from the acknowledgement it carries, and the replica may rebase them.
        pending.removeAll { $0.upload.clientFileID == fileID }
        // On a shared store, likewise those waiting in the inbox (the integrator may have taken them
        // already: then the acknowledgement read below counts them), and the compensating writes of
        // those integrated after their session went come with this session's first download.
        let corrections = options.sharedStore ? try takeInboxOutcomes(of: fileID) : []
        let latest = try state.latestServerVersion()
        guard cursor <= latest else {
            throw SyncError(.badServerVersion, "download cursor \(cursor) is past the latest server version \(latest)")
        }
        session.downloadCursor = cursor
        var out: [Outgoing] = []
        if cursor == 0 {
            // A replica's first state is a bootstrap, and one with subscriptions uploads nothing
            // before it (it rebases what was made offline): it gets one even from an empty server,
            // or it would wait for the bootstrap of a set the server may refuse. A replica of whole
            // classes (part 1's view) starts from the first download when there is nothing to send.
            if latest > 0 || query.version > 0 || query.subscriptions.isEmpty {
                out += try bootstrap(&session, fileID: fileID)
            } else {
                try state.store.write { try $0.resetHeld(of: fileID, to: []) }
            }
        } else {
            // What was sent after where the replica stands never reached it.
            try state.store.write {
                try $0.rewindHeld(of: fileID, to: ViewPosition(serverVersion: cursor, queryVersion: query.version))
            }
        }
        sessions[key] = session
        sessionIndex = nil
        return recordHeldWritesOrFail(out + (try downloads(for: key, force: true, corrections: corrections)))
    }

    private func upload(_ key: SessionKey, _ changesets: [Changeset]) throws -> [Outgoing] {
        guard let session = sessions[key], let fileID = session.clientFileID else {
            throw SyncError(.badSession, "session \(key.session) uploaded before it identified")
        }
        if let basedOn = changesets.map(\.basedOnServerVersion).max() {
            heldLogConfirmations[fileID] = max(heldLogConfirmations[fileID] ?? 0, basedOn)
        }
        // The writer as it uploads: its user and the view its commits were made in (a client sends a
        // new subscription set between the changesets made before it and those made under it).
        let writer = permissions.map { _ in
            UploadWriter(user: session.user, view: session.view.predicates, query: session.view.query)
        }
        // A later message continues the session's last upload when made in the same view.
        if let index = pending.lastIndex(where: { $0.key == key }), pending[index].upload.writer == writer {
            pending[index].upload.changesets += changesets
        } else {
            pending.append((key, Upload(clientFileID: fileID, changesets: changesets, writer: writer)))
        }
        return []
    }

    private func mark(_ key: SessionKey, _ requestID: UInt64) throws -> [Outgoing] {
        guard sessions[key] != nil else { throw SyncError(.badSession, "session \(key.session) is not bound") }
        if pending.contains(where: { $0.key == key }) || awaitingOutcomes.values.contains(where: { $0.key == key }) {
            sessions[key]?.pendingMarks.append(requestID)
            return []
        }
        return [Outgoing(connection: key.connection, message: .mark(session: key.session, requestID: requestID))]
    }

    // MARK: Integration

    /// Integrates every queued upload in one store transaction, then sends each session what it has
    /// not seen, acknowledgements and the marks that waited for them. On a shared store the uploads
    /// go to its inbox instead (`enqueuePending`).
    public func integratePending() -> [Outgoing] {
        if options.sharedStore { return enqueuePending() }
        let batch = pending
        pending = []
        guard !batch.isEmpty else { return [] }
        var out: [Outgoing] = []
        var corrections: [SessionKey: [CompensatingWrite]] = [:]
        var integrated: [HistoryEntry]? = nil
        var latest: UInt64 = 0
        let before = (try? state.latestServerVersion()) ?? 0
        do {
            let result = try integrator.integrate(batch.map(\.upload))
            integrated = result.integrated
            latest = result.latestServerVersion
            for ((key, _), outcome) in zip(batch, result.outcomes) {
                switch outcome {
                case .refused(let error): if sessions[key] != nil { out += fail(key, error) }
                case .acknowledged(_, let compensating): corrections[key, default: []] += compensating
                }
            }
        } catch {
            // The store failed: nothing was integrated; the uploaders must reconnect and upload again.
            for key in Set(batch.map(\.key)) { out += fail(key, error) }
        }
        out += route(
            integrated: integrated, before: before, latest: latest, uploaders: Set(batch.map(\.key)),
            corrections: corrections)
        return recordHeldWritesOrFail(out)
    }

    /// Sends each session what it has not seen after an integration from `before` to `latest` that
    /// added `integrated` (nil: unknown, every session is asked), forcing a download on `uploaders`
    /// (their acknowledgement) with their `corrections`, then answers the marks that waited.
    func route(
        integrated: [HistoryEntry]?, before: UInt64, latest: UInt64, uploaders: Set<SessionKey>,
        corrections: [SessionKey: [CompensatingWrite]]
    ) -> [Outgoing] {
        // Committed: a failure to find the sessions concerned only routes them all.
        let concerned = integrated.flatMap { try? sessionsConcerned(by: $0) }
        let states = ObjectStates(rules: state.rules)
        var out: [Outgoing] = []
        for key in sessions.keys.sorted(by: Self.sessionOrder) {
            do {
                // A caught-up session no integrated change concerns only moves its cursor.
                if let concerned, !uploaders.contains(key), !concerned.contains(key),
                    sessions[key]?.downloadCursor == before
                {
                    sessions[key]?.downloadCursor = latest
                    out += answerMarks(key)
                    continue
                }
                out += try downloads(
                    for: key, force: uploaders.contains(key), corrections: corrections[key] ?? [], states: states)
            } catch {
                out += fail(key, error)
            }
            out += answerMarks(key)
        }
        return out
    }

    /// `recordHeldWrites`, then `out` is what to send. When the store fails, the sessions of the
    /// files concerned end instead of getting what `out` had for them: a replica must not apply what
    /// the server did not record it has (they identify again, and are routed from what was recorded).
    func recordHeldWritesOrFail(_ out: [Outgoing]) -> [Outgoing] {
        let files = Set(heldWrites.map(\.fileID)).union(heldLogConfirmations.keys)
        do {
            try recordHeldWrites()
            return out
        } catch {
            heldWrites = []
            heldLogConfirmations = [:]
            let keys = sessions.filter { $0.value.clientFileID.map(files.contains) ?? false }.keys
            let failed = Set(keys)
            let kept = out.filter {
                !failed.contains(SessionKey(connection: $0.connection, session: $0.message.session))
            }
            return kept
                + keys.sorted(by: Self.sessionOrder).flatMap { fail($0, error) }
        }
    }

    /// The sessions an integration may concern: those holding a changed object, and those the
    /// index finds for its new state (`SessionIndex`).
    private func sessionsConcerned(by integrated: [HistoryEntry]) throws -> Set<SessionKey> {
        if sessionIndex == nil { sessionIndex = SessionIndex(sessions) }
        guard let index = sessionIndex else { return Set(sessions.keys) }
        let touched = Set(integrated.flatMap { $0.kept.instructions.map(\.object) })
        // A file may have more than one session (a replica that reconnected before its old
        // connection was seen to drop): each is concerned.
        let byFile = Dictionary(
            grouping: sessions.compactMap { key, session in session.clientFileID.map { (file: $0, key: key) } },
            by: \.file
        ).mapValues { $0.map(\.key) }
        return try state.store.read { reader in
            var result = Set<SessionKey>()
            try reader.prefetch(Array(touched))
            for ref in touched {
                for file in try reader.holders(of: ref) { result.formUnion(byFile[file] ?? []) }
                let stored = try reader.object(ref)
                let subject = try stored.flatMap { stored in
                    stored.exists ? try SessionView.subject(ref, stored, reader, rules: state.rules) : nil
                }
                result.formUnion(index.candidates(for: ref, subject))
            }
            return result
        }
    }

    /// How many (session, class) views the routing cannot find through the index and must ask on
    /// every integration.
    public var scanSessionCount: Int {
        if sessionIndex == nil { sessionIndex = SessionIndex(sessions) }
        return sessionIndex?.scanCount ?? 0
    }

    private func answerMarks(_ key: SessionKey) -> [Outgoing] {
        guard let marks = sessions[key]?.pendingMarks, !marks.isEmpty else { return [] }
        sessions[key]?.pendingMarks = []
        return marks.map { Outgoing(connection: key.connection, message: .mark(session: key.session, requestID: $0)) }
    }

    // MARK: Errors

    /// The error message for a failure on a session; the session ends (the client binds again).
    func fail(_ key: SessionKey, _ error: any Error) -> [Outgoing] {
        let syncError = error as? SyncError ?? SyncError(.otherError, "the server failed: \(error)")
        sessions[key] = nil
        sessionIndex = nil
        pending.removeAll { $0.key == key }
        let tryAgain = syncError.code == .otherError || syncError.code == .clockTooFarAhead
        return [
            Outgoing(
                connection: key.connection,
                message: .error(
                    session: key.session, code: syncError.code, message: syncError.message, tryAgain: tryAgain))
        ]
    }

    private static func name(of message: SyncMessage) -> String {
        switch message {
        case .bind: return "bind"
        case .ident: return "ident"
        case .identify: return "identify"
        case .query: return "query"
        case .queryError: return "query error"
        case .upload: return "upload"
        case .download: return "download"
        case .bootstrap: return "bootstrap"
        case .mark: return "mark"
        case .error: return "error"
        case .unbind: return "unbind"
        }
    }
}
