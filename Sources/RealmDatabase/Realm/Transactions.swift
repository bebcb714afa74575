import Foundation

extension Realm {
    /// Starts a write transaction. Writers on other instances, threads or processes wait for each
    /// other (SQLite's write lock, with a long busy timeout); they do not fail.
    public func beginWrite() throws {
        try enterEntry("beginWrite")
        defer { leaveEntry() }
        if isFrozen { throw RealmError.frozenRealmWrite }
        if configuration.readOnly { throw RealmError.readOnlyWrite }
        if migrationPhase != nil { throw RealmError.migrationTransaction }
        if changeTracker.isInWrite { throw RealmError.alreadyInWrite }
        if coordinator.isWriteHeldOnThisThread(byAnotherThan: ObjectIdentifier(self)) {
            throw RealmError.writeHeldOnThisThread(configuration.displayPath)
        }
        // Realm delivers pending notifications when a write begins; with no observers there is
        // nothing to deliver, and the implicit write of every REPL verb skips the check.
        if notifiers.isEmpty { _ = mailbox.take() } else { refreshEntered() }
        do {
            try connection.begin(.immediate)
        } catch {
            throw RealmError.wrap(error, context: "Could not begin a write transaction on \(configuration.displayPath)")
        }
        if let limit = configuration.maximumNumberOfActiveVersions, limit > 0 {
            do {
                try coordinator.checkActiveVersions(liveVersion: try fetchVersion(), limit: limit)
            } catch {
                connection.rollback()
                throw error
            }
        }
        transaction = ChangeSet()
        coordinator.writeBegan(by: ObjectIdentifier(self))
        noteLocalChange()
    }

    /// Whether another instance of this process (any thread) is in a write transaction on this
    /// file: a write begun here now would wait for it (SQLite's lock, with a long busy timeout).
    /// Lets a caller that must not wait (the sync client applying a download) try again later.
    public var isWriteHeldByAnotherInstance: Bool { coordinator.isWriteHeld(byAnotherThan: ObjectIdentifier(self)) }

    /// Commits the write transaction, durably, then delivers notifications.
    public func commitWrite() throws {
        try enterEntry("commitWrite")
        defer { leaveEntry() }
        if migrationPhase != nil { throw RealmError.migrationTransaction }
        guard var changes = transaction else { throw RealmError.notInWriteToCommit }
        let version: Int64
        do {
            version = try MetaTable(connection).incrementVersion()
            if let recorder = configuration.commitRecorder {
                changes.version = version
                try recorder.willCommit(self, changes: changes)
            }
            try connection.commit()
        } catch {
            rollBackWrite(changes)
            throw RealmError.wrap(
                error, context: "Could not commit the write transaction on \(configuration.displayPath)")
        }
        coordinator.writeEnded(by: ObjectIdentifier(self))
        transaction = nil
        if configuration.commitRecorder != nil { changes = changes.withoutCollectionEdits }
        changes.version = version
        noteLocalChange()
        coordinator.announce(changes, from: ObjectIdentifier(self))
        deliverNotifications(for: [changes])
    }

    /// Throws when `cancelWrite` would be refused: on the realm of a migration block, whose
    /// transaction only the migration ends (`cancelWrite` itself cannot throw, as RealmSwift's).
    public func checkCanCancelWrite() throws {
        if migrationPhase != nil { throw RealmError.migrationTransaction }
    }

    /// Rolls back every change made since `beginWrite`.
    public func cancelWrite() {
        guard enterOrReport("cancelWrite") else { return }
        defer { leaveEntry() }
        if migrationPhase != nil {
            RealmDiagnostics.report(RealmError.migrationTransaction, while: "cancelling a write")
            return
        }
        guard let cancelled = transaction else { return }
        rollBackWrite(cancelled)
    }

    /// Ends the open write without its changes: a cancelled one, or a commit that failed.
    private func rollBackWrite(_ changes: ChangeSet) {
        connection.rollback()
        coordinator.writeEnded(by: ObjectIdentifier(self))
        transaction = nil
        noteLocalChange()
        // The rollback also rolled back AUTOINCREMENT's counter: without this, the next object
        // would take the key of one created in the rolled-back write, and a handle to that
        // (invalidated) object would come back to life as the new one. Keys are never reused.
        guard !changes.highestInsertedKeys.isEmpty else { return }
        do {
            try restoreKeyCounters(changes.highestInsertedKeys)
        } catch {
            RealmDiagnostics.report(error, while: "restoring object key counters on \(configuration.displayPath)")
        }
    }

