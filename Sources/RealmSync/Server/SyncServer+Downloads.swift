/// What the server sends a session: bootstraps from state, and downloads of what other clients
/// wrote to its classes.
extension SyncServer {
    /// The session's classes as of one server version, in `bootstrap` messages of at most
    /// `bootstrapBatchSize` objects; the session's cursor moves to that version.
    func bootstrap(_ session: inout ServerSession, fileID: UInt64) throws -> [Outgoing] {
        let (serverVersion, latestClock, batches) = try state.snapshot(
            classes: session.classes.sorted(), batchSize: options.bootstrapBatchSize)
        let acknowledged = try state.highestClientVersion(of: fileID, atOrBelow: serverVersion)
        session.downloadCursor = serverVersion
        let count = Double(batches.count)
        return batches.enumerated().map { index, objects in
            Outgoing(
                connection: session.connection,
                message: .bootstrap(
                    session: session.id, serverVersion: serverVersion, latestClock: latestClock,
                    uploadAcknowledged: acknowledged, objects: objects,
                    isLast: index == batches.count - 1, progress: Double(index + 1) / count))
        }
    }

    /// `download` messages carrying the history after the session's cursor that other clients wrote
    /// to its classes (changesets with nothing left are skipped), at most `downloadBatchSize`
    /// changesets each. A message goes out when it carries changesets, when the acknowledgement
    /// moved, or when `force` asks for one (the uploader gets its ack; an identify gets its state).
    func downloads(for key: SessionKey, force: Bool) throws -> [Outgoing] {
        guard var session = sessions[key], let fileID = session.clientFileID else { return [] }
        defer { sessions[key] = session }
        var out: [Outgoing] = []
        var mustSend = force
        // The highest client version of the session's file integrated at or below the cursor: read
        // once, then moved by the file's own entries as the pages go by (a file's client versions
        // rise with the server version), so no entry costs a query.
        var ownVersion = try state.highestClientVersion(of: fileID, atOrBelow: session.downloadCursor)
        while true {
            let page = try state.history(after: session.downloadCursor, limit: options.downloadBatchSize)
            guard let last = page.last else { break }
            session.downloadCursor = last.serverVersion
            var changesets: [IntegratedChangeset] = []
            for entry in page {
                if entry.originClientFileID == fileID {
                    ownVersion = entry.clientVersion
                } else if let changeset = visible(entry, to: session, recipientClientVersion: ownVersion) {
                    changesets.append(changeset)
                }
            }
            let isFinal = page.count < options.downloadBatchSize
            guard !changesets.isEmpty || ownVersion != session.acknowledged || (isFinal && mustSend) else {
                if isFinal { break } else { continue }
            }
            session.acknowledged = ownVersion
            mustSend = false
            out.append(message(to: session, changesets))
            if isFinal { break }
        }
        if mustSend {
            session.acknowledged = ownVersion
            out.append(message(to: session, []))
        }
        return out
    }

    private func message(to session: ServerSession, _ changesets: [IntegratedChangeset]) -> Outgoing {
        Outgoing(
            connection: session.connection,
            message: .download(
                session: session.id, downloadCursor: session.downloadCursor, uploadAcknowledged: session.acknowledged,
                changesets: changesets))
    }

    /// Another file's history entry as the session sees it: only instructions on its classes; nil
    /// when nothing is left. It names the session's last changeset integrated before it
    /// (`recipientClientVersion`), which the client must not count as pending against it.
    private func visible(_ entry: HistoryEntry, to session: ServerSession, recipientClientVersion: UInt64)
        -> IntegratedChangeset?
    {
        var origin = entry.kept
        origin.instructions = origin.instructions.filter { session.classes.contains($0.object.className) }
        guard !origin.instructions.isEmpty else { return nil }
        return IntegratedChangeset(
            serverVersion: entry.serverVersion, origin: origin, recipientClientVersion: recipientClientVersion)
    }
}
