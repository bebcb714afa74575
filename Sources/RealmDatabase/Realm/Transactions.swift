import Foundation

extension Realm {
    /// Starts a write transaction. Writers on other instances, threads or processes wait for each
    /// other (SQLite's write lock, with a long busy timeout); they do not fail.
    public func beginWrite() throws {
        if isFrozen { throw RealmError.frozenRealmWrite }
        if configuration.readOnly { throw RealmError.readOnlyWrite }
        if transaction != nil { throw RealmError.alreadyInWrite }
        // Realm delivers pending notifications when a write begins; with no observers there is
        // nothing to deliver, and the implicit write of every REPL verb skips the check.
        if notifiers.isEmpty { _ = mailbox.take() } else { refresh() }
        do {
            try connection.run("BEGIN IMMEDIATE")
        } catch {
            throw RealmError.wrap(error, context: "Could not begin a write transaction on \(configuration.displayPath)")
        }
        if let limit = configuration.maximumNumberOfActiveVersions, limit > 0 {
            do {
                try coordinator.checkActiveVersions(liveVersion: version, limit: limit)
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
        transaction = ChangeSet()
        notifiers.oldValues = [:]
        noteLocalChange()
    }

    /// Commits the write transaction, durably, then delivers notifications.
    public func commitWrite() throws {
        guard var changes = transaction else { throw RealmError.notInWriteToCommit }
        let version: Int64
        do {
            version = try connection.scalarInt("UPDATE _realm_meta SET value = value + 1 WHERE key = 'version' RETURNING value") ?? 0
            try connection.run("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            transaction = nil
            noteLocalChange()
            throw RealmError.wrap(error, context: "Could not commit the write transaction on \(configuration.displayPath)")
        }
        transaction = nil
        changes.version = version
        noteLocalChange()
        coordinator.announce(changes, from: ObjectIdentifier(self))
        deliverNotifications(for: [changes])
    }

    /// Rolls back every change made since `beginWrite`.
    public func cancelWrite() {
        guard let cancelled = transaction else { return }
        try? connection.execute("ROLLBACK")
        transaction = nil
        notifiers.oldValues = [:]
        noteLocalChange()
        // The rollback also rolled back AUTOINCREMENT's counter: without this, the next object
        // would take the key of one created in the cancelled write, and a handle to that
        // (invalidated) object would come back to life as the new one. Keys are never reused.
        guard !cancelled.highestInsertedKeys.isEmpty else { return }
        do {
            try connection.execute("BEGIN IMMEDIATE")
            for (className, key) in cancelled.highestInsertedKeys {
                let table = StorageLayout.table(className)
                try connection.run("INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)",
                                   [.text(table), .integer(key), .text(table)])
                try connection.run("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", [.integer(key), .text(table)])
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
        }
    }

    /// Runs `block` in a write transaction: commits when it returns, rolls everything back if it throws.
    @discardableResult
    public func write<T>(_ block: () throws -> T) throws -> T {
        try beginWrite()
        let result: T
        do {
            result = try block()
        } catch {
            cancelWrite()
            throw error
        }
        // The block may have ended the transaction itself.
        if transaction != nil { try commitWrite() }
        return result
    }

    /// Runs `block` inside the current write transaction, or in one of its own (committed at once)
    /// when none is open: the implicit write of SwiftUI's `@ObservedResults` and of the REPL verbs.
    @discardableResult
    public func writeImplicitly<T>(_ block: () throws -> T) throws -> T {
        if transaction != nil { return try block() }
        return try write(block)
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
        guard !isFrozen, transaction == nil else { return false }
        _ = readStamp(force: true)
        // Compared with what the last refresh saw, not with the read stamp: a read since the
        // commit has already moved the stamp, and the commit must still be delivered.
        let committedElsewhere = lastDataVersion != refreshedDataVersion
        refreshedDataVersion = lastDataVersion
        var changes = mailbox.take()
        if committedElsewhere && changes.isEmpty {
            // Another process committed: the details are not known here.
            var opaque = ChangeSet()
            opaque.version = version
            opaque.isOpaque = true
            changes = [opaque]
        }
        guard !changes.isEmpty else { return false }
        deliverNotifications(for: changes)
        return true
    }
}
