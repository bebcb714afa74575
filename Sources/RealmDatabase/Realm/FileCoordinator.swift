import Foundation
import Synchronization

/// What one commit changed: per class, the keys inserted, deleted and modified (with the names of
/// the modified properties). This is what notifications are computed from, and what sync will read.
public struct ChangeSet: Sendable, Equatable {
    public struct ClassChanges: Sendable, Equatable {
        public var insertions = KeySet()
        public var deletions = KeySet()
        public var modifications = [Int64: Set<String>]()
        public var isEmpty: Bool { insertions.isEmpty && deletions.isEmpty && modifications.isEmpty }
        /// The highest key given out in this transaction (deleted ones included): what a cancelled
        /// write must keep from being given out again. Not part of what changed.
        var highestInsertedKey: Int64 = 0

        public static func == (a: ClassChanges, b: ClassChanges) -> Bool {
            a.insertions == b.insertions && a.deletions == b.deletions && a.modifications == b.modifications
        }

        mutating func recordInsertion(_ key: Int64) {
            insertions.insert(key)
            if key > highestInsertedKey { highestInsertedKey = key }
        }
    }
    /// The version the commit produced.
    public var version: Int64 = 0
    public var classes = [String: ClassChanges]()
    /// True when the changes are not known in detail (a commit by another process).
    public var isOpaque = false

    public var isEmpty: Bool { classes.values.allSatisfy(\.isEmpty) }

    /// Per class, the highest key given out in this transaction.
    var highestInsertedKeys: [String: Int64] {
        classes.compactMapValues { $0.highestInsertedKey > 0 ? $0.highestInsertedKey : nil }
    }

    mutating func inserted(_ className: String, _ key: Int64) {
        // One lookup of the class per insertion: a bulk insert records 100,000s of them.
        classes[className, default: ClassChanges()].recordInsertion(key)
    }

    // Each change is made in place (`classes[c, default:]…`): copying a class's changes out and
    // back would copy its sets on every change, making a large write quadratic.

    mutating func deleted(_ className: String, _ key: Int64) {
        if !classes[className, default: ClassChanges()].insertions.remove(key) {
            classes[className, default: ClassChanges()].deletions.insert(key)
        }
        classes[className, default: ClassChanges()].modifications[key] = nil
    }

    mutating func modified(_ className: String, _ key: Int64, _ property: String) {
        if countsModificationsOnly {
            // A migration keeps no per-object log (memory stays flat however many objects it
            // changes): it counts changed objects, visited in key order by enumerateObjects.
            if lastModifiedKeys[className] != key {
                lastModifiedKeys[className] = key
                modificationCounts[className, default: 0] += 1
            }
            return
        }
        guard classes[className]?.insertions.contains(key) != true else { return }
        classes[className, default: ClassChanges()].modifications[key, default: []].insert(property)
    }

    /// Set for a migration's transaction: see `modified`.
    var countsModificationsOnly = false
    private(set) var modificationCounts = [String: Int]()
    private var lastModifiedKeys = [String: Int64]()
}

/// Where commits on a file are announced to the other instances of the same file in this process.
final class ChangeMailbox: Sendable {
    private let pending = Mutex<[ChangeSet]>([])
    func post(_ changes: ChangeSet) { pending.withLock { $0.append(changes) } }
    func take() -> [ChangeSet] {
        pending.withLock {
            let all = $0
            $0.removeAll()
            return all
        }
    }
}

/// One per file (or in-memory identifier) in the process: the mailboxes of its live instances and
/// the count of pinned frozen versions.
final class FileCoordinator: Sendable {
    private struct State {
        var mailboxes: [ObjectIdentifier: ChangeMailbox] = [:]
        var pinnedVersions: [Int64: Int] = [:]
    }
    private let state = Mutex(State())
    private let commits = Atomic<Int>(0)
    let location: String

    /// How many commits instances in this process have made to the file (cheap to read).
    var commitCount: Int { commits.load(ordering: .acquiring) }

    init(location: String) { self.location = location }

    private static let registry = Mutex<[String: FileCoordinator]>([:])

    static func forLocation(_ location: String) -> FileCoordinator {
        registry.withLock { map in
            if let c = map[location] { return c }
            let c = FileCoordinator(location: location)
            map[location] = c
            return c
        }
    }

    func register(_ id: ObjectIdentifier, _ mailbox: ChangeMailbox) {
        state.withLock { $0.mailboxes[id] = mailbox }
    }

    func unregister(_ id: ObjectIdentifier) {
        state.withLock { $0.mailboxes[id] = nil }
    }

    /// Announces a commit to every other live instance.
    func announce(_ changes: ChangeSet, from id: ObjectIdentifier) {
        commits.add(1, ordering: .releasing)
        let targets = state.withLock { s in s.mailboxes.filter { $0.key != id }.map(\.value) }
        for mailbox in targets { mailbox.post(changes) }
    }

    /// Pins `version` for a frozen realm, until `unpin`.
    func pin(_ version: Int64) {
        state.withLock { $0.pinnedVersions[version, default: 0] += 1 }
    }

    /// Fails when more than `limit` versions are active: the pinned ones and `liveVersion`.
    /// Checked when a write begins, as Realm does: freezing never fails, writing on while old
    /// versions stay pinned does.
    func checkActiveVersions(liveVersion: Int64, limit: UInt) throws {
        let active = state.withLock { s in s.pinnedVersions.count + (s.pinnedVersions[liveVersion] == nil ? 1 : 0) }
        if active > Int(limit) {
            throw RealmError(
                .maximumActiveVersions,
                "Number of active versions (\(active)) in the Realm exceeded the limit of \(limit)")
        }
    }

    func unpin(_ version: Int64) {
        state.withLock { s in
            if let n = s.pinnedVersions[version] {
                s.pinnedVersions[version] = n > 1 ? n - 1 : nil
            }
        }
    }

    var activeFrozenVersions: Int { state.withLock { $0.pinnedVersions.count } }
}
