import Foundation

/// The local changesets as last decoded, by client version, with the stamp of the bytes each was
/// decoded from. Every download is decided against the whole pending history (`ReplicaAdvance`),
/// so a catch-up of many downloads while many commits wait for their acknowledgement decoded each
/// of them again per download (`sync_download_pending`: three quarters of the replica's time).
///
/// Each stored changeset carries a stamp, a random number written with its bytes whenever they are
/// written (`ClientStore.appendHistory`): a changeset is served only while its stored stamp is the
/// one it was decoded under, so whatever rewrote it (a commit replacing its version, a rebase, a
/// reset) is decoded afresh, and a read needs the stamps alone, not the bytes. Random, not a
/// counter: a rewrite rolled back with its transaction leaves a decoded entry under a stamp no later
/// write will give again, where a counter rolled back with it would be given out once more.
///
/// Memory: at most `maxBytes` of stored changesets are kept (with their decoded form), per client:
/// a host syncs many tenants, each with its own. Past it the rest is decoded per read, as before.
/// Versions no longer stored (acknowledged) are dropped at the next full read, so a replica whose
/// changesets are all acknowledged keeps nothing. Used on its client's realm's thread only.
final class DecodedHistory {
    private var entries: [UInt64: (stamp: Int64, size: Int, changeset: Changeset)] = [:]
    private(set) var keptBytes = 0
    /// How many changesets were decoded (for the tests: what the cache saved).
    private(set) var decodings = 0
    let maxBytes: Int

    init(maxBytes: Int = 4 << 20) { self.maxBytes = maxBytes }

    /// The changeset of `version` stored under `stamp`: the decoded one kept if the stamp is the
    /// same, else decoded from `bytes()` (read only then). Stamp 0 (a file written before stamps,
    /// not yet given them) is never kept.
    func changeset(_ version: UInt64, stamp: Int64, bytes: () throws -> Data) throws -> Changeset {
        if stamp != 0, let entry = entries[version], entry.stamp == stamp { return entry.changeset }
        let data = try bytes()
        let changeset = try ClientEncodings.decodeChangeset(Array(data))
        decodings += 1
        forget(version)
        if stamp != 0, keptBytes + data.count <= maxBytes {
            entries[version] = (stamp, data.count, changeset)
            keptBytes += data.count
        }
        return changeset
    }

    /// After a read of the whole history: the versions not in `stored` are gone from it.
    func keep(only stored: Set<UInt64>) {
        for version in entries.keys where !stored.contains(version) { forget(version) }
    }

    private func forget(_ version: UInt64) {
        guard let entry = entries.removeValue(forKey: version) else { return }
        keptBytes -= entry.size
    }
}
