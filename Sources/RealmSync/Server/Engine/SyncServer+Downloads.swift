/// What the server sends a session: bootstraps from state, and downloads of what other clients
/// wrote to its view.
extension SyncServer {
    /// The session's view as of one server version, in `bootstrap` messages cut by
    /// `bootstrapBatches`, for a replica that never downloaded; the session's cursor moves
    /// to that version and the replica holds exactly those objects.
    func bootstrap(_ session: inout ServerSession, fileID: UInt64) throws -> [Outgoing] {
        let view = session.view
        let user = session.user
        let batchSize = options.bootstrapBatchSize
        // Read and recorded in one transaction: the held set is what was read, and the objects the
        // snapshot found are not looked up again to be written.
        let (serverVersion, latestClock, objects) = try state.store.write { transaction in
            let snapshot = try state.snapshot(view: view, user: user, batchSize: batchSize, transaction)
            let objects = Array(snapshot.batches.joined())
            try transaction.resetHeld(of: fileID, to: objects.map(\.object))
            return (snapshot.serverVersion, snapshot.latestClock, objects)
        }
        let batches = bootstrapBatches(objects)
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
        for (ref, change) in round.heldChanges.sorted(by: { $0.key < $1.key }) {
            let position = ViewPosition(
                serverVersion: change.page ?? round.cursor, queryVersion: session.view.queryVersion)
            heldWrites.append(HeldWrite(fileID: fileID, ref: ref, held: change.held, at: position))
        }
        session.downloadCursor = round.cursor
        var pages = round.pages
        let hasCorrections = !round.replacements.isEmpty || !round.removals.isEmpty || !corrections.isEmpty
        if pages.isEmpty && (force || hasCorrections || round.acknowledged != session.acknowledged) {
            pages.append(DownloadPage(cursor: round.cursor, acknowledged: round.acknowledged, changesets: []))
        }
        // Whole objects and removals are the state at the round's end: they travel in its last
        // message. Were the round split, a replica could apply its first pages, move its cursor past
        // the changes that called for them, lose the last one with the connection, and never be
        // sent them again (the next round starts at its cursor). Such a round goes as one message.
        // Likewise a tombstone's bare create and its erase: a replica that applied the create alone
        // would keep an object the next rounds never mention again (it is out of its view).
        if hasCorrections || round.hasTombstones, let last = pages.last, pages.count > 1 {
            pages = [
                DownloadPage(
                    cursor: last.cursor, acknowledged: last.acknowledged, changesets: pages.flatMap(\.changesets))
            ]
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
            try transaction.prefetch(writes.map(\.ref))
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
        var heldChanges: [ObjectRef: (held: Bool, page: UInt64?)] = [:]
        /// Some object was routed as a tombstone (bare creates and erases).
        var hasTombstones = false
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
            try states.prefetch(page.flatMap { $0.kept.instructions.map(\.object) }, reader)
            round.cursor = last.serverVersion
            var changesets: [IntegratedChangeset] = []
            let refused = try refusedObjects(in: page, of: fileID, reader)
            for entry in page {
                if entry.kept.clientFileID == fileID {
                    round.acknowledged = entry.kept.clientVersion
                    // Its own writes can move objects into or out of its view. One it wrote outside
                    // what it holds (kept while it left the view: its pending writes keep it on the
                    // replica) is removed.
                    for instruction in entry.kept.instructions
                    where try router.route(instruction.object, page: round.cursor) == .drop {
                        try router.correct(instruction.object)
                    }
                    // Its writes the server did not keep: the replica still has them unless it got
                    // a correction before (then its cursor would be past this entry).
                    for ref in refused[entry.serverVersion] ?? [] { try router.correct(ref) }
                } else if let changeset = try routed(
                    entry, &router, page: round.cursor, recipientClientVersion: round.acknowledged)
                {
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
        try reader.prefetch(router.replaced)
        for ref in router.replaced {
            guard let objectSchema = state.rules.schema[ref.className] else { continue }
            round.replacements.append(try state.snapshot(of: ref, objectSchema, reader))
        }
        round.removals = router.removed
        round.heldChanges = router.heldChanges
        round.hasTombstones = router.routes.values.contains(.tombstone)
        return round
    }

    /// Per server version of `page`, the objects a changeset of `fileID` wrote that the server did
    /// not keep all of: refused by the permissions, or instructions lost to the merge rules. The
    /// replica still has them as it wrote them unless the download carrying their correction
    /// reached it; and where it got the object whole (a bootstrap, a replacement: no write times)
    /// it let its pending writes win whatever their times, so it cannot know they lost. Only with
    /// permissions (views): without, every replica gets the winning writes themselves, which it
    /// merges by their times, and a replacement would be worse than none.
    private func refusedObjects(in page: [HistoryEntry], of fileID: UInt64, _ reader: any SyncStoreReader) throws
        -> [UInt64: [ObjectRef]]
    {
        guard permissions != nil, let first = page.first, page.contains(where: { $0.kept.clientFileID == fileID })
        else { return [:] }
        var refused: [UInt64: [ObjectRef]] = [:]
        let keptByVersion = Dictionary(page.map { ($0.serverVersion, $0.kept) }, uniquingKeysWith: { a, _ in a })
        for (serverVersion, original) in try reader.originalChangesets(
            after: first.serverVersion - 1, limit: page.count)
        where original.clientFileID == fileID {
            guard let kept = keptByVersion[serverVersion] else { continue }
            let written = writeCounts(original.instructions)
            let stood = writeCounts(kept.instructions)
            let objects = written.filter { stood[$0.key, default: 0] < $0.value }.map(\.key)
            if !objects.isEmpty { refused[serverVersion] = objects.sorted() }
        }
        return refused
    }

    /// Per object, its instructions, a create counting once plus once per field it sets (its primary
    /// key aside: a kept create leaves it out).
    private func writeCounts(_ instructions: [Instruction]) -> [ObjectRef: Int] {
        var counts: [ObjectRef: Int] = [:]
        for instruction in instructions {
            var count = 1
            if case .create(let ref, let fields) = instruction {
                let primaryKey = state.rules.schema[ref.className]?.primaryKey
                count += fields.filter { $0.name != primaryKey }.count
            }
            counts[instruction.object, default: 0] += count
        }
        return counts
    }

    /// Another file's history entry as the session sees it: the instructions on objects routed by
    /// their instructions, the bare creates and erases of tombstones; nil when nothing is left. It names the session's last changeset
    /// integrated before it (`recipientClientVersion`), which the client must not count as pending
    /// against it.
    private func routed(
        _ entry: HistoryEntry, _ router: inout ViewRouter, page: UInt64, recipientClientVersion: UInt64
    ) throws -> IntegratedChangeset? {
        var origin = entry.kept
        origin.instructions = try origin.instructions.compactMap { instruction in
            switch try router.route(instruction.object, page: page) {
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
