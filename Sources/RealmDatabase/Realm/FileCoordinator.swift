import Foundation
import RealmValues
import Synchronization

/// What one commit changed: per class, the keys inserted, deleted and modified (with the names of
/// the modified properties). This is what notifications are computed from, and what sync will read.
public struct ChangeSet: Sendable, Equatable {
    public struct ClassChanges: Sendable, Equatable {
        public var insertions = KeySet()
        public var deletions = KeySet()
        public var modifications = [Int64: Set<String>]()
        /// The stored primary key of each deleted object, kept only when a `CommitRecorder` reads
        /// the commits (its row is gone by then; `Realm.deletedPrimaryKey` decodes one). It may
        /// also hold keys a failed step deleted: read it for `deletions` only. Not part of what changed.
        package var deletedPrimaryKeys = [Int64: SQLiteValue]()
        /// The set and map edits of objects the write did not create, by object key and property,
        /// kept only when a `CommitRecorder` reads the commits (`CollectionEdits`). Not part of what
        /// changed: `modifications` names the same properties; dropped before the commit is announced.
        package var collectionEdits = [Int64: [String: CollectionEdits]]()
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
        classes[className]?.collectionEdits[key] = nil
    }

    /// A set or map edit (`CollectionEdits`): ignored for an object the write created and in a migration.
    mutating func edited(_ edit: CollectionEdit) {
        guard !countsModificationsOnly, classes[edit.className]?.insertions.contains(edit.key) != true else { return }
        switch edit.touch {
        case .setElement(let element, let wasPresent):
            classes[edit.className, default: ClassChanges()].collectionEdits[edit.key, default: [:]][
                edit.property, default: CollectionEdits()
            ].touch(element, wasPresent: wasPresent)
        case .mapKey(let key, let before):
            classes[edit.className, default: ClassChanges()].collectionEdits[edit.key, default: [:]][
                edit.property, default: CollectionEdits()
            ].touch(key: key, before: before)
        }
    }

    /// The change set without its captured collection edits: what is announced and notified.
    var withoutCollectionEdits: ChangeSet {
        var copy = self
        for name in copy.classes.keys where !(copy.classes[name]?.collectionEdits.isEmpty ?? true) {
            copy.classes[name]?.collectionEdits = [:]
        }
        return copy
    }

    mutating func modified(_ className: String, _ key: Int64, _ property: String) {
        if countsModificationsOnly {
            countModification(className, key)
            return
        }
        guard classes[className]?.insertions.contains(key) != true else { return }
        classes[className, default: ClassChanges()].modifications[key, default: []].insert(property)
    }

    /// Set for a migration's transaction: see `modified`.
    var countsModificationsOnly = false
    /// Per class, how many objects a migration changed (each once, however many of its steps
    /// changed it).
    var modificationCounts: [String: Int] {
        var counts = settled.mapValues(\.count)
        if let current { counts[current.className] = current.keys.count }
        return counts
    }
    private var settled = [String: KeySet]()
    /// The class modified last, its last key and its changed keys: consecutive changes to one
    /// object (its properties, set one by one) cost a string and a key comparison each.
    private var current: CurrentClass?
    private struct CurrentClass: Sendable, Equatable {
        let className: String
        var key: Int64
        var keys: KeySet
    }

    /// A migration keeps no per-object log (memory stays small however many objects it changes):
    /// it keeps the changed objects' keys as runs (`KeySet`: enumerations change them in key
    /// order, so a class's keys are a few runs), and an object changed by several steps counts once.
    private mutating func countModification(_ className: String, _ key: Int64) {
        if current?.className == className {
            if current?.key != key {
                current?.key = key
                _ = current?.keys.insert(key)
            }
            return
        }
        if let c = current { settled[c.className] = c.keys }
        var keys = settled.removeValue(forKey: className) ?? KeySet()
        _ = keys.insert(key)
        current = CurrentClass(className: className, key: key, keys: keys)
    }
}

/// Where commits on a file are announced to the other instances of the same file in this process.
///
/// Only an instance with observers keeps the commits' change sets (it delivers them on `refresh`
/// or `beginWrite`); any other just counts them, so an instance that never refreshes (a read-only
/// `Realm()` kept in a script global) holds no memory per commit. The count still tells `refresh`
/// that something changed.
final class ChangeMailbox: Sendable {
    private let pending = Mutex<[ChangeSet]>([])
    private let observing = Atomic<Bool>(false)
    private let unseenCommits = Atomic<Int>(0)
    /// Called after each post, on the committing thread (see `Realm.onCommitElsewhere`).
    private let listener = Mutex<(@Sendable () -> Void)?>(nil)

    func setListener(_ body: (@Sendable () -> Void)?) { listener.withLock { $0 = body } }

