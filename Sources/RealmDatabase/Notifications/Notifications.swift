import Foundation

/// A realm-level notification: something was committed.
public enum RealmNotification: Sendable {
    case didChange
    case refreshRequired
}

/// A change to a collection: first `.initial`, then `.update` after each commit that changed it.
/// Deletions are indexes in the old collection; insertions and modifications in the new one.
public enum RealmCollectionChange {
    case initial(Results)
    case update(Results, deletions: [Int], insertions: [Int], modifications: [Int])
    case error(Error)
}

/// One changed property of an observed object. `oldValue` is nil: Realm gives none for local changes,
/// and the change sets of other instances do not carry values.
public struct PropertyChange {
    public let name: String
    public let oldValue: RealmValue?
    public let newValue: RealmValue?
}

/// A change to an observed object.
public enum ObjectChange {
    case change(DynamicObject, [PropertyChange])
    case deleted
    case error(Error)
}

/// Keeps delivery going until `invalidate()` (or until the token is released).
public final class NotificationToken {
    weak var realm: Realm?
    let id: Int

    init(realm: Realm, id: Int) {
        self.realm = realm
        self.id = id
    }

    /// Stops delivery.
    public func invalidate() {
        realm?.notifiers.remove(id)
        realm = nil
    }

    // As in RealmSwift, delivery lasts only while the token is held.
    deinit { invalidate() }
}

final class ResultsObserver {
    let results: Results
    var lastKeys: [Int64]
    let keyPaths: Set<String>?
    let block: (RealmCollectionChange) -> Void
    init(results: Results, lastKeys: [Int64], keyPaths: Set<String>?, block: @escaping (RealmCollectionChange) -> Void)
    {
        self.results = results
        self.lastKeys = lastKeys
        self.keyPaths = keyPaths
        self.block = block
    }
}

final class ObjectObserver {
    let object: DynamicObject
    let className: String
    let key: Int64
    let keyPaths: Set<String>?
    let block: (ObjectChange) -> Void
    init(
        object: DynamicObject, className: String, key: Int64, keyPaths: Set<String>?,
        block: @escaping (ObjectChange) -> Void
    ) {
        self.object = object
        self.className = className
        self.key = key
        self.keyPaths = keyPaths
        self.block = block
    }
}

/// The observers registered on one realm instance, and the old values a write remembers for them.
struct NotifierRegistry {
    private var nextID = 1
    var realmObservers: [Int: (RealmNotification, Realm) -> Void] = [:]
    var resultsObservers: [Int: ResultsObserver] = [:]
    var objectObservers: [Int: ObjectObserver] = [:]
    mutating func makeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    mutating func remove(_ id: Int) {
        realmObservers[id] = nil
        resultsObservers[id] = nil
        objectObservers[id] = nil
    }

    var isEmpty: Bool { realmObservers.isEmpty && resultsObservers.isEmpty && objectObservers.isEmpty }
}

extension Realm {
    /// Calls `block` after every commit to the realm (by this instance, or seen by `refresh()`).
    public func observe(_ block: @escaping (RealmNotification, Realm) -> Void) throws -> NotificationToken {
        if isFrozen { throw RealmError.frozenNotifications }
        let id = notifiers.makeID()
        notifiers.realmObservers[id] = block
        return NotificationToken(realm: self, id: id)
    }

    /// Calls `body` after each commit another instance of this file in this process makes (a sync
    /// download applied on the session's own instance, another tenant's writer), on the committing
    /// thread, right after the commit. It must only schedule work: this instance is not the
    /// committing thread's to touch, and sees the commit when its own thread calls `refresh()`.
    /// Nil removes it. A host that serves live queries uses it to refresh the watched instance.
    public func onCommitElsewhere(_ body: (@Sendable () -> Void)?) {
        mailbox.setListener(body)
    }

    /// Merges the commits' changes and calls the observers they concern.
    func deliverNotifications(for changeSets: [ChangeSet]) {
        guard !notifiers.isEmpty else { return }
        var merged = ChangeSet()
        for set in changeSets {
            merged.isOpaque = merged.isOpaque || set.isOpaque
            merged.version = Swift.max(merged.version, set.version)
            for (c, changes) in set.classes {
                var m = merged.classes[c, default: .init()]
                m.insertions.formUnion(changes.insertions)
                m.deletions.formUnion(changes.deletions)
                for (k, props) in changes.modifications { m.modifications[k, default: []].formUnion(props) }
                merged.classes[c] = m
            }
        }
        for (id, block) in notifiers.realmObservers.sorted(by: { $0.key < $1.key })
        where notifiers.realmObservers[id] != nil {
            block(.didChange, self)
        }
        for id in notifiers.resultsObservers.keys.sorted() {
            guard let observer = notifiers.resultsObservers[id] else { continue }
            deliver(merged, to: observer)
        }
        for id in notifiers.objectObservers.keys.sorted() {
            guard let observer = notifiers.objectObservers[id] else { continue }
            let changes = merged.classes[observer.className]
            if changes?.deletions.contains(observer.key) == true || observer.object.isInvalidated {
                notifiers.objectObservers[id] = nil
                observer.block(.deleted)
                continue
            }
            guard var props = changes?.modifications[observer.key] else { continue }
            if let keyPaths = observer.keyPaths { props = props.filter { keyPaths.contains($0) } }
            guard !props.isEmpty else { continue }
            // Realm reports no old value for a change made on the observing thread (RealmSwift's
            // `testModifyObservedObjectLocally`); other instances' change sets carry none either.
            let list = props.sorted().map { name in
                PropertyChange(name: name, oldValue: nil, newValue: try? observer.object.value(forKey: name))
            }
            observer.block(.change(observer.object, list))
        }
    }

