import Foundation
import RealmDatabase

/// The records of `SQLiteSyncStore`, read and written inside one of its transactions.
final class SQLiteSyncStoreTransaction: SyncStoreTransaction {
    let db: SQLiteConnection
    /// Per class, the default of each single-valued field (`SQLiteSyncStore.fieldDefaults`).
    private let fieldDefaults: [String: [String: SyncValue]]

    init(_ db: SQLiteConnection, fieldDefaults: [String: [String: SyncValue]]) {
        self.db = db
        self.fieldDefaults = fieldDefaults
    }

    // MARK: Encoding of keys

    /// Paths are stored as names joined by U+0001 (which no valid property name holds), so the paths
    /// below one are a key range.
    private static let pathSeparatorCharacter: Character = "\u{1}"
    private static let pathSeparator = String(pathSeparatorCharacter)
    private static let pathSeparatorByte: UInt8 = 1
    private static func key(_ path: [String]) -> String { path.joined(separator: pathSeparator) }

    /// Row ids of objects read or written in this transaction (`object`, `writeObject`). An object's
    /// row is never deleted, so an id stays valid, except when a savepoint that inserted it is
    /// undone: then the cache is dropped.
    private var objectIDs: [ObjectRef: Int64] = [:]

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

    // MARK: Reads

    func latestServerVersion() throws -> UInt64 {
        try db.row("SELECT value FROM meta WHERE key = 'latest_server_version'")?.first?.u64 ?? 0
    }

    func historySalt() throws -> UInt64 {
        try db.row(StoreStatements.historySalt.sqlite)?.first?.u64 ?? 0
    }

    func object(_ ref: ObjectRef) throws -> StoredObject? {
        guard
            let row = try db.storedRow(
                Self.objectSQL,
                [.text(ref.className), .bytes(StoreEncoding.encode(ref.primaryKey))])
        else { return nil }
        objectIDs[ref] = Int64(bitPattern: try row.u64(0))
        return try row.storedObject(from: 1)
    }

    func existingObjects(ofClass className: String, after cursor: UInt64, limit: Int) throws
        -> [(cursor: UInt64, ref: ObjectRef)]
    {
        try objectPage(
            className,
            try db.storedRows(
                StoreStatements.liveObjects.sqlite,
                [.text(className), .u64(cursor), .integer(Int64(max(0, limit)))]))
    }

    func existingObjects(
        ofClass className: String, matching predicate: ViewPredicate, user: String, after cursor: UInt64, limit: Int
    ) throws -> [(cursor: UInt64, ref: ObjectRef)] {
        let matches = try ViewScan(predicate: predicate, user: user, defaults: fieldDefaults[className] ?? [:])
            .objects(
                after: cursor, limit: limit,
                page: { after, count in
                    try db.storedRows(
                        StoreStatements.liveObjectsWithCreators.sqlite,
                        [.text(className), .u64(after), .integer(Int64(count))]
                    ).map { try $0.viewCandidate(ofClass: className) }
                },
                fields: { try topLevelFields(ofIDs: $0, named: $1) })
        // Remembered for the matches only: a bootstrap reads their fields and held state next.
        for match in matches { objectIDs[match.ref] = Int64(bitPattern: match.cursor) }
        return matches
    }

    /// Rows of `(id, pk)` as refs with their cursor. Their ids are remembered: a bootstrap reads
    /// each object's fields and held state next, which would otherwise look each id up again.
    private func objectPage(_ className: String, _ rows: some Sequence<SQLiteStoredRow>) throws
        -> [(cursor: UInt64, ref: ObjectRef)]
    {
        try rows.map { row in
            let (id, ref) = try row.objectInPage(ofClass: className)
            objectIDs[ref] = id
            return (UInt64(bitPattern: id), ref)
        }
    }

    func field(_ ref: ObjectRef, path: [String]) throws -> StoredField? {
        guard let id = try objectID(ref),
            let row = try db.storedRow(
                Self.fieldSQL,
                [.integer(id), .text(Self.key(path))])
        else { return nil }
        return try row.storedField("value of \(ref).\(path.joined(separator: "."))")
    }

    func topLevelFields(of ref: ObjectRef) throws -> [String: SyncValue] {
        guard let id = try objectID(ref) else { return [:] }
        var result: [String: SyncValue] = [:]
        for row in try db.storedRows(
            "SELECT path, value FROM fields WHERE object = ? AND value IS NOT NULL", [.integer(id)])
        {
            let path = try row.text(0)
            // A byte test: Foundation's substring search cost as much as the query itself here.
            guard !path.utf8.contains(Self.pathSeparatorByte) else { continue }
            result[path] = try row.value(1, "value of \(ref).\(path)")
        }
        return result
    }

