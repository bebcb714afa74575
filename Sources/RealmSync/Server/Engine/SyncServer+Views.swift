/// A session's new subscription set (docs/SYNC.md "Views"): the objects entering its view and the
/// removals of those leaving it, at one server version.
extension SyncServer {
    /// Compiles `query`; a set outside the subset is answered with `queryError` and the session goes
    /// on with its view. Otherwise the session is first brought up to date under its current view,
    /// then sent the difference as `bootstrap` batches of the new set's version (the removals in the
    /// last one), and from then on routed by the new view.
    func changeView(_ key: SessionKey, to query: QuerySet) throws -> [Outgoing] {
        guard let current = sessions[key], let fileID = current.clientFileID else {
            throw SyncError(.badSession, "session \(key.session) changed its subscriptions before it identified")
        }
        guard query.version > current.view.queryVersion else {
            throw SyncError(
                .badQuery,
                "subscription set version \(query.version) is not newer than \(current.view.queryVersion)")
        }
        let view: SessionView
        do {
            view = try SessionView.compile(query, user: current.user, rules: state.rules, permissions: permissions)
        } catch let error as SyncError {
            return [
                Outgoing(
                    connection: key.connection,
                    message: .queryError(session: key.session, version: query.version, message: error.message))
            ]
        }
        var out = try downloads(for: key, force: false)
        // The difference is computed from what the replica holds: recorded first.
        try recordHeldWrites()
        guard var session = sessions[key] else { return out }
        defer {
            sessions[key] = session
            sessionIndex = nil
        }
        session.view = view
        if session.downloadCursor == 0 {
            out += try bootstrap(&session, fileID: fileID)
        } else {
            out += try viewChange(&session, fileID: fileID)
        }
        return out
    }

    /// The bootstrap batches that take the replica from the objects it holds to `session.view`, at
    /// the session's cursor (the latest version: downloads brought it there).
    private func viewChange(_ session: inout ServerSession, fileID: UInt64) throws -> [Outgoing] {
        let view = session.view
        let user = session.user
        let position = ViewPosition(serverVersion: session.downloadCursor, queryVersion: view.queryVersion)
        // One transaction reads the difference and records it: one state, and the objects the
        // reads found are not looked up again to be written.
        let (entering, leaving) = try state.store.write { transaction in
            let entering = try self.entering(view, user: user, fileID: fileID, transaction)
            let leaving = try self.leaving(view, user: user, fileID: fileID, transaction)
            for snapshot in entering { try transaction.setHeld(fileID, snapshot.object, true, at: position) }
            for ref in leaving { try transaction.setHeld(fileID, ref, false, at: position) }
            return (entering, leaving)
        }
        let acknowledged = try state.highestClientVersion(of: fileID, atOrBelow: session.downloadCursor)
        let latestClock = try state.store.read { try $0.latestClock(atOrBelow: session.downloadCursor) }
        let batches = bootstrapBatches(entering)
        return batches.enumerated().map { index, objects in
            let isLast = index == batches.count - 1
            return Outgoing(
                connection: session.connection,
                message: .bootstrap(
                    session: session.id, serverVersion: session.downloadCursor, latestClock: latestClock,
                    uploadAcknowledged: acknowledged, objects: objects, isLast: isLast,
                    progress: Double(index + 1) / Double(batches.count), queryVersion: view.queryVersion,
                    removals: isLast ? leaving : []))
        }
    }

    /// The objects of `view` the replica does not hold, whole.
    private func entering(_ view: SessionView, user: String, fileID: UInt64, _ reader: any SyncStoreReader) throws
        -> [ObjectSnapshot]
    {
        var result: [ObjectSnapshot] = []
        for (className, predicate) in view.predicates.sorted(by: { $0.key < $1.key }) {
            guard let objectSchema = state.rules.schema[className] else { continue }
            var cursor: UInt64 = 0
            while true {
                let page = try reader.existingObjects(
                    ofClass: className, matching: predicate, user: user, after: cursor, limit: 1000)
                guard let last = page.last else { break }
                cursor = last.cursor
                try reader.prefetch(page.map(\.ref))
                let missing = try page.map(\.ref).filter { try !reader.holds(fileID, $0) }
                result += try state.snapshots(of: missing, objectSchema, reader)
            }
        }
        return result
    }

    /// The objects the replica holds that are not in `view`.
    private func leaving(_ view: SessionView, user: String, fileID: UInt64, _ reader: any SyncStoreReader) throws
        -> [ObjectRef]
    {
        var result: [ObjectRef] = []
        var cursor: UInt64 = 0
        let states = ObjectStates(rules: state.rules)
        while true {
            let page = try reader.heldObjects(by: fileID, after: cursor, limit: 1000)
            guard let last = page.last else { break }
            cursor = last.cursor
            try states.prefetch(page.map(\.ref), reader)
            for (_, ref) in page where try !states.isInView(ref, view, user: user, reader) {
                result.append(ref)
            }
        }
        return result
    }
}
