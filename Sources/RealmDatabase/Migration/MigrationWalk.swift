import Foundation

/// The statement `Migration.enumerateObjects` steps: one `SELECT` over the class's keys up to the
/// old file's largest, in key order, with the old schema's columns beside each key.
///
/// The old object reads its values in place from the statement (`RowCursor`, following the
/// transaction's writes), so no row is copied for it. Writes the block makes do not disturb the
/// walk: it goes by the table's integer key, which SQLite's cursor finds again after a write to
/// the table, and keys are never reused, so objects the block creates (keys above the bound) are
/// not visited and objects it deletes are not found again.
///
/// A schema change (`renameProperty`, `deleteData`) cannot run while a statement is reading the
/// table: `close()` resets the statement, and the next `next()` prepares it again (with the
/// columns as they are then) after the last key visited.
final class MigrationWalk {
    private let realm: Realm
    private let table: String
    private let oldInfo: ClassInfo?
    private let maxKey: Int64
    private var lastKey = Int64.min
    private var statement: Statement?
    private var finished = false
    /// The cursor the current old objects read from; a new one after each suspension.
    private(set) var cursor: RowCursor?

    init(realm: Realm, table: String, oldInfo: ClassInfo?, maxKey: Int64) {
        self.realm = realm
        self.table = table
        self.oldInfo = oldInfo
        self.maxKey = maxKey
    }

    /// The next key, or nil at the end.
    func next() throws -> Int64? {
        guard !finished else { return nil }
        let more: Bool
        if let statement {
            more = try cursor?.advance() ?? statement.step()
        } else {
            more = try start()
        }
        guard more, let statement else {
            close()
            finished = true
            return nil
        }
        lastKey = statement.int64(at: 0)
        return lastKey
    }

    /// Prepares the statement after the last key visited and steps to its first row.
    private func start() throws -> Bool {
        let columns = oldInfo?.selectRowSQL ?? "t0.\"_key\""
        let statement = try realm.connection.prepare(
            "SELECT \(columns) FROM \(table) AS t0 WHERE t0.\"_key\" > ? AND t0.\"_key\" <= ? ORDER BY t0.\"_key\"")
        try statement.bind([.integer(lastKey), .integer(maxKey)])
        self.statement = statement
        if let oldInfo { cursor = RowCursor(statement, realm: realm, info: oldInfo, followsWrites: true) }
        return try statement.step()
    }

    /// Releases the statement, so that a schema change can run (`Migration.suspendWalks`): the next
    /// `next()` prepares it again from the last key.
    func close() {
        cursor?.close()
        if cursor == nil { statement?.reset() }
        cursor = nil
        statement = nil
    }
}