    private func restoreKeyCounters(_ highestKeys: [String: Int64]) throws {
        try connection.inTransaction(.immediate) {
            // No counter table: the cancelled write created the tables themselves (a new file's
            // first write), and the rollback removed them with their keys.
            let sequenceTables = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'"
            guard try connection.scalarInt(sequenceTables) ?? 0 > 0 else { return }
            for (className, key) in highestKeys {
                let table = StorageLayout.table(className)
                try connection.run(
                    """
                    INSERT INTO sqlite_sequence (name, seq) SELECT ?, ?
                    WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)
                    """, [.text(table), .integer(key), .text(table)])
                try connection.run(
                    "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?",
                    [.integer(key), .text(table)])
            }
        }
    }

    /// Runs `block` in a write transaction: commits when it returns, rolls everything back if it throws.
    @discardableResult
    public func write<T>(_ block: () throws -> T) throws -> T {
        // The whole block is one entry: another thread may not come in between its steps.
        try enterEntry("write")
        defer { leaveEntry() }
        try beginWrite()
        let result: T
        do {
            result = try block()
        } catch {
            cancelWrite()
            throw error
        }
        // The block may have ended the transaction itself.
        if changeTracker.isInWrite { try commitWrite() }
        return result
    }

    /// Runs `block` inside the current write transaction, or in one of its own (committed at once)
    /// when none is open: the implicit write of SwiftUI's `@ObservedResults` and of the REPL verbs.
    @discardableResult
    public func writeImplicitly<T>(_ block: () throws -> T) throws -> T {
        if changeTracker.isInWrite { return try block() }
        return try write(block)
    }

    /// Runs one verb of a write (`add`, `create`) so that its failure leaves the write exactly as it
    /// was: the rows it wrote (a savepoint) and the change record.
    /// Realm's own `add` may leave the objects created before a failure; a script cannot tell
    /// which, so here nothing stays. `needed: false` (a write of one row, which fails whole)
    /// skips the savepoint.
    func undoingOnFailure<T>(when needed: Bool = true, _ body: () throws -> T) throws -> T {
        guard needed else { return try body() }
        changeTracker.beginStep()
        do {
            let result = try connection.inSavepoint(body)
            changeTracker.endStep(keeping: true)
            return result
        } catch {
            changeTracker.endStep(keeping: false)
            noteLocalChange()  // rows cached since the savepoint are stale
            throw error
        }
    }

    /// A value given to an implicit verb, with each object of a frozen version of this realm's
    /// file replaced by its live counterpart here, as SwiftUI's property wrappers `thaw()` what
    /// they are given before writing. The one place the implicit verbs thaw their arguments; a
    /// frozen object deleted since is an error.
    public func thawArgument(_ value: RealmValue) throws -> RealmValue {
        // Most arguments hold no object at all: returned as they are, without rebuilding a
        // dictionary or list that has nothing to thaw.
        guard !isFrozen, value.containsObject else { return value }
        return try thawing(value)
    }

    private func thawing(_ value: RealmValue) throws -> RealmValue {
        switch value {
        case .object(let o):
            guard !isFrozen, let (other, info, key) = o.managed, other.isFrozen, other.isSameFile(as: self) else {
                return value
            }
            let live = DynamicObject(realm: self, info: try classInfo(info.className), key: key)
            if try live.checkInvalidated() { throw RealmError.invalidated }
            return .object(live)
        case .list(let items): return .list(try items.map(thawing))
        case .dictionary(let entries): return .dictionary(try entries.mapValues(thawing))
        default: return value
        }
    }

    /// Throws unless a write transaction is open (and the realm can be written at all).
    func checkWritable() throws {
        if isFrozen { throw RealmError.frozenRealmWrite }
        if configuration.readOnly { throw RealmError.readOnlyWrite }
        if !isInWriteTransaction { throw RealmError.notInWrite }
    }

    /// Brings this instance up to date with commits made elsewhere and delivers their notifications.
    /// Returns true when something had changed.
    @discardableResult
    public func refresh() -> Bool {
        guard enterOrReport("refresh") else { return false }
        defer { leaveEntry() }
        return refreshEntered()
    }

    /// `refresh()`, for callers already inside an entry.
    @discardableResult
    private func refreshEntered() -> Bool {
        guard !isFrozen, !changeTracker.isInWrite else { return false }
        _ = readStamp(force: true)
        // Compared with what the last refresh saw, not with the read stamp: a read since the
        // commit has already moved the stamp, and the commit must still be delivered.
        let committedElsewhere = changeTracker.takeCommittedElsewhere()
        var (changes, unseen) = mailbox.take()
        if (committedElsewhere || unseen) && changes.isEmpty {
            // Another process committed, or another instance while this one had no observers:
            // the details are not known here.
            var opaque = ChangeSet()
            opaque.version = self.version
            opaque.isOpaque = true
            changes = [opaque]
        }
        guard !changes.isEmpty else { return false }
        deliverNotifications(for: changes)
        return true
    }
}