    func fieldTimes(of ref: ObjectRef) throws -> [SnapshotTimes.FieldTime] {
        guard let id = try objectID(ref) else { return [] }
        // Times only: a bootstrap reads the values once already (`topLevelFields`).
        return try db.storedRows(
            StoreStatements.fieldTimes.sqlite,
            [.integer(id)]
        ).map { row in
            SnapshotTimes.FieldTime(
                path: try row.text(0).split(separator: Self.pathSeparatorCharacter, omittingEmptySubsequences: false)
                    .map(String.init),
                time: try row.time(1), replacedAt: try row.u64(3), replacedBy: try row.u64(4))
        }
    }

    func topLevelFields(ofObjects refs: [ObjectRef]) throws -> [ObjectRef: [String: SyncValue]] {
        var refsByID: [Int64: ObjectRef] = [:]
        for ref in refs { if let id = try objectID(ref) { refsByID[id] = ref } }
        return try topLevelFields(ofIDs: refsByID, named: nil)
    }

    /// The top-level fields of the objects of these row ids (of the fields `names` only, when given:
    /// a view query's, what a bootstrap's `ViewScan` compares), a chunk of objects per statement.
    private func topLevelFields(ofIDs refs: [Int64: ObjectRef], named names: [String]?) throws
        -> [ObjectRef: [String: SyncValue]]
    {
        let ids = Array(refs.keys)
        let sql = names.map { Self.fieldsOfObjectsSQL + " AND path IN (\(Self.placeholders($0.count)))" }
        let nameBindings = (names ?? []).map { SQLiteValue.text($0) }
        var result: [ObjectRef: [String: SyncValue]] = [:]
        for start in stride(from: 0, to: ids.count, by: Self.objectsPerFieldQuery) {
            let chunk = ids[start..<min(start + Self.objectsPerFieldQuery, ids.count)]
            // One statement for every chunk: a short chunk repeats its first id.
            let padding = [SQLiteValue](
                repeating: .integer(chunk[chunk.startIndex]), count: Self.objectsPerFieldQuery - chunk.count)
            let bindings = chunk.map { .integer($0) } + padding + nameBindings
            for row in try db.storedRows(sql ?? Self.fieldsOfObjectsSQL, bindings) {
                guard let ref = refs[Int64(bitPattern: try row.u64(0))] else { continue }
                let path = try row.text(1)
                guard !path.utf8.contains(Self.pathSeparatorByte) else { continue }
                result[ref, default: [:]][path] = try row.value(2, "value of \(ref).\(path)")
            }
        }
        return result
    }

    private static let objectsPerFieldQuery = 100
    private static let fieldsOfObjectsSQL =
        "SELECT object, path, value FROM fields WHERE object IN (\(placeholders(objectsPerFieldQuery))) AND value IS NOT NULL"

    /// `?, ?, …`: `count` anonymous parameters, numbered by SQLite in order.
    private static func placeholders(_ count: Int) -> String {
        [String](repeating: "?", count: count).joined(separator: ", ")
    }

    // Statements whose column lists come from `StoredColumns`, built once: a statement's text is
    // also its key in the connection's statement cache, and interpolating it per call costs more
    // than the lookup it keys.
    private static let objectSQL = "SELECT id, \(StoredColumns.object) FROM objects WHERE class = ? AND pk = ?"
    private static let fieldSQL = "SELECT \(StoredColumns.field) FROM fields WHERE object = ? AND path = ?"
    private static let writeElementSQL =
        "INSERT OR REPLACE INTO list_elements(object, field, \(StoredColumns.element)) "
        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

    func listElement(_ ref: ObjectRef, field: String, id: ElementID) throws -> StoredListElement? {
        guard let object = try objectID(ref),
            let row = try db.storedRow(
                StoreStatements.listElement.sqlite,
                [
                    .integer(object), .text(field), .u64(id.clock.rawValue), .u64(id.clientFileID),
                    .u64(UInt64(id.index)),
                ])
        else { return nil }
        return try row.listElement(of: ref, field)
    }

