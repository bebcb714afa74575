/// Several servers on one store (docs/SYNC.md "Several servers on one store"). Each server puts its
/// sessions' uploads in the store's inbox (`enqueuePending`); the one elected integrator drains it
/// (`integrateInbox`), recording each upload's outcome in the transaction that integrates it; every
/// server, told that the history moved (or on a timer), reads its uploads' outcomes and routes the
/// new history to its own sessions (`catchUp`). Which server integrates, and how the others are
/// told, is the owner's business (the network layer: an advisory lock and LISTEN/NOTIFY on
/// PostgreSQL); the engine only needs one integrator at a time, and is still right with two: the
/// history's dense versions let only one of two concurrent integrations commit.
extension SyncServer {
    /// How long a settled upload whose server never read it stays in the inbox.
    static let unreadOutcomeLifetime: UInt64 = 3_600_000

    /// Writes the queued uploads into the inbox, in one transaction. Their sessions hear back in
    /// `catchUp`; when the store fails, they end (their replicas upload again).
    func enqueuePending() -> [Outgoing] {
        let batch = pending
        pending = []
        guard !batch.isEmpty else { return [] }
        do {
            let ids = try state.store.write { transaction in
                try batch.map { key, upload in
                    try transaction.addUpload(
                        clientFileID: upload.clientFileID,
                        lastClientVersion: upload.changesets.map(\.clientVersion).max() ?? 0,
                        body: InboxCoding.body(of: upload))
                }
            }
            for ((key, upload), id) in zip(batch, ids) {
                awaitingOutcomes[id] = (key: key, fileID: upload.clientFileID)
            }
            return []
        } catch {
            return Set(batch.map(\.key)).sorted(by: Self.sessionOrder).flatMap { fail($0, error) }
        }
    }

    /// The integrator's step: integrates up to `limit` uploads of the inbox in one transaction, which
    /// also records their outcomes. Returns how many it took (0: the inbox is empty). An entry that
    /// cannot be read is settled as refused. Throws when the store fails (nothing was integrated).
    public func integrateInbox(limit: Int = 1000) throws -> Int {
        let records = try state.store.read { try $0.unsettledUploads(limit: limit) }
        guard !records.isEmpty else { return 0 }
        var uploads: [(id: UInt64, upload: Upload)] = []
        var unreadable: [(id: UInt64, error: SyncError)] = []
        for record in records {
            do {
                uploads.append((record.id, try InboxCoding.upload(from: record, compile: compileView)))
            } catch {
                let reason = error as? SyncError ?? SyncError(.otherError, "inbox upload \(record.id): \(error)")
                unreadable.append((record.id, reason))
            }
        }
        let now = integrator.wallClock.nowMilliseconds()
        try integrator.integrate(uploads.map(\.upload)) { transaction, result in
            for ((id, _), outcome) in zip(uploads, result.outcomes) {
                try transaction.settleUpload(id, outcome: InboxCoding.outcome(outcome), now: now)
            }
            for (id, error) in unreadable {
                try transaction.settleUpload(id, outcome: InboxCoding.outcome(.refused(error)), now: now)
            }
        }
        return records.count
    }

    /// Every server's step when the history may have moved: the outcomes of its uploads (refusals
    /// end their sessions; acknowledgements and compensating writes go out with the downloads),
    /// then what each session has not seen. A store that cannot be read now is read at the next call.
    public func catchUp() -> [Outgoing] {
        // Uploads whose session went: their outcomes stay in the inbox for the file's next identify
        // (`takeInboxOutcomes`), on whichever server.
        awaitingOutcomes = awaitingOutcomes.filter { sessions[$0.value.key] != nil }
        let waiting = Array(awaitingOutcomes.keys)
        guard
            let (latest, settled) = try? state.store.read({ reader in
                (try reader.latestServerVersion(), try reader.uploadOutcomes(waiting))
            })
        else { return [] }
        var out: [Outgoing] = []
        var uploaders: Set<SessionKey> = []
        var corrections: [SessionKey: [CompensatingWrite]] = [:]
        for (id, bytes) in settled.sorted(by: { $0.key < $1.key }) {
            guard let (key, _) = awaitingOutcomes.removeValue(forKey: id) else { continue }
            let outcome: UploadOutcome
            do {
                outcome = try InboxCoding.outcome(from: bytes)
            } catch {
                outcome = .refused(SyncError(.otherError, "the inbox outcome of upload \(id) cannot be read: \(error)"))
            }
            switch outcome {
            case .refused(let error): out += fail(key, error)
            case .acknowledged(_, let compensating):
                uploaders.insert(key)
                corrections[key, default: []] += compensating
            }
        }
        let now = integrator.wallClock.nowMilliseconds()
        let expired = now > Self.unreadOutcomeLifetime ? now - Self.unreadOutcomeLifetime : 0
        try? state.store.write { try $0.forgetUploads(Array(settled.keys), settledBefore: expired) }
        guard latest > routedThrough || !uploaders.isEmpty else { return out }
        let before = routedThrough
        // The changes since the last call, to ask only the sessions they concern; past a page of
        // them, every session is asked.
        let page = options.downloadBatchSize
        let integrated = try? state.store.read { try $0.history(after: before, limit: page + 1) }
        out += route(
            integrated: integrated.flatMap { $0.count > page ? nil : $0 }, before: before, latest: latest,
            uploaders: uploaders, corrections: corrections)
        routedThrough = max(routedThrough, latest)
        return recordHeldWritesOrFail(out)
    }

    /// At the identify of `fileID`: drops its uploads still in the inbox (the replica sends them
    /// again) and takes the outcomes of those integrated after their session went, returning their
    /// compensating writes (a refusal is not repeated: the replica's upload of those versions is
    /// refused again).
    func takeInboxOutcomes(of fileID: UInt64) throws -> [CompensatingWrite] {
        awaitingOutcomes = awaitingOutcomes.filter { $0.value.fileID != fileID }
        let outcomes = try state.store.write { transaction in
            try transaction.dropUnsettledUploads(of: fileID)
            let settled = try transaction.settledUploads(of: fileID)
            try transaction.forgetUploads(Array(settled.keys), settledBefore: 0)
            return settled
        }
        return outcomes.sorted { $0.key < $1.key }.flatMap { _, bytes -> [CompensatingWrite] in
            guard case .acknowledged(_, let compensating)? = try? InboxCoding.outcome(from: bytes) else { return [] }
            return compensating
        }
    }

    /// The view `user` wrote under with subscription set `query`, as the integrator checks it.
    private func compileView(user: String, query: QuerySet) throws -> [String: ViewPredicate] {
        try SessionView.compile(query, user: user, rules: state.rules, permissions: permissions).predicates
    }

    static func sessionOrder(_ a: SessionKey, _ b: SessionKey) -> Bool {
        (a.connection.rawValue, a.session) < (b.connection.rawValue, b.session)
    }
}