    /// Set by the realm when its first observer registers and cleared when its last one goes;
    /// clearing drops what was kept, which no one is left to receive.
    func setObserving(_ value: Bool) {
        guard observing.load(ordering: .relaxed) != value else { return }
        observing.store(value, ordering: .releasing)
        if !value { pending.withLock { $0.removeAll() } }
    }

    func post(_ changes: ChangeSet) {
        if observing.load(ordering: .acquiring) {
            pending.withLock { $0.append(changes) }
        } else {
            unseenCommits.add(1, ordering: .relaxed)
        }
        listener.withLock { $0 }?()
    }

    /// The change sets kept, and whether commits were announced without their change sets.
    func take() -> (changes: [ChangeSet], unseen: Bool) {
        let unseen = unseenCommits.exchange(0, ordering: .relaxed) > 0
        let changes = pending.withLock {
            let all = $0
            $0.removeAll()
            return all
        }
        return (changes, unseen)
    }

    /// How many change sets wait to be delivered (for tests).
    var pendingCount: Int { pending.withLock { $0.count } }
}

/// One per file (or in-memory identifier) in the process: the mailboxes of its live instances and
/// the count of pinned frozen versions.
///
/// The registry counts the instances (live and frozen) holding each coordinator, and the entry goes
/// with the file's last instance: a long-running host keeps no entry per file it ever opened.
final class FileCoordinator: Sendable {
    private struct State {
        var mailboxes: [ObjectIdentifier: ChangeMailbox] = [:]
        var pinnedVersions: [Int64: Int] = [:]
        /// The instance of this process in a write transaction on the file, and its thread.
        var writer: (instance: ObjectIdentifier, thread: UInt)?
    }
    private let state = Mutex(State())
    private let commits = Atomic<Int>(0)
    let location: String

    /// How many commits instances in this process have made to the file (cheap to read).
    var commitCount: Int { commits.load(ordering: .acquiring) }

    init(location: String) { self.location = location }

    /// A registry entry: the coordinator and how many instances (live and frozen) hold it.
    private struct Entry {
        let coordinator: FileCoordinator
        var holders: Int
    }

    private static let registry = Mutex<[String: Entry]>([:])

    /// The coordinator of a location, checked out for a new instance, which gives it back with
    /// `releaseInstance()`: the entry leaves the registry with the file's last instance.
    static func checkOut(_ location: String) -> FileCoordinator {
        registry.withLock { map in
            if let entry = map[location] {
                map[location]?.holders += 1
                return entry.coordinator
            }
            let c = FileCoordinator(location: location)
            map[location] = Entry(coordinator: c, holders: 1)
            return c
        }
    }

    /// One more instance holds this coordinator (a frozen copy of a live instance, which holds it
    /// already, so the entry is there). No effect on a coordinator outside the registry (a migration's).
    func retainInstance() {
        Self.registry.withLock { map in
            if map[location]?.coordinator === self { map[location]?.holders += 1 }
        }
    }

    /// An instance holding this coordinator is gone; the last one removes the registry entry.
    func releaseInstance() {
        Self.registry.withLock { map in
            guard let entry = map[location], entry.coordinator === self else { return }
            if entry.holders > 1 { map[location]?.holders -= 1 } else { map[location] = nil }
        }
    }

    /// Whether another instance of this file holds the write lock on the calling thread. A write
    /// begun then would wait for SQLite's lock (the busy timeout is long, so that writers on other
    /// threads and processes queue) while the only thread that could release it waits too: a
    /// deadlock out of reach of a script's time limit (found by realm-fuzz binding).
    func isWriteHeldOnThisThread(byAnotherThan instance: ObjectIdentifier) -> Bool {
        state.withLock { s in
            guard let writer = s.writer else { return false }
            return writer.instance != instance && writer.thread == ThreadID.current
        }
    }

    /// Whether another instance of this process is in a write transaction on the file, on any
    /// thread: a write begun by `instance` would wait for SQLite's lock until that one ends.
    func isWriteHeld(byAnotherThan instance: ObjectIdentifier) -> Bool {
        state.withLock { s in
            guard let writer = s.writer else { return false }
            return writer.instance != instance
        }
    }

    /// An instance of this process took the file's write lock on the calling thread.
    func writeBegan(by instance: ObjectIdentifier) {
        state.withLock { $0.writer = (instance, ThreadID.current) }
    }

    /// The instance's write ended (committed, rolled back, or the instance is gone).
    func writeEnded(by instance: ObjectIdentifier) {
        state.withLock { s in
            if s.writer?.instance == instance { s.writer = nil }
        }
    }

    /// The locations with a coordinator in the registry (for tests).
    static var registeredLocations: Set<String> { registry.withLock { Set($0.keys) } }

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