    func listElements(_ ref: ObjectRef, field: String) throws -> [StoredListElement] {
        guard let object = try objectID(ref) else { return [] }
        return try db.storedRows(
            StoreStatements.listElements.sqlite,
            [.integer(object), .text(field)]
        ).map { try $0.listElement(of: ref, field) }
    }

    func listClearedAt(_ ref: ObjectRef, field: String) throws -> WriteTime {
        guard let object = try objectID(ref),
            let row = try db.storedRow(
                StoreStatements.listClear.sqlite,
                [.integer(object), .text(field)])
        else { return .zero }
        return try row.time(0)
    }

    func setEntry(_ ref: ObjectRef, field: String, value: SyncValue) throws -> StoredSetEntry? {
        guard let object = try objectID(ref),
            let row = try db.storedRow(
                StoreStatements.setEntry.sqlite,
                [.integer(object), .text(field), .bytes(StoreEncoding.encode(value))])
        else { return nil }
        return try row.setEntry(value)
    }

    func setEntries(_ ref: ObjectRef, field: String) throws -> [StoredSetEntry] {
        guard let object = try objectID(ref) else { return [] }
        return try db.storedRows(
            StoreStatements.setEntries.sqlite,
            [.integer(object), .text(field)]
        ).map { try $0.setEntryWithValue(of: ref, field) }
    }

    func mapEntry(_ ref: ObjectRef, field: String, key: String) throws -> StoredMapEntry? {
        guard let object = try objectID(ref),
            let row = try db.storedRow(
                StoreStatements.mapEntry.sqlite,
                [.integer(object), .text(field), .text(key)])
        else { return nil }
        return try row.mapEntry(of: ref, field)
    }

    func mapEntries(_ ref: ObjectRef, field: String) throws -> [StoredMapEntry] {
        guard let object = try objectID(ref) else { return [] }
        return try db.storedRows(
            StoreStatements.mapEntries.sqlite,
            [.integer(object), .text(field)]
        ).map { try $0.mapEntry(of: ref, field) }
    }

    func history(after serverVersion: UInt64, limit: Int) throws -> [HistoryEntry] {
        try db.storedRows(
            StoreStatements.history.sqlite,
            [.u64(serverVersion), .integer(Int64(max(0, limit)))]
        ).map { try $0.historyEntry() }
    }

    func originalChangesets(after serverVersion: UInt64, limit: Int) throws -> [(serverVersion: UInt64, Changeset)] {
        try db.storedRows(
            StoreStatements.originalChangesets.sqlite,
            [.u64(serverVersion), .integer(Int64(max(0, limit)))]
        ).map { row in
            let entry = try row.historyEntry()
            return (entry.serverVersion, entry.kept)
        }
    }

    func highestClientVersion(of clientFileID: UInt64, atOrBelow serverVersion: UInt64) throws -> UInt64 {
        try db.row(
            StoreStatements.highestClientVersion.sqlite,
            [.u64(clientFileID), .u64(serverVersion)]
        )?.first?.u64 ?? 0
    }

    func latestClock(atOrBelow serverVersion: UInt64) throws -> HLCTimestamp {
        // Clocks are stored as their bit pattern; readings stay below 2^63 until the year 4400.
        HLCTimestamp(
            rawValue: try db.row("SELECT max(clock) FROM history WHERE server_version <= ?", [.u64(serverVersion)])?
                .first?.u64 ?? 0)
    }

    func client(_ fileID: UInt64) throws -> ClientRecord? {
        guard
            let row = try db.storedRow(
                StoreStatements.client.sqlite, [.u64(fileID)])
        else { return nil }
        return try row.client(fileID)
    }

    // MARK: Writes

    func writeObject(_ ref: ObjectRef, _ object: StoredObject) throws {
        let row = try db.row(
            """
            INSERT INTO objects(class, pk, live, erased_at, erased_by, creator, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(class, pk) DO UPDATE SET live = excluded.live, erased_at = excluded.erased_at,
                erased_by = excluded.erased_by, creator = excluded.creator, created_at = excluded.created_at
            RETURNING id
            """,
            [
                .text(ref.className), .bytes(StoreEncoding.encode(ref.primaryKey)), .integer(object.exists ? 1 : 0),
                .u64(object.erasedAt), .u64(object.erasedBy), .text(object.creator),
                .u64(object.createdAt),
            ])
        if case .integer(let id)? = row?.first { objectIDs[ref] = id }
    }

