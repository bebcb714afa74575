import RealmDatabase
import RealmSync

/// The records of `PostgresSyncStore`, read and written inside one of its transactions: the same
/// rows as `SQLiteSyncStoreTransaction` writes, one statement per call, except where the protocol
/// asks for many objects at once (then one statement for all).
final class PostgresSyncStoreTransaction: SyncStoreTransaction {
    let db: BlockingPostgresConnection
    /// Per class, the default of each single-valued field (`StoreFieldDefaults`).
    let fieldDefaults: [String: [String: SyncValue]]
    /// Row ids of objects read or written in this transaction. An object's row is never deleted, so
    /// an id stays valid, except when a savepoint that inserted it is undone: then the cache is dropped.
    var objectIDs: [ObjectRef: Int64] = [:]
    /// Objects read or written in this transaction (nil: the store has no record): the integrator
    /// reads an object several times per changeset, and each read is a round trip. Dropped with
    /// `objectIDs` when a savepoint is undone.
    private var objects: [ObjectRef: StoredObject?] = [:]
    /// The latest server version, once read; `appendHistory` moves it on.
    var latestVersion: UInt64?
    private var savepoints = 0

    init(_ db: BlockingPostgresConnection, fieldDefaults: [String: [String: SyncValue]]) {
        self.db = db
        self.fieldDefaults = fieldDefaults
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

    /// `what` is only built for the error: a bootstrap decodes hundreds of thousands of values.
    func value(_ bytes: [UInt8]?, _ what: @autoclosure () -> String) throws -> SyncValue? {
        guard let bytes else { return nil }
        do {
            return try StoreEncoding.decodeValue(bytes)
        } catch {
            throw SyncStoreError("\(error) (the stored \(what()))")
        }
    }

    func primaryKey(_ bytes: [UInt8]?) throws -> SyncPrimaryKey {
        try StoreEncoding.decodePrimaryKey(bytes ?? [])
    }

    // MARK: Objects

    func objectID(_ ref: ObjectRef) throws -> Int64? {
        if let id = objectIDs[ref] { return id }
        _ = try object(ref)
        return objectIDs[ref]
    }

    func requireObjectID(_ ref: ObjectRef) throws -> Int64 {
        guard let id = try objectID(ref) else {
            throw SyncStoreError("the sync store has no record of \(ref) to write below")
        }
        return id
    }

    /// The ids of `refs` the store has a record of, looked up in one statement for those not cached.
    func resolveIDs(_ refs: [ObjectRef]) throws -> [Int64: ObjectRef] {
        let missing = Array(Set(refs.filter { objectIDs[$0] == nil }))
        if !missing.isEmpty {
            let rows = try db.rows(
                """
                SELECT o.id, o.class, o.pk FROM objects AS o
                JOIN unnest($1::text[], $2::bytea[]) AS r(class, pk) ON o.class = r.class AND o.pk = r.pk
                """,
                [.texts(missing.map(\.className)), .byteArrays(missing.map { StoreEncoding.encode($0.primaryKey) })],
                "looking up \(missing.count) objects")
            for row in rows { objectIDs[ObjectRef(try row.text(1), try primaryKey(try row.bytes(2)))] = try row.int(0) }
        }
        var result: [Int64: ObjectRef] = [:]
        for ref in refs { if let id = objectIDs[ref] { result[id] = ref } }
        return result
    }

    func latestServerVersion() throws -> UInt64 {
        if let latestVersion { return latestVersion }
        // The history is dense and never deleted from: its last row is the latest version (no
        // counter row that every integration would update).
        let latest =
            try db.rows("SELECT COALESCE(max(server_version), 0) FROM history", [], "reading the latest server version")
            .first?.u64(0) ?? 0
        latestVersion = latest
        return latest
    }

    func historySalt() throws -> UInt64 {
        try db.rows("SELECT value FROM meta WHERE key = 'history_salt'", [], "reading the history salt").first?.u64(0)
            ?? 0
    }

    func object(_ ref: ObjectRef) throws -> StoredObject? {
        if let cached = objects[ref] { return cached }
        let object = try readObject(ref)
        objects[ref] = .some(object)
        return object
    }

    private func readObject(_ ref: ObjectRef) throws -> StoredObject? {
        guard
            let row = try db.rows(
                "SELECT id, live, erased_at, erased_by, creator, created_at FROM objects WHERE class = $1 AND pk = $2",
                [.text(ref.className), .bytes(StoreEncoding.encode(ref.primaryKey))], "reading \(ref)"
            ).first
        else { return nil }
        objectIDs[ref] = try row.int(0)
        return StoredObject(
            exists: try row.bool(1), erasedAt: try row.u64(2), erasedBy: try row.u64(3), creator: try row.text(4),
            createdAt: try row.u64(5))
    }

    func existingObjects(ofClass className: String, after cursor: UInt64, limit: Int) throws
        -> [(cursor: UInt64, ref: ObjectRef)]
    {
        try db.rows(
            "SELECT id, pk FROM objects WHERE class = $1 AND live AND id > $2 ORDER BY id LIMIT $3",
            [.text(className), .u64(cursor), .int(Int64(max(0, limit)))], "listing the objects of \(className)"
        ).map { row in
            let ref = ObjectRef(className, try primaryKey(try row.bytes(1)))
            let id = try row.int(0)
            objectIDs[ref] = id
            return (UInt64(bitPattern: id), ref)
        }
    }

    func existingObjects(
        ofClass className: String, matching predicate: ViewPredicate, user: String, after cursor: UInt64, limit: Int
    ) throws -> [(cursor: UInt64, ref: ObjectRef)] {
        try PostgresViewQuery(transaction: self, className: className, defaults: fieldDefaults[className] ?? [:])
            .objects(matching: predicate, user: user, after: cursor, limit: limit)
    }

    // MARK: Fields

    func field(_ ref: ObjectRef, path: [String]) throws -> StoredField? {
        guard let id = try objectID(ref),
            let row = try db.rows(
                "SELECT value, clock, client, replaced_at, replaced_by FROM fields WHERE object = $1 AND path = $2",
                [.int(id), .bytes(Self.key(path))], "reading \(ref).\(path.joined(separator: "."))"
            ).first
        else { return nil }
        return StoredField(
            value: try value(try row.bytes(0), "value of \(ref).\(path.joined(separator: "."))"), time: try row.time(1),
            replacedAt: try row.u64(3), replacedBy: try row.u64(4))
    }

    func topLevelFields(of ref: ObjectRef) throws -> [String: SyncValue] {
        guard let id = try objectID(ref) else { return [:] }
        return try topLevelFields(ofIDs: [id: ref])[ref] ?? [:]
    }

    func topLevelFields(ofObjects refs: [ObjectRef]) throws -> [ObjectRef: [String: SyncValue]] {
        try topLevelFields(ofIDs: try resolveIDs(refs))
    }

    /// The top-level fields of several objects in one statement.
    func topLevelFields(ofIDs refs: [Int64: ObjectRef]) throws -> [ObjectRef: [String: SyncValue]] {
        guard !refs.isEmpty else { return [:] }
        var result: [ObjectRef: [String: SyncValue]] = [:]
        for row in try db.rows(
            "SELECT object, path, value FROM fields WHERE object = ANY($1) AND value IS NOT NULL",
            [.ints(Array(refs.keys))], "reading the fields of \(refs.count) objects")
        {
            guard let ref = refs[try row.int(0)], let key = try row.bytes(1), !key.contains(Self.pathSeparator)
            else { continue }
            let name = String(decoding: key, as: UTF8.self)
            result[ref, default: [:]][name] = try value(try row.bytes(2), "value of \(ref).\(name)")
        }
        return result
    }

    func fieldTimes(of ref: ObjectRef) throws -> [SnapshotTimes.FieldTime] {
        guard let id = try objectID(ref) else { return [] }
        // BYTEA orders bytewise, as SQLite orders the same paths as text.
        return try db.rows(
            "SELECT path, clock, client, replaced_at, replaced_by FROM fields WHERE object = $1 ORDER BY path",
            [.int(id)], "reading the field times of \(ref)"
        ).map { row in
            SnapshotTimes.FieldTime(
                path: Self.path(try row.bytes(0) ?? []), time: try row.time(1), replacedAt: try row.u64(3),
                replacedBy: try row.u64(4))
        }
    }

    // MARK: Writes of objects and fields

    func writeObject(_ ref: ObjectRef, _ object: StoredObject) throws {
        let row = try db.rows(
            """
            INSERT INTO objects(class, pk, live, erased_at, erased_by, creator, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT(class, pk) DO UPDATE SET live = excluded.live, erased_at = excluded.erased_at,
                erased_by = excluded.erased_by, creator = excluded.creator, created_at = excluded.created_at
            RETURNING id
            """,
            [
                .text(ref.className), .bytes(StoreEncoding.encode(ref.primaryKey)), .bool(object.exists),
                .u64(object.erasedAt), .u64(object.erasedBy), .text(object.creator), .u64(object.createdAt),
            ], "writing \(ref)"
        ).first
        if let row {
            objectIDs[ref] = try row.int(0)
            objects[ref] = .some(object)
        }
    }

    func forgetContents(of ref: ObjectRef) throws {
        guard let id = try objectID(ref) else { return }
        // One statement for the five tables.
        try db.send(
            """
            WITH f AS (DELETE FROM fields WHERE object = $1), l AS (DELETE FROM list_elements WHERE object = $1),
                c AS (DELETE FROM list_clears WHERE object = $1), s AS (DELETE FROM set_entries WHERE object = $1)
            DELETE FROM map_entries WHERE object = $1
            """, [.int(id)], "forgetting the contents of \(ref)")
    }

    func writeField(_ ref: ObjectRef, path: [String], _ field: StoredField) throws {
        try db.send(
            """
            INSERT INTO fields(object, path, value, clock, client, replaced_at, replaced_by)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT(object, path) DO UPDATE SET value = excluded.value, clock = excluded.clock,
                client = excluded.client, replaced_at = excluded.replaced_at, replaced_by = excluded.replaced_by
            """,
            [
                .int(try requireObjectID(ref)), .bytes(Self.key(path)),
                field.value.map { .bytes(StoreEncoding.encode($0)) } ?? .null,
            ] + PostgresValue.time(field.time) + [.u64(field.replacedAt), .u64(field.replacedBy)],
            "writing \(ref).\(path.joined(separator: "."))")
    }

    func forgetFields(of ref: ObjectRef, below path: [String]) throws {
        guard let id = try objectID(ref) else { return }
        let key = Self.key(path)
        try db.send(
            "DELETE FROM fields WHERE object = $1 AND path >= $2 AND path < $3",
            [.int(id), .bytes(key + [Self.pathSeparator]), .bytes(key + [Self.pathSeparator + 1])],
            "forgetting the fields of \(ref) below \(path.joined(separator: "."))")
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        savepoints += 1
        let name = "s\(savepoints)"
        try db.query("SAVEPOINT \(name)", [], "opening a savepoint")
        let result: T
        do {
            result = try body()
            // The writes sent without waiting belong to this savepoint: one that failed fails it.
            try db.flush()
        } catch {
            objectIDs = [:]
            objects = [:]
            latestVersion = nil
            db.discardPending()
            do {
                try db.query("ROLLBACK TO SAVEPOINT \(name)", [], "rolling back a savepoint")
                try db.query("RELEASE SAVEPOINT \(name)", [], "releasing a savepoint")
            } catch let undoing {
                // The transaction cannot go on; the error says both what failed and why it was undone.
                throw SyncStoreError("\(undoing), while undoing a savepoint after: \(error)")
            }
            throw error
        }
        try db.query("RELEASE SAVEPOINT \(name)", [], "releasing a savepoint")
        return result
    }
}
