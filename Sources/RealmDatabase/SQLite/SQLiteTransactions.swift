/// The kinds of `BEGIN`: when the transaction takes SQLite's locks.
package enum SQLiteTransactionKind: String, Sendable {
    /// Takes no lock until the first read (a read transaction pins its snapshot then).
    case deferred = "DEFERRED"
    /// Takes the write lock at once: writers wait for each other here, not at their first write.
    case immediate = "IMMEDIATE"
}

/// Transactions and savepoints: the only place that writes `BEGIN`, `COMMIT`, `ROLLBACK`,
/// `SAVEPOINT` and `RELEASE`.
///
/// `inTransaction` and `inSavepoint` have first-error semantics (as GRDB's `Database.inTransaction`):
/// when the body throws, the transaction is rolled back and the *body's* error is rethrown, not
/// whatever the rollback reports; when the commit fails, the transaction is rolled back and the
/// commit's error is thrown. `begin`, `commit` and `rollback` are the primitives they are built
/// from, for transactions that span several calls (`Realm.beginWrite` … `commitWrite`).
extension SQLiteConnection {
    func begin(_ kind: SQLiteTransactionKind = .immediate) throws {
        try execute("BEGIN \(kind.rawValue)")
    }

    func commit() throws {
        try execute("COMMIT")
    }

    /// Rolls back the open transaction. Used after another failure, so it reports nothing: when
    /// SQLite already rolled back (some errors do so themselves) there is nothing left to undo.
    func rollback() {
        guard isInTransaction else { return }
        do {
            try execute("ROLLBACK")
        } catch {
            RealmDiagnostics.report(error, while: "rolling back a transaction on \(path)")
        }
    }

    /// Runs `body` in a transaction; commits when it returns `.commit`, rolls back when it returns
    /// `.rollback` or throws.
    @discardableResult
    package func inTransaction<T>(
        _ kind: SQLiteTransactionKind = .immediate,
        _ body: () throws -> (SQLiteTransactionEnd, T)
    ) throws -> T {
        try begin(kind)
        let end: SQLiteTransactionEnd
        let result: T
        do {
            (end, result) = try body()
        } catch {
            rollback()
            throw error
        }
        switch end {
        case .commit:
            do {
                try commit()
            } catch {
                rollback()
                throw error
            }
        case .rollback:
            rollback()
        }
        return result
    }

    /// Runs `body` in a transaction that commits when it returns and rolls back when it throws.
    func inTransaction(_ kind: SQLiteTransactionKind = .immediate, _ body: () throws -> Void) throws {
        try inTransaction(kind) { () throws -> (SQLiteTransactionEnd, Void) in
            try body()
            return (.commit, ())
        }
    }

    /// Runs `body` in a savepoint of the open transaction (or in a transaction of its own when
    /// none is open): its changes are released when it returns and undone when it throws, leaving
    /// the enclosing transaction as it was. Should the undo itself fail, its error is thrown instead
    /// of the body's: the body's writes may still be there, so a caller that goes on after a failed
    /// step (a refused upload, a script's pcall) must not mistake this for an undone step.
    @discardableResult
    package func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        let name = "realm_savepoint"
        try execute("SAVEPOINT \(name)")
        let result: T
        do {
            result = try body()
            try execute("RELEASE \(name)")
        } catch {
            try rollbackToSavepoint(name)
            throw error
        }
        return result
    }

    private func rollbackToSavepoint(_ name: String) throws {
        try execute("ROLLBACK TO \(name)")
        try execute("RELEASE \(name)")
    }
}

/// How a transaction run by `inTransaction` ends.
package enum SQLiteTransactionEnd: Sendable {
    case commit
    case rollback
}