    func forgetContents(of ref: ObjectRef) throws {
        guard let id = try objectID(ref) else { return }
        for table in ["fields", "list_elements", "list_clears", "set_entries", "map_entries"] {
            try db.run("DELETE FROM \(table) WHERE object = ?", [.integer(id)])
        }
    }

    func writeField(_ ref: ObjectRef, path: [String], _ field: StoredField) throws {
        try db.run(
            "INSERT OR REPLACE INTO fields(object, path, value, clock, client, replaced_at, replaced_by) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .integer(try requireObjectID(ref)), .text(Self.key(path)),
                field.value.map { .bytes(StoreEncoding.encode($0)) } ?? .null,
            ]
                + SQLiteValue.time(field.time) + [.u64(field.replacedAt), .u64(field.replacedBy)])
    }

    func forgetFields(of ref: ObjectRef, below path: [String]) throws {
        guard let id = try objectID(ref) else { return }
        let prefix = Self.key(path) + Self.pathSeparator
        try db.run(
            "DELETE FROM fields WHERE object = ? AND substr(path, 1, length(?)) = ?",
            [.integer(id), .text(prefix), .text(prefix)])
    }

    func writeListElement(_ ref: ObjectRef, field: String, _ element: StoredListElement) throws {
        let id = element.id
        try db.run(
            Self.writeElementSQL,
            [
                .integer(try requireObjectID(ref)), .text(field), .u64(id.clock.rawValue), .u64(id.clientFileID),
                .u64(UInt64(id.index)), .bytes(element.position.bytes),
            ] + SQLiteValue.time(element.positionTime) + [.bytes(StoreEncoding.encode(element.value))]
                + SQLiteValue.time(element.valueTime) + [.integer(element.isErased ? 1 : 0)])
    }

    func writeListClearedAt(_ ref: ObjectRef, field: String, _ time: WriteTime) throws {
        try db.run(
            "INSERT OR REPLACE INTO list_clears(object, field, clock, client) VALUES (?, ?, ?, ?)",
            [.integer(try requireObjectID(ref)), .text(field)] + SQLiteValue.time(time))
    }

    func writeSetEntry(_ ref: ObjectRef, field: String, _ entry: StoredSetEntry) throws {
        try db.run(
            "INSERT OR REPLACE INTO set_entries(object, field, value, present, clock, client) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .integer(try requireObjectID(ref)), .text(field), .bytes(StoreEncoding.encode(entry.value)),
                .integer(entry.isPresent ? 1 : 0),
            ] + SQLiteValue.time(entry.time))
    }

    func writeMapEntry(_ ref: ObjectRef, field: String, _ entry: StoredMapEntry) throws {
        try db.run(
            "INSERT OR REPLACE INTO map_entries(object, field, key, value, clock, client) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .integer(try requireObjectID(ref)), .text(field), .text(entry.key),
                entry.value.map { .bytes(StoreEncoding.encode($0)) } ?? .null,
            ] + SQLiteValue.time(entry.time))
    }

    func appendHistory(_ record: HistoryRecord) throws {
        let latest = try latestServerVersion()
        guard record.serverVersion == latest + 1 else {
            throw SyncStoreError(
                "history must stay dense: appending server version \(record.serverVersion) after \(latest)")
        }
        let c = record.original
        try db.run(
            "INSERT INTO history(server_version, client_file_id, client_version, based_on, clock, original, kept) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .u64(record.serverVersion), .u64(c.clientFileID), .u64(c.clientVersion), .u64(c.basedOnServerVersion),
                .u64(c.clock.rawValue), .bytes(StoreEncoding.encode(c)), .bytes(StoreEncoding.encode(record.kept)),
            ])
        try db.run(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('latest_server_version', ?)", [.u64(record.serverVersion)])
    }

    func writeClient(_ record: ClientRecord) throws {
        try db.run(
            "INSERT OR REPLACE INTO clients(file_id, salt, last_client_version, user_name) VALUES (?, ?, ?, ?)",
            [.u64(record.fileID), .u64(record.salt), .u64(record.lastIntegratedClientVersion), .text(record.user)])
    }

    func allocateClient(salt: UInt64, user: String) throws -> UInt64 {
        let last = try db.row("SELECT max(file_id) FROM clients")?.first?.u64 ?? 0
        let fileID = last + 1
        try writeClient(ClientRecord(fileID: fileID, salt: salt, lastIntegratedClientVersion: 0, user: user))
        return fileID
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        do {
            return try db.inSavepoint(body)
        } catch {
            objectIDs = [:]
            throw error
        }
    }
}
