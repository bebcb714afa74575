import Foundation

/// The local changesets as last decoded, by client version, with the bytes each was decoded from.
/// Every download is decided against the whole pending history (`ReplicaAdvance`), so a catch-up of
/// many downloads while many commits wait for their acknowledgement decoded each of them again per
/// download (`sync_download_pending`: three quarters of the replica's time). An entry is used only
/// while the stored bytes are the same, so whatever rewrote a changeset (a commit replacing its
/// version, a rebase, a reset) is decoded afresh: nothing can be served stale.
///
/// Memory: at most `maxBytes` of stored changesets are kept (with their decoded form), per client:
/// a host syncs many tenants, each with its own. Past it the rest is decoded per read, as before.
/// Versions no longer stored (acknowledged) are dropped at the next full read, so a replica whose
/// changesets are all acknowledged keeps nothing. Used on its client's realm's thread only.
final class DecodedHistory {
    private var entries: [UInt64: (bytes: Data, changeset: Changeset)] = [:]
    private(set) var keptBytes = 0
    /// How many changesets were decoded (for the tests: what the cache saved).
    private(set) var decodings = 0
    let maxBytes: Int

    init(maxBytes: Int = 4 << 20) { self.maxBytes = maxBytes }

    /// The changeset of `version` stored as `bytes`: the decoded one kept if the bytes are the same.
    func changeset(_ version: UInt64, storedAs bytes: Data) throws -> Changeset {
        if let entry = entries[version], entry.bytes == bytes { return entry.changeset }
        let changeset = try ClientEncodings.decodeChangeset(Array(bytes))
        decodings += 1
        forget(version)
        if keptBytes + bytes.count <= maxBytes {
            entries[version] = (bytes, changeset)
            keptBytes += bytes.count
        }
        return changeset
    }

    /// After a read of the whole history: the versions not in `stored` are gone from it.
    func keep(only stored: Set<UInt64>) {
        for version in entries.keys where !stored.contains(version) { forget(version) }
    }

    private func forget(_ version: UInt64) {
        guard let entry = entries.removeValue(forKey: version) else { return }
        keptBytes -= entry.bytes.count
    }
}
