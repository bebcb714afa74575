/// What the server sends a session: bootstraps from state, and downloads of what other clients
/// wrote to its view.
extension SyncServer {
    /// The session's view as of one server version, in `bootstrap` messages of at most
    /// `bootstrapBatchSize` objects, for a replica that never downloaded; the session's cursor moves
    /// to that version and the replica holds exactly those objects.
    func bootstrap(_ session: inout ServerSession, fileID: UInt64) throws -> [Outgoing] {
        let view = session.view
        let user = session.user
        let batchSize = options.bootstrapBatchSize
        // Read and recorded in one transaction: the held set is what was read, and the objects the
        // snapshot found are not looked up again to be written.
        let (serverVersion, latestClock, batches) = try state.store.write { transaction in
            let snapshot = try state.snapshot(view: view, user: user, batchSize: batchSize, transaction)
            try transaction.resetHeld(of: fileID, to: snapshot.batches.joined().map(\.object))
            return snapshot
        }
        let acknowledged = try state.highestClientVersion(of: fileID, atOrBelow: serverVersion)
        session.downloadCursor = serverVersion
        let count = Double(batches.count)
        return batches.enumerated().map { index, objects in
            Outgoing(
                connection: session.connection,
                message: .bootstrap(
                    session: session.id, serverVersion: serverVersion, latestClock: latestClock,
                    uploadAcknowledged: acknowledged, objects: objects,
                    isLast: index == batches.count - 1, progress: Double(index + 1) / count,
                    queryVersion: session.view.queryVersion))
        }
    }

    /// `download` messages carrying the history after the session's cursor that other clients wrote
    /// to its view, at most `downloadBatchSize` changesets each, routed by `ViewRouter`; the last one
    /// also carries the objects sent whole, the removals, and `corrections` (this client's writes the
    /// server refused). A message goes out when it carries something, when the acknowledgement
    /// moved, or when `force` asks for one (the uploader gets its ack; an identify gets its state).
    /// `states`: the objects as already read in this call of the server, shared by its rounds.
    func downloads(
        for key: SessionKey, force: Bool, corrections: [CompensatingWrite] = [], states: ObjectStates? = nil
    ) throws -> [Outgoing] {
        let states = states ?? ObjectStates(rules: state.rules)
        guard var session = sessions[key], let fileID = session.clientFileID else { return [] }
        defer { sessions[key] = session }
        let round = try state.store.read { reader in
            try downloadRound(session, fileID: fileID, corrections: corrections, states: states, reader)
        }
        let position = ViewPosition(serverVersion: round.cursor, queryVersion: session.view.queryVersion)
        for (ref, change) in round.heldChanges.sorted(by: { $0.key < $1.key }) {
            heldWrites.append(
                HeldWrite(fileID: fileID, ref: ref, held: change.held, at: change.logged ? position : nil))
        }
        session.downloadCursor = round.cursor
        var pages = round.pages
        let hasCorrections = !round.replacements.isEmpty || !round.removals.isEmpty || !corrections.isEmpty
        if pages.isEmpty && (force || hasCorrections || round.acknowledged != session.acknowledged) {
            pages.append(DownloadPage(cursor: round.cursor, acknowledged: round.acknowledged, changesets: []))
        }
        session.acknowledged = round.acknowledged
        return pages.enumerated().map { index, page in
            let isLast = index == pages.count - 1
            return Outgoing(
                connection: session.connection,
                message: .download(
                    session: session.id, downloadCursor: page.cursor, uploadAcknowledged: page.acknowledged,
                    changesets: page.changesets, replacements: isLast ? round.replacements : [],
                    removals: isLast ? round.removals : [], compensating: isLast ? corrections : []))
        }
    }

    /// Records what the rounds since the last call changed in what replicas hold, in one store
    /// transaction (one fsync for every session of an integration). Routing reads a file's own
    /// records only, and each file is routed once per round, so the writes can wait until then.
    func recordHeldWrites() throws {
        guard !heldWrites.isEmpty || !heldLogConfirmations.isEmpty else { return }
        let writes = heldWrites
        let confirmations = heldLogConfirmations
        heldWrites = []
        heldLogConfirmations = [:]
        try state.store.write { transaction in
            for (fileID, basedOn) in confirmations { try transaction.forgetHeldLog(of: fileID, before: basedOn) }
            for write in writes { try transaction.setHeld(write.fileID, write.ref, write.held, at: write.at) }
        }
    }

