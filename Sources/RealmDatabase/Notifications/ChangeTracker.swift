import Dispatch
import Foundation
import RealmValues

/// One change as the row engine captured it: the unit notifications, change sets and (later)
/// sync changesets are built from.
///
/// Every write to an object's row or to one of its collections passes through `ChangeTracker`'s
/// `record…` methods (the one capture point): an insertion or deletion of an object, or a
/// modification of one of its properties. List, set and map edits are modifications of the
/// owner's collection property.
public struct CapturedChange: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case insertion
        case deletion
        case modification(property: String)
    }

    public let className: String
    public let key: Int64
    public let kind: Kind

    public var description: String {
        switch kind {
        case .insertion: return "insert \(className)#\(key)"
        case .deletion: return "delete \(className)#\(key)"
        case .modification(let property): return "modify \(className)#\(key).\(property)"
        }
    }
}

/// What a `Realm` knows about change: the record of the open write (`openWrite`, a `ChangeSet`
/// per commit), the counters that tell caches when what they hold may be stale, and the mailbox
/// where other instances of the same file post their commits.
///
/// The `record…` methods are the capture point: the row engine calls them, and nothing else
/// writes into `openWrite`.
final class ChangeTracker {
    /// Where other instances of the file post their commits.
    let mailbox = ChangeMailbox()
    /// The open write transaction's change record; nil outside a write.
    var openWrite: ChangeSet?
    /// Bumped by every change made through this instance and by every refresh that found news, so
    /// caches (results keys, object rows) know when to reload.
    var localStamp = 0
    /// SQLite's `data_version` when last read (by `readStamp`), and when `refresh()` last looked:
    /// they differ when another connection committed since the last refresh.
    var lastDataVersion: Int64 = -1
    var refreshedDataVersion: Int64 = -1
    /// When `data_version` was last read (uptime nanoseconds), and the file's commit count then.
    private var lastDataVersionCheck: UInt64 = 0
    private var lastSeenCommitCount = 0
    /// A tap on the capture point, for tests and debugging: sees every change recorded (inside a
    /// write or not), in order.
    var observer: ((CapturedChange) -> Void)?

    var isInWrite: Bool {
        // A pattern match reads the optional in place; `!= nil` copied the whole change log.
        if case .some = openWrite { return true }
        return false
    }

    /// The changes of the undoable steps running now (`Realm.undoingOnFailure`), innermost last:
    /// they reach `openWrite` when their step succeeds and are dropped when it fails. Keeping them
    /// aside, instead of a copy of `openWrite` to restore, keeps a step's cost independent of the
    /// size of the write so far (a copy made the first change after it copy the whole log).
    private var journals: [[Entry]] = []

    /// What a step's journal holds: changes, and the set and map edits a commit recorder reads.
    private enum Entry {
        case change(CapturedChange)
        case edit(CollectionEdit)
    }

    // MARK: The capture point

    func recordInsertion(_ className: String, _ key: Int64) {
        record(CapturedChange(className: className, key: key, kind: .insertion))
    }

    /// `primaryKey`: the deleted row's stored primary key, for a commit recorder (see
    /// `ChangeSet.ClassChanges.deletedPrimaryKeys`; kept outside the step journals, which only undo).
    func recordDeletion(_ className: String, _ key: Int64, primaryKey: SQLiteValue? = nil) {
        if let primaryKey { openWrite?.classes[className, default: .init()].deletedPrimaryKeys[key] = primaryKey }
        record(CapturedChange(className: className, key: key, kind: .deletion))
    }

    func recordModification(_ className: String, _ key: Int64, property: String) {
        record(CapturedChange(className: className, key: key, kind: .modification(property: property)))
    }

    /// A set or map edit (`CollectionEdits`); the row engine reports one only for a commit recorder,
    /// beside the modification of the property.
    func recordEdit(_ edit: CollectionEdit) {
        if journals.isEmpty { openWrite?.edited(edit) } else { journals[journals.count - 1].append(.edit(edit)) }
    }

    private func record(_ change: CapturedChange) {
        if journals.isEmpty { apply(change) } else { journals[journals.count - 1].append(.change(change)) }
        localStamp += 1
        if let observer { observer(change) }
    }

    private func apply(_ change: CapturedChange) {
        switch change.kind {
        case .insertion: openWrite?.inserted(change.className, change.key)
        case .deletion: openWrite?.deleted(change.className, change.key)
        case .modification(let property): openWrite?.modified(change.className, change.key, property)
        }
    }

    // MARK: Undoable steps

    /// Starts a step whose changes count only if it succeeds (`endStep(keeping:)` ends it).
    func beginStep() { journals.append([]) }

    /// Ends the innermost step: its changes join the step around it (or the open write, in the
    /// order they were made), or are forgotten.
    func endStep(keeping: Bool) {
        guard let changes = journals.popLast(), keeping else { return }
        if journals.isEmpty {
            for entry in changes {
                switch entry {
                case .change(let change): apply(change)
                case .edit(let edit): openWrite?.edited(edit)
                }
            }
        } else {
            journals[journals.count - 1] += changes
        }
    }

    // MARK: Staleness

    func noteLocalChange() { localStamp += 1 }

    /// The baseline at open: only commits after it are news for `refresh()`.
    func setBaseline(dataVersion: Int64) {
        lastDataVersion = dataVersion
        refreshedDataVersion = dataVersion
    }

    /// See `Realm.readStamp`. `commits` is the file's shared commit counter; `dataVersion` reads
    /// SQLite's `data_version` (a statement, so it runs at most once a millisecond unless forced).
    func readStamp(force: Bool, commits: Int, dataVersion: () throws -> Int64?) -> Int {
        if commits != lastSeenCommitCount {
            lastSeenCommitCount = commits
            localStamp += 1
        }
        let now = DispatchTime.now().uptimeNanoseconds
        if force || now &- lastDataVersionCheck > 1_000_000 {
            lastDataVersionCheck = now
            do {
                if let version = try dataVersion(), version != lastDataVersion {
                    lastDataVersion = version
                    localStamp += 1
                }
            } catch {
                // A failed read is news too: caches reload, and the reload (a real query) reports
                // the error to its caller instead of answering from what may be stale.
                localStamp += 1
            }
        }
        return localStamp
    }

    /// True (once) when another connection committed since the last call: `refresh()`'s test.
    func takeCommittedElsewhere() -> Bool {
        let committed = lastDataVersion != refreshedDataVersion
        refreshedDataVersion = lastDataVersion
        return committed
    }
}
