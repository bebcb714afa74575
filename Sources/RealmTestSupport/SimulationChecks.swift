import RealmDatabase
import RealmSync

/// Checks both simulations and the three-host kill test make, each returning what is wrong (nil: nothing).
public enum SimulationChecks {
    /// No acknowledged changeset lost, none applied twice: the log's server versions are dense from
    /// 1, and each client file's changesets are in it once each, densely numbered from 1.
    public static func logProblem(_ log: [(serverVersion: UInt64, changeset: Changeset)]) -> String? {
        var next: [UInt64: UInt64] = [:]
        for (position, entry) in log.enumerated() {
            if entry.serverVersion != UInt64(position + 1) {
                return "the log's server versions are not dense at \(position + 1)"
            }
            let file = entry.changeset.clientFileID
            let expected = next[file, default: 1]
            if entry.changeset.clientVersion != expected {
                return "client file \(file): version \(entry.changeset.clientVersion) where \(expected) was due"
            }
            next[file] = expected + 1
        }
        return nil
    }

    /// Every commit is visible atomically: `realm` never holds part of another commit's entries.
    public static func atomicityProblem(_ realm: Realm) throws -> String? {
        var counts: [String: (of: Int64, seen: Int)] = [:]
        try realm.objects("Entry").forEach { entry in
            guard case .string(let group) = try entry.value(forKey: "group"),
                case .int(let of) = try entry.value(forKey: "of")
            else { return }
            counts[group, default: (of, 0)].seen += 1
        }
        for (group, count) in counts.sorted(by: { $0.key < $1.key }) where Int64(count.seen) != count.of {
            return "sees \(count.seen) of the \(count.of) entries of commit \(group)"
        }
        return nil
    }
}
