import CSQLite

/// Something that records each commit of a file inside the commit's own transaction (sync records a
/// changeset per commit this way). Set on `Realm.Configuration.commitRecorder`; every instance
/// opened from that configuration calls the same recorder.
///
/// `willCommit` runs after the commit's version bump and before SQLite's COMMIT: what it writes
/// (through `Realm.executeSQL`) commits with the data, and a throw rolls the whole commit back and
/// reaches the caller of `commitWrite`, the data unchanged. A migration's transaction does not call
/// it (it does not end in `commitWrite`). With no recorder set, a commit costs what it did before.
public protocol CommitRecorder: AnyObject {
    func willCommit(_ realm: Realm, changes: ChangeSet) throws
}

extension Realm {
    /// Runs one SQL statement on this instance's connection, inside whatever transaction is open.
    /// For a `CommitRecorder` and its engine, which keep tables of their own in the file (never a
    /// class's table: writes to those must go through the object API so they are captured).
    package func executeSQL(_ sql: String, _ bindings: [SQLiteValue] = []) throws {
        try connection.run(sql, bindings)
    }

    /// The rows a query returns, each as its column values.
    package func querySQL(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        try connection.forEachRow(sql, bindings) { statement in
            let columns = sqlite3_column_count(statement.handle)
            rows.append((0..<columns).map { statement.value(at: $0) })
        }
        return rows
    }

    /// The live object of `className` with object key `key`, nil when there is none: how a recorder
    /// reads the objects a `ChangeSet` names.
    package func object(ofType className: String, forKey key: Int64) throws -> DynamicObject? {
        let info = try classInfo(className)
        let found = try connection.scalarInt(
            "SELECT count(*) FROM \(StorageLayout.quotedTable(className)) WHERE _key = ?", [.integer(key)])
        guard found ?? 0 > 0 else { return nil }
        return DynamicObject(realm: self, info: info, key: key)
    }

    /// The SQLite table holding a collection property's elements (docs/STORAGE.md).
    package static func collectionTableName(_ className: String, _ property: Property) -> String {
        StorageLayout.collectionTable(className, property)
    }

    /// The SQLite table holding a class's objects.
    package static func classTableName(_ className: String) -> String { StorageLayout.table(className) }

    /// A table or column name quoted for SQL.
    package static func quoteSQLName(_ name: String) -> String { StorageLayout.quote(name) }
}
