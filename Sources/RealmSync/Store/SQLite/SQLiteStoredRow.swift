import RealmDatabase

/// A row of the SQLite store as the shared decoders read it (`StoredRow`): booleans are integers
/// 0 and 1, texts are TEXT, encoded values BLOBs. `query` (the statement that read it) names the
/// table in an error about the row.
struct SQLiteStoredRow: StoredRow {
    let values: [SQLiteValue]
    let query: String

    init(_ values: [SQLiteValue], readBy query: String) {
        self.values = values
        self.query = query
    }

    func u64(_ column: Int) throws -> UInt64 {
        guard case .integer(let v) = try cell(column) else { throw mistyped(column, "an integer") }
        return UInt64(bitPattern: v)
    }

    func bool(_ column: Int) throws -> Bool { try u64(column) != 0 }

    func text(_ column: Int) throws -> String {
        guard case .text(let v) = try cell(column) else { throw mistyped(column, "a text") }
        return v
    }

    func bytes(_ column: Int) throws -> [UInt8]? {
        switch try cell(column) {
        case .null: return nil
        case .blob(let data): return Array(data)
        default: throw mistyped(column, "a blob")
        }
    }

    private func cell(_ column: Int) throws -> SQLiteValue {
        guard values.indices.contains(column) else {
            throw SyncStoreError(
                "a row of the sync store read by '\(query)' has no column \(column) (it has \(values.count))")
        }
        return values[column]
    }

    private func mistyped(_ column: Int, _ expected: String) -> SyncStoreError {
        SyncStoreError(
            "column \(column) of a row of the sync store read by '\(query)' holds \(values[column]), not \(expected)")
    }
}

extension SQLiteConnection {
    /// The rows of a statement, for the shared decoders (wrapped as they are read: no second array).
    func storedRows(
        _ sql: String, _ bindings: [SQLiteValue] = []
    ) throws -> LazyMapSequence<[[SQLiteValue]], SQLiteStoredRow> {
        try rows(sql, bindings).lazy.map { SQLiteStoredRow($0, readBy: sql) }
    }

    /// The first row of a statement, or nil, for the shared decoders.
    func storedRow(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> SQLiteStoredRow? {
        try rows(sql, bindings).first.map { SQLiteStoredRow($0, readBy: sql) }
    }
}