    private func deliver(_ changes: ChangeSet, to observer: ResultsObserver) {
        guard let newKeys = try? observer.results.keys() else { return }
        let oldKeys = observer.lastKeys
        observer.lastKeys = newKeys
        // Pair each new position with an unused old position of the same key, in order (a list may
        // hold an object twice); unpaired old positions are deletions, unpaired new ones insertions.
        var oldPositions = [Int64: [Int]]()
        for (i, key) in oldKeys.enumerated().reversed() { oldPositions[key, default: []].append(i) }
        var pairs = [(old: Int, new: Int)]()
        var insertions = [Int]()
        for (i, key) in newKeys.enumerated() {
            if let old = oldPositions[key]?.popLast() { pairs.append((old, i)) } else { insertions.append(i) }
        }
        var deletions = oldPositions.values.flatMap { $0 }
        // Objects in both whose relative order changed moved: Realm reports a move as a deletion at
        // the old index and an insertion at the new one. The objects that stay put are the longest
        // run of pairs keeping their old order; every other pair is a move.
        let staying = Self.longestIncreasingRun(pairs.map(\.old))
        var moved = Set<Int>()
        for (n, pair) in pairs.enumerated() where !staying.contains(n) {
            deletions.append(pair.old)
            insertions.append(pair.new)
            moved.insert(pair.new)
        }
        var modifications = [Int]()
        if let classChanges = changes.classes[observer.results.className], !classChanges.modifications.isEmpty {
            modifications = pairs.map(\.new).filter { i in
                guard !moved.contains(i), let props = classChanges.modifications[newKeys[i]] else { return false }
                guard let keyPaths = observer.keyPaths else { return true }
                return !props.isDisjoint(with: keyPaths)
            }
        }
        guard !deletions.isEmpty || !insertions.isEmpty || !modifications.isEmpty else { return }
        observer.block(
            .update(
                observer.results, deletions: deletions.sorted(), insertions: insertions.sorted(),
                modifications: modifications.sorted()))
    }

    /// The positions in `values` of one longest strictly increasing subsequence (patience sorting).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails = [Int]()  // tails[k]: position of the smallest tail of a run of length k + 1
        var previous = [Int](repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            var lo = 0
            var hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { previous[i] = tails[lo - 1] }
            if lo == tails.count { tails.append(i) } else { tails[lo] = i }
        }
        var run = Set<Int>()
        var i = tails.last ?? -1
        while i >= 0 {
            run.insert(i)
            i = previous[i]
        }
        return run
    }
}

extension Results {
    /// Calls `block` with `.initial` now, then with `.update` after each commit that changes these
    /// results. `keyPaths` limits which property changes count as modifications.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (RealmCollectionChange) -> Void) throws
        -> NotificationToken
    {
        if realm.isFrozen { throw RealmError.frozenNotifications }
        if realm.isInWriteTransaction { throw RealmError.observeInWrite }
        let keys = try self.keys()
        let id = realm.notifiers.makeID()
        realm.notifiers.resultsObservers[id] = ResultsObserver(
            results: self, lastKeys: keys,
            keyPaths: keyPaths.map { Set($0.map { String($0.split(separator: ".").first ?? "") }) }, block: block)
        block(.initial(self))
        return NotificationToken(realm: realm, id: id)
    }
}

extension DynamicObject {
    /// Calls `block` after each commit that changes (or deletes) this object.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (ObjectChange) -> Void) throws
        -> NotificationToken
    {
        guard let (realm, info, key) = managed else {
            throw RealmError(.notifications, "Only objects which are managed by a Realm support change notifications")
        }
        if realm.isFrozen { throw RealmError.frozenNotifications }
        if realm.isInWriteTransaction { throw RealmError.observeInWrite }
        _ = try loadRow()
        let id = realm.notifiers.makeID()
        realm.notifiers.objectObservers[id] = ObjectObserver(
            object: self, className: info.className, key: key,
            keyPaths: keyPaths.map(Set.init), block: block)
        return NotificationToken(realm: realm, id: id)
    }
}

extension ManagedCollection {
    /// Observes the objects of a collection of links, as Results.
    public func observe(keyPaths: [String]? = nil, _ block: @escaping (RealmCollectionChange) -> Void) throws
        -> NotificationToken
    {
        try linkResults().observe(keyPaths: keyPaths, block)
    }
}
