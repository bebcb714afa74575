import RealmDatabase
import RealmSync

/// The sync store on PostgreSQL (issue 18): the tables and meaning of `SQLiteSyncStore`
/// (`PostgresStoreSchema`), behind the same synchronous protocol, so the integrator decides alike on
/// both. One connection owned by the store; `write` is one `READ COMMITTED` transaction (one
/// integrator writes), `read` one `REPEATABLE READ` snapshot; a transaction's writes wait and go a
/// table at a time (`PostgresSyncStoreTransaction`).
///
/// Not thread-safe: the server engine that owns it serializes every call, from threads that are not
/// the store's event loop (each query blocks the caller until PostgreSQL answers).
public final class PostgresSyncStore: SyncStore {
    private let connection: BlockingPostgresConnection
    /// Per class, the default of each single-valued field, as the SQLite store keeps them.
    private let fieldDefaults: [String: [String: SyncValue]]
    private var inTransaction = false
    private let objectIDs = ObjectIDPool()

    /// Opens the store in the database at `location`, creating or upgrading its tables.
    /// `historySalt` is recorded when the store is created.
    public init(
        location: PostgresStoreLocation, historySalt: UInt64 = UInt64.random(in: 1...UInt64.max),
        schema: Schema? = nil
    ) throws {
        fieldDefaults = schema.map(StoreFieldDefaults.of) ?? [:]
        connection = try BlockingPostgresConnection(location)
        do {
            try PostgresStoreSchema.prepare(connection, historySalt: historySalt)
        } catch {
            connection.close()
            throw error
        }
    }

    /// Opens the store at `url` (`postgres://USER@HOST:PORT/DB`).
    public convenience init(
        url: String, historySalt: UInt64 = UInt64.random(in: 1...UInt64.max), schema: Schema? = nil
    ) throws {
        try self.init(location: try PostgresStoreLocation(parsing: url), historySalt: historySalt, schema: schema)
    }

    /// The database the store is in.
    public var location: PostgresStoreLocation { connection.location }

    /// Closes the connection now (it also closes when the store is released).
    public func close() { connection.close() }

    public func write<T>(_ body: (any SyncStoreTransaction) throws -> T) throws -> T {
        let result = try transaction("BEGIN ISOLATION LEVEL READ COMMITTED", "write") {
            let transaction = PostgresSyncStoreTransaction(
                connection, fieldDefaults: fieldDefaults, objectIDs: objectIDs)
            let result = try body(transaction)
            try transaction.flushWrites()
            rowsSinceAnalyze += transaction.rowsSent
            return result
        }
        analyzeIfGrown()
        return result
    }

    /// Rows this store wrote since it last analyzed its tables, and how many there were then.
    private var rowsSinceAnalyze = 0
    private var rowsAtAnalyze = 0
    /// Analyzed again once the rows written since reach this share of those counted at the last
    /// ANALYZE (and at least `analyzeFloor`): a doubling schedule, a handful of times as a store grows.
    private static let analyzeFloor = 10_000

    /// Updates PostgreSQL's statistics of the tables the integrator grows, once they grew much since
    /// this store last did. Autovacuum does it too, but at most once a minute per table and only
    /// after its own thresholds; until then a table that grew from empty in one burst (a new store,
    /// an import) has no statistics, and the planner scans it whole for every batch of look-ups
    /// (measured: 7–11 ms per statement at 300,000 held rows instead of 0.4 ms). Failing to analyze
    /// loses nothing but speed, so its error is not the write's.
    private func analyzeIfGrown() {
        guard rowsSinceAnalyze >= max(Self.analyzeFloor, rowsAtAnalyze) else { return }
        rowsAtAnalyze += rowsSinceAnalyze
        rowsSinceAnalyze = 0
        _ = try? connection.query(
            "ANALYZE objects, fields, held, held_log, history", [], "analyzing the store's tables")
    }

    public func read<T>(_ body: (any SyncStoreReader) throws -> T) throws -> T {
        // One snapshot for every statement of the transaction.
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "read") {
            try body(PostgresSyncStoreTransaction(connection, fieldDefaults: fieldDefaults, objectIDs: objectIDs))
        }
    }

    /// Runs `body` between `begin` and COMMIT; rolls back when it (or the commit) throws.
    private func transaction<T>(_ begin: String, _ kind: String, _ body: () throws -> T) throws -> T {
        guard !inTransaction else {
            throw SyncStoreError("a sync store transaction was begun inside another on \(connection.location)")
        }
        inTransaction = true
        defer { inTransaction = false }
        try connection.connectIfClosed()
        try connection.query(begin, [], "beginning a \(kind) transaction")
        let result: T
        do {
            result = try body()
            // The writes sent without waiting belong to this transaction: one that failed fails it.
            try connection.flush()
        } catch {
            rollBack()
            throw error
        }
        let commit = try connection.query("COMMIT", [], "committing a \(kind) transaction")
        // A statement that failed inside `body` (its error caught there) aborted the transaction:
        // PostgreSQL answers COMMIT with ROLLBACK. Nothing was written.
        guard commit.metadata.command != "ROLLBACK" else {
            throw SyncStoreError(
                "the \(kind) transaction on the PostgreSQL store \(connection.location) was rolled back: "
                    + "a statement in it failed")
        }
        return result
    }

    /// Rolls back the open transaction; when even that fails the connection is closed (PostgreSQL
    /// then drops the transaction) and the next transaction opens another.
    private func rollBack() {
        connection.discardPending()
        do {
            try connection.query("ROLLBACK", [], "rolling back")
        } catch {
            connection.close(keepingLoop: true)
        }
    }
}
