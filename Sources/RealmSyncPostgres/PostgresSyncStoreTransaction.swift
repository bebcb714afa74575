import RealmDatabase
import RealmSync

/// The records of `PostgresSyncStore`, read and written inside one of its transactions: the same
/// rows as `SQLiteSyncStoreTransaction` writes.
///
/// Every statement is a round trip, and the integrator reads and writes a record at a time, so:
/// - writes of the hot tables (objects, fields, held, held log, history, clients) wait in
///   `PendingRows`, one per savepoint level, and go as one statement per table when the
///   transaction next reads the database, writes another table, or commits (`flushWrites`);
/// - what was read or written is kept (`cache`), and `prefetch` reads many objects' records,
///   fields and holders in three statements;
/// - so a savepoint is kept in memory (the pending rows and the cache's journal) and becomes a
///   PostgreSQL SAVEPOINT only when statements must be sent inside it.
///
/// Invariant: the database plus the pending rows, outermost level first, is the transaction's
/// state; the cache agrees with it; a statement that reads the database sends the pending rows first.
final class PostgresSyncStoreTransaction: SyncStoreTransaction {
    let db: BlockingPostgresConnection
    /// Per class, the default of each single-valued field (`StoreFieldDefaults`).
    let fieldDefaults: [String: [String: SyncValue]]
    var cache = PostgresRowCache()
    /// The transaction itself, then each open savepoint, innermost last.
    private var levels: [Level] = [Level(name: nil)]
    private var savepointCount = 0
    /// The latest server version, once read; `appendHistory` moves it on.
    var latestVersion: UInt64?
    /// Rows the pending rows wrote when sent: how much the store grows (`PostgresSyncStore` analyzes).
    var rowsSent = 0
    /// Ids taken from the objects' sequence for new objects, kept by the store.
    let objectIDs: ObjectIDPool

    /// A savepoint level (or the transaction, `name` nil): its pending rows, and whether PostgreSQL
    /// has its SAVEPOINT (set when statements were sent inside it).
    private struct Level {
        var name: String?
        var rows = PendingRows()
        var isOpenInDatabase: Bool
        var latestVersion: UInt64?

        init(name: String?, latestVersion: UInt64? = nil) {
            self.name = name
            self.isOpenInDatabase = name == nil
            self.latestVersion = latestVersion
        }
    }

    init(_ db: BlockingPostgresConnection, fieldDefaults: [String: [String: SyncValue]], objectIDs: ObjectIDPool) {
        self.db = db
        self.fieldDefaults = fieldDefaults
        self.objectIDs = objectIDs
    }

    // MARK: Statements

    /// The rows of a statement that reads: the pending writes are sent first, so it sees them.
    func select(_ sql: String, _ values: [PostgresValue] = [], _ operation: @autoclosure () -> String) throws
        -> [StoreRow]
    {
        try flushWrites()
        return try db.rows(sql, values, operation())
    }

    /// The rows of a read of records whose pending writes the cache answers for, so it need not send
    /// them: objects by key (a write of one caches it), client files by id, the latest version (read
    /// before any history is appended); and `prefetch`'s, which sends them first.
    func lookUp(_ sql: String, _ values: [PostgresValue] = [], _ operation: @autoclosure () -> String) throws
        -> [StoreRow]
    {
        try db.rows(sql, values, operation())
    }

    /// A write the pending rows do not hold, sent after them, inside every open savepoint.
    func execute(_ sql: String, _ values: [PostgresValue] = [], _ operation: @autoclosure () -> String) throws {
        try flushWrites(openingEverySavepoint: true)
        try db.send(sql, values, operation())
    }

    /// Sends the pending rows, outermost level first, each after its level's SAVEPOINT.
    /// `openingEverySavepoint`: for a statement about to be sent in the innermost level.
    func flushWrites(openingEverySavepoint: Bool = false) throws {
        let deepest =
            openingEverySavepoint ? levels.count - 1 : (levels.lastIndex { !$0.rows.isEmpty } ?? -1)
        guard deepest >= 0 else { return }
        for index in 0...deepest {
            if !levels[index].isOpenInDatabase, let name = levels[index].name {
                try db.send("SAVEPOINT \(name)", [], "opening a savepoint")
                levels[index].isOpenInDatabase = true
            }
            guard !levels[index].rows.isEmpty else { continue }
            let rows = levels[index].rows
            levels[index].rows = PendingRows()
            try send(rows)
        }
    }

    /// The pending rows of the innermost level: where writes go.
    var pending: PendingRows {
        get { levels[levels.count - 1].rows }
        _modify { yield &levels[levels.count - 1].rows }
    }

    // MARK: Encoding of keys

