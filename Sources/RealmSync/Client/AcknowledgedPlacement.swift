/// Where the server integrated the local changesets a download acknowledges, as far as the download
/// tells: their server versions are the gaps in its versions (a client's own changesets are not
/// sent to it), in client-version order. A remote changeset is decided by the server against the
/// local changesets integrated after it only, so those alone are pending for it.
///
/// Changesets with nothing kept leave gaps too; when there are more gaps than acknowledged
/// changesets, the local ones are placed at the earliest gaps (an estimate: the server integrates
/// an upload when it arrives).
enum AcknowledgedPlacement {
    /// Client version → server version for the changesets acknowledged by this download.
    static func serverVersions(
        acknowledged: [Changeset], after cursor: UInt64, through newCursor: UInt64, sent: [IntegratedChangeset]
    ) -> [UInt64: UInt64] {
        let received = Set(sent.map(\.serverVersion))
        var placement: [UInt64: UInt64] = [:]
        var remaining = acknowledged[...]
        var version = cursor
        // Each step either places a changeset or passes a received version: bounded by their counts.
        while let next = remaining.first, version < newCursor {
            version += 1
            if received.contains(version) { continue }
            placement[next.clientVersion] = version
            remaining = remaining.dropFirst()
        }
        return placement
    }
}