    /// One `download` message's worth of history.
    struct DownloadPage {
        var cursor: UInt64
        var acknowledged: UInt64
        var changesets: [IntegratedChangeset]
    }

    /// What one round of downloads sends a session, read in one read transaction.
    struct DownloadRound {
        var pages: [DownloadPage] = []
        var cursor: UInt64
        var acknowledged: UInt64
        var replacements: [ObjectSnapshot] = []
        var removals: [ObjectRef] = []
        var heldChanges: [ObjectRef: (held: Bool, logged: Bool)] = [:]
    }

    private func downloadRound(
        _ session: ServerSession, fileID: UInt64, corrections: [CompensatingWrite], states: ObjectStates,
        _ reader: any SyncStoreReader
    ) throws -> DownloadRound {
        var router = ViewRouter(
            reader: reader, view: session.view, user: session.user, fileID: fileID, cursor: session.downloadCursor,
            states: states)
        for write in corrections { try router.correct(write.object) }
        // The highest client version of the session's file integrated at or below the cursor: read
        // once, then moved by the file's own entries as the pages go by (a file's client versions
        // rise with the server version), so no entry costs a query.
        var round = DownloadRound(
            cursor: session.downloadCursor,
            acknowledged: try reader.highestClientVersion(of: fileID, atOrBelow: session.downloadCursor))
        var lastSent = session.acknowledged
        while true {
            let page = try reader.history(after: round.cursor, limit: options.downloadBatchSize)
            guard let last = page.last else { break }
            round.cursor = last.serverVersion
            var changesets: [IntegratedChangeset] = []
            for entry in page {
                if entry.kept.clientFileID == fileID {
                    round.acknowledged = entry.kept.clientVersion
                    // Its own writes can move objects into or out of its view.
                    for instruction in entry.kept.instructions {
                        _ = try router.route(instruction.object)
                    }
                } else if let changeset = try routed(entry, &router, recipientClientVersion: round.acknowledged) {
                    changesets.append(changeset)
                }
            }
            if !changesets.isEmpty || round.acknowledged != lastSent {
                round.pages.append(
                    DownloadPage(cursor: round.cursor, acknowledged: round.acknowledged, changesets: changesets))
                lastSent = round.acknowledged
            }
            if page.count < options.downloadBatchSize { break }
        }
        // Pages without changesets after the last one with some only moved the cursor: the last
        // page sent must carry the final cursor, which the held changes are recorded at.
        if var final = round.pages.popLast() {
            final.cursor = round.cursor
            final.acknowledged = round.acknowledged
            round.pages.append(final)
        }
        for ref in router.replaced {
            guard let objectSchema = state.rules.schema[ref.className] else { continue }
            round.replacements.append(try state.snapshot(of: ref, objectSchema, reader))
        }
        round.removals = router.removed
        round.heldChanges = router.heldChanges
        return round
    }

    /// Another file's history entry as the session sees it: the instructions on objects routed by
    /// their instructions, the bare creates and erases of tombstones; nil when nothing is left. It names the session's last changeset
    /// integrated before it (`recipientClientVersion`), which the client must not count as pending
    /// against it.
    private func routed(_ entry: HistoryEntry, _ router: inout ViewRouter, recipientClientVersion: UInt64) throws
        -> IntegratedChangeset?
    {
        var origin = entry.kept
        origin.instructions = try origin.instructions.compactMap { instruction in
            switch try router.route(instruction.object) {
            case .instructions: return instruction
            case .tombstone:
                if case .create(let ref, _) = instruction { return .create(ref, fields: []) }
                if case .erase = instruction { return instruction }
                return nil
            case .replace, .remove, .drop: return nil
            }
        }
        guard !origin.instructions.isEmpty else { return nil }
        return IntegratedChangeset(
            serverVersion: entry.serverVersion, origin: origin, recipientClientVersion: recipientClientVersion)
    }
}