    /// Paths are stored as names joined by U+0001 (which no valid property name holds), so the paths
    /// below one are a key range: from the path and U+0001 up to the path and U+0002.
    static let pathSeparator: UInt8 = 1
    static func key(_ path: [String]) -> [UInt8] { Array(path.joined(separator: "\u{1}").utf8) }

    static func path(_ key: [UInt8]) -> [String] {
        key.split(separator: pathSeparator, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    // MARK: Objects

    func objectID(_ ref: ObjectRef) throws -> Int64? {
        if let id = cache.ids[ref] { return id }
        _ = try object(ref)
        return cache.ids[ref]
    }

    func requireObjectID(_ ref: ObjectRef) throws -> Int64 {
        guard let id = try objectID(ref) else {
            throw SyncStoreError("the sync store has no record of \(ref) to write below")
        }
        return id
    }

    /// The ids of `refs` the store has a record of, looked up in one statement for those not cached.
    func resolveIDs(_ refs: [ObjectRef]) throws -> [Int64: ObjectRef] {
        let missing = Array(Set(refs.filter { cache.ids[$0] == nil }))
        if !missing.isEmpty { try readObjects(missing) }
        var result: [Int64: ObjectRef] = [:]
        for ref in refs { if let id = cache.ids[ref] { result[id] = ref } }
        return result
    }

    /// Reads the records of `refs` (none cached) in one statement; those the store lacks are cached
    /// as absent.
    private func readObjects(_ refs: [ObjectRef]) throws {
        for row in try lookUp(
            """
            SELECT o.id, o.class, o.pk, o.live, o.erased_at, o.erased_by, o.creator, o.created_at FROM objects AS o
            JOIN unnest($1::text[], $2::bytea[]) AS r(class, pk) ON o.class = r.class AND o.pk = r.pk
            """,
            [.texts(refs.map(\.className)), .byteArrays(refs.map { StoreEncoding.encode($0.primaryKey) })],
            "reading \(refs.count) objects")
        {
            let (id, ref) = try row.objectInPage()
            cache.objects.set(ref, .some(try row.storedObject(from: 3)))
            cache.ids.set(ref, id)
        }
        for ref in refs where cache.objects[ref] == nil { cache.objects.set(ref, .some(nil)) }
    }

    /// Reads the records, fields and holders of the objects of `refs` not known whole yet, in three
    /// statements: what the integrator and the router are about to ask one at a time. The pending
    /// rows are sent first (none, where the engine calls it: a transaction's start, a read
    /// transaction), so the rows read are the transaction's and may replace what the cache has.
    func prefetch(_ refs: [ObjectRef]) throws {
        try flushWrites()
        let unread = Array(Set(refs.filter { cache.objects[$0] == nil }))
        if !unread.isEmpty { try readObjects(unread) }
        let ids = Set(refs.compactMap { cache.ids[$0] })
        let fieldless = Array(ids.filter { cache.fields[$0]?.isComplete != true })
        if !fieldless.isEmpty {
            var fields = Dictionary(uniqueKeysWithValues: fieldless.map { ($0, [[UInt8]: StoredField?]()) })
            for row in try lookUp(
                "SELECT object, path, value, clock, client, replaced_at, replaced_by FROM fields WHERE object = ANY($1)",
                [.ints(fieldless)], "reading the fields of \(fieldless.count) objects")
            {
                let id = try row.int(0)
                let key = try row.bytes(1) ?? []
                let field = try row.storedField(from: 2, "value of object \(id) at \(Self.path(key))")
                fields[id]?[key] = .some(field)
            }
            for (id, rows) in fields { cache.fields.set(id, ObjectFields(isComplete: true, rows: rows)) }
        }
        let holderless = Array(ids.filter { cache.holders[$0] == nil })
        if !holderless.isEmpty {
            var holders = Dictionary(uniqueKeysWithValues: holderless.map { ($0, Set<UInt64>()) })
            for row in try lookUp(
                "SELECT object, file_id FROM held WHERE object = ANY($1)", [.ints(holderless)],
                "reading the holders of \(holderless.count) objects")
            {
                holders[try row.int(0)]?.insert(try row.u64(1))
            }
            for (id, files) in holders { cache.holders.set(id, files) }
        }
    }

    func latestServerVersion() throws -> UInt64 {
        if let latestVersion { return latestVersion }
        // The history is dense and never deleted from: its last row is the latest version (no
        // counter row that every integration would update).
        let latest =
            try lookUp("SELECT COALESCE(max(server_version), 0) FROM history", [], "reading the latest server version")
            .first?.u64(0) ?? 0
        latestVersion = latest
        return latest
    }

    func historySalt() throws -> UInt64 {
        try select(StoreStatements.historySalt.postgres, [], "reading the history salt").first?.u64(0)
            ?? 0
    }

    func object(_ ref: ObjectRef) throws -> StoredObject? {
        if let cached = cache.objects[ref] { return cached }
        try readObjects([ref])
        return cache.objects[ref] ?? nil
    }

    func existingObjects(ofClass className: String, after cursor: UInt64, limit: Int) throws
        -> [(cursor: UInt64, ref: ObjectRef)]
    {
        try select(
            StoreStatements.liveObjects.postgres,
            [.text(className), .u64(cursor), .int(Int64(max(0, limit)))], "listing the objects of \(className)"
        ).map { row in
            let (id, ref) = try row.objectInPage(ofClass: className)
            cache.ids.set(ref, id)
            return (UInt64(bitPattern: id), ref)
        }
    }

    func existingObjects(
        ofClass className: String, matching predicate: ViewPredicate, user: String, after cursor: UInt64, limit: Int
    ) throws -> [(cursor: UInt64, ref: ObjectRef)] {
        let matches = try ViewScan(predicate: predicate, user: user, defaults: fieldDefaults[className] ?? [:])
            .objects(
                after: cursor, limit: limit,
                page: { after, count in
                    try select(
                        StoreStatements.liveObjectsWithCreators.postgres,
                        [.text(className), .u64(after), .int(Int64(count))], "reading the objects of \(className)"
                    ).map { try $0.viewCandidate(ofClass: className) }
                },
                fields: { try topLevelFields(ofIDs: $0, named: $1) })
        // Cached for the matches only: a bootstrap reads their fields and held state next.
        for match in matches { cache.ids.set(match.ref, Int64(bitPattern: match.cursor)) }
        return matches
    }

    // MARK: Fields

    func field(_ ref: ObjectRef, path: [String]) throws -> StoredField? {
        guard let id = try objectID(ref) else { return nil }
        let key = Self.key(path)
        if let cached = cache.fields[id] {
            if let row = cached.rows[key] { return row }
            if cached.isComplete { return nil }
        }
        let row = try select(
            "SELECT value, clock, client, replaced_at, replaced_by FROM fields WHERE object = $1 AND path = $2",
            [.int(id), .bytes(key)], "reading \(ref).\(path.joined(separator: "."))"
        ).first
        let field = try row.map { try $0.storedField("value of \(ref).\(path.joined(separator: "."))") }
        cache.fields.modify(id, default: ObjectFields()) { $0.rows[key] = .some(field) }
        return field
    }

    func topLevelFields(of ref: ObjectRef) throws -> [String: SyncValue] {
        guard let id = try objectID(ref) else { return [:] }
        return try topLevelFields(ofIDs: [id: ref])[ref] ?? [:]
    }

    func topLevelFields(ofObjects refs: [ObjectRef]) throws -> [ObjectRef: [String: SyncValue]] {
        try topLevelFields(ofIDs: try resolveIDs(refs))
    }

    /// The top-level fields of several objects (of the fields `names` only, when given: a view
    /// query's, what a bootstrap's `ViewScan` compares): from the cache for those read whole, the
    /// others in one statement.
    func topLevelFields(ofIDs refs: [Int64: ObjectRef], named names: [String]? = nil) throws
        -> [ObjectRef: [String: SyncValue]]
    {
        var result: [ObjectRef: [String: SyncValue]] = [:]
        var unread: [Int64] = []
        for (id, ref) in refs {
            guard let cached = cache.fields[id], cached.isComplete else {
                unread.append(id)
                continue
            }
            for (key, field) in cached.rows {
                guard let value = field?.value, !key.contains(Self.pathSeparator) else { continue }
                result[ref, default: [:]][String(decoding: key, as: UTF8.self)] = value
            }
        }
        guard !unread.isEmpty else { return result }
        let rows =
            if let names {
                try select(
                    "SELECT object, path, value FROM fields WHERE object = ANY($1) AND path = ANY($2) AND value IS NOT NULL",
                    [.ints(unread), .byteArrays(names.map { Array($0.utf8) })],
                    "reading fields of \(unread.count) objects")
            } else {
                try select(
                    "SELECT object, path, value FROM fields WHERE object = ANY($1) AND value IS NOT NULL",
                    [.ints(unread)], "reading the fields of \(unread.count) objects")
            }
        for row in rows {
            guard let ref = refs[try row.int(0)], let key = try row.bytes(1), !key.contains(Self.pathSeparator)
            else { continue }
            let name = String(decoding: key, as: UTF8.self)
            result[ref, default: [:]][name] = try row.value(2, "value of \(ref).\(name)")
        }
        return result
    }

    func fieldTimes(of ref: ObjectRef) throws -> [SnapshotTimes.FieldTime] {
        guard let id = try objectID(ref) else { return [] }
        if let cached = cache.fields[id], cached.isComplete {
            // By path key, bytewise, as the statement below orders them.
            return cached.rows.sorted { $0.key.lexicographicallyPrecedes($1.key) }.compactMap { key, field in
                field.map {
                    SnapshotTimes.FieldTime(
                        path: Self.path(key), time: $0.time, replacedAt: $0.replacedAt, replacedBy: $0.replacedBy)
                }
            }
        }
        return try select(
            StoreStatements.fieldTimes.postgres,
            [.int(id)], "reading the field times of \(ref)"
        ).map { row in
            SnapshotTimes.FieldTime(
                path: Self.path(try row.bytes(0) ?? []), time: try row.time(1), replacedAt: try row.u64(3),
                replacedBy: try row.u64(4))
        }
    }

    // MARK: Writes of objects and fields

    func writeObject(_ ref: ObjectRef, _ object: StoredObject) throws {
        let id: Int64
        let isNew: Bool
        if let known = try objectID(ref) {
            id = known
            isNew = false
        } else {
            isNew = true
            // New: its id is taken now, so its fields and holders can name it before it is sent.
            id = try newObjectID()
            cache.ids.set(ref, id)
            cache.fields.set(id, ObjectFields(isComplete: true))
            cache.holders.set(id, [])
        }
        // An outer level's pending create of the same object keeps it new (`PendingRows.absorb`).
        pending.writeObject(id, PendingRows.PendingObject(ref: ref, record: object, isNew: isNew))
        cache.objects.set(ref, .some(object))
    }

    private func newObjectID() throws -> Int64 {
        try objectIDs.next {
            try db.rows(
                "SELECT nextval(pg_get_serial_sequence('objects', 'id')) FROM generate_series(1, $1)", [.int($0)],
                "taking ids for new objects"
            ).map { try $0.int(0) }
        }
    }

    func forgetContents(of ref: ObjectRef) throws {
        guard let id = try objectID(ref) else { return }
        // One statement for the five tables.
        try execute(
            """
            WITH f AS (DELETE FROM fields WHERE object = $1), l AS (DELETE FROM list_elements WHERE object = $1),
                c AS (DELETE FROM list_clears WHERE object = $1), s AS (DELETE FROM set_entries WHERE object = $1)
            DELETE FROM map_entries WHERE object = $1
            """, [.int(id)], "forgetting the contents of \(ref)")
        cache.fields.set(id, ObjectFields(isComplete: true))
    }

    func writeField(_ ref: ObjectRef, path: [String], _ field: StoredField) throws {
        let id = try requireObjectID(ref)
        let key = Self.key(path)
        pending.fields[id, default: [:]][key] = field
        cache.fields.modify(id, default: ObjectFields()) { $0.rows[key] = .some(field) }
    }

    func forgetFields(of ref: ObjectRef, below path: [String]) throws {
        guard let id = try objectID(ref) else { return }
        let key = Self.key(path)
        let range = PendingRows.FieldRange(
            object: id, from: key + [Self.pathSeparator], to: key + [Self.pathSeparator + 1])
        pending.deleteFields(range)
        // Cached rows in the range are now known absent; others in it are read after the delete.
        cache.fields.modify(id, default: ObjectFields()) { fields in
            for cached in fields.rows.keys where range.contains(cached) { fields.rows[cached] = .some(nil) }
        }
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepointCount += 1
        levels.append(Level(name: "s\(savepointCount)", latestVersion: latestVersion))
        cache.begin()
        let result: T
        do {
            result = try body()
            // Statements sent inside it belong to it: one that failed fails it.
            if levels[levels.count - 1].isOpenInDatabase { try db.flush() }
        } catch {
            try undoSavepoint(after: error)
            throw error
        }
        let level = levels.removeLast()
        levels[levels.count - 1].rows.absorb(level.rows)
        cache.keep()
        if level.isOpenInDatabase, let name = level.name {
            try db.send("RELEASE SAVEPOINT \(name)", [], "releasing a savepoint")
        }
        return result
    }

    private func undoSavepoint(after error: any Error) throws {
        let level = levels.removeLast()
        cache.undo()
        latestVersion = level.latestVersion
        guard level.isOpenInDatabase, let name = level.name else { return }
        db.discardPending()
        do {
            try db.query("ROLLBACK TO SAVEPOINT \(name)", [], "rolling back a savepoint")
            try db.query("RELEASE SAVEPOINT \(name)", [], "releasing a savepoint")
        } catch let undoing {
            // The transaction cannot go on; the error says both what failed and why it was undone.
            throw SyncStoreError("\(undoing), while undoing a savepoint after: \(error)")
        }
    }
}
