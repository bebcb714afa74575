import Foundation
import RealmDatabase

/// The client's own tables in the realm file (`_sync_*`, outside the schema). Every read and write
/// runs in whatever transaction the realm has open, so sync metadata commits with the data.
///
/// - `_sync_state(name, value)`: the numbers of `ClientState`.
/// - `_sync_history(client_version, changeset)`: local changesets not yet acknowledged.
/// - `_sync_list(tbl, row, owner, element, position, value)`: each element row of a synced list
///   (keyed by owner too: SQLite reuses the largest row id of a collection table once it is
///   deleted, possibly for another owner's list in the same commit) →
///   its `ElementID` (20 big-endian bytes, so the blob order is the id order), `FractionalPosition`
///   and value at the last commit (to tell a changed element from an unchanged one).
/// - `_sync_collection(tbl, owner, content)`: each synced set's and map's content at the last
///   commit, to diff the next one against.
/// - `_sync_unresolved(class, key, field, ref)`: to-one links the server holds to objects this
///   replica does not have (erased, or not arrived yet): the realm reads them as null, the dump
///   shows the reference, and the link comes back when the object is created again.
/// - `_sync_deferred_erase(ref, recreated, concurrent_through)`: remote erases of objects with a
///   pending local erase, decided when that erase reaches the server (`DownloadApplier.erase`);
///   the local changesets up to client version `concurrent_through` are concurrent with it.
/// - `_sync_pending_bootstrap(seq, server_version, batch)`: bootstrap batches (objects entering the
///   view and removals of those leaving it) until the last one.
/// - `_sync_query_set(version, body)`: the active subscription set (the last one the server
///   completed), which `identify` sends; none before the first.
struct ClientStore {
    let realm: Realm

    static let creation = [
        "CREATE TABLE IF NOT EXISTS _sync_state (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
        """
        CREATE TABLE IF NOT EXISTS _sync_history (client_version INTEGER PRIMARY KEY, changeset BLOB NOT NULL,
        query_version INTEGER NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE IF NOT EXISTS _sync_list (tbl TEXT NOT NULL, row INTEGER NOT NULL, owner INTEGER NOT NULL,
        element BLOB NOT NULL, position BLOB NOT NULL, value BLOB NOT NULL, PRIMARY KEY (tbl, owner, row)) WITHOUT ROWID
        """,
        "CREATE INDEX IF NOT EXISTS _sync_list_order ON _sync_list (tbl, owner, position, element)",
        "CREATE INDEX IF NOT EXISTS _sync_list_element ON _sync_list (tbl, owner, element)",
        """
        CREATE TABLE IF NOT EXISTS _sync_collection (tbl TEXT NOT NULL, owner INTEGER NOT NULL,
        content BLOB NOT NULL, PRIMARY KEY (tbl, owner)) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS _sync_unresolved (class TEXT NOT NULL, key INTEGER NOT NULL, field TEXT NOT NULL,
        ref BLOB NOT NULL, PRIMARY KEY (class, key, field)) WITHOUT ROWID
        """,
        "CREATE INDEX IF NOT EXISTS _sync_unresolved_ref ON _sync_unresolved (ref)",
        """
        CREATE TABLE IF NOT EXISTS _sync_deferred_erase (ref BLOB PRIMARY KEY, recreated INTEGER NOT NULL,
        concurrent_through INTEGER NOT NULL) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS _sync_pending_bootstrap (seq INTEGER PRIMARY KEY, server_version INTEGER NOT NULL,
        batch BLOB NOT NULL)
        """,
        "CREATE TABLE IF NOT EXISTS _sync_query_set (version INTEGER PRIMARY KEY, body BLOB NOT NULL)",
    ]

    /// How many tables `creation` makes.
    static var tableCount: Int { creation.filter { $0.hasPrefix("CREATE TABLE") }.count }

    /// Creates the tables (in the caller's write transaction) when the file has none yet.
    func createTables() throws {
        for sql in Self.creation { try realm.executeSQL(sql) }
    }

    // MARK: State

    func number(_ name: ClientState.Name) throws -> UInt64 {
        let rows = try realm.querySQL("SELECT value FROM _sync_state WHERE name = ?", [.text(name.rawValue)])
        guard let first = rows.first?.first else { return 0 }
        guard case .integer(let v) = first else {
            throw SyncError(.otherError, "The sync state '\(name.rawValue)' is not a number")
        }
        return UInt64(bitPattern: v)
    }

    func setNumber(_ name: ClientState.Name, _ value: UInt64) throws {
        try realm.executeSQL(
            "INSERT OR REPLACE INTO _sync_state (name, value) VALUES (?, ?)",
            [.text(name.rawValue), .integer(Int64(bitPattern: value))])
    }

    func state() throws -> ClientState {
        ClientState(
            clientFileID: try number(.clientFileID), salt: try number(.salt),
            downloadCursor: try number(.downloadCursor), uploadAcknowledged: try number(.uploadAcknowledged),
            lastClientVersion: try number(.lastClientVersion), lastClock: HLCTimestamp(rawValue: try number(.lastClock))
        )
    }

    // MARK: History

    /// Stores `changeset`, replacing the one of its client version (which keeps the subscription set
    /// version it was made under).
    func appendHistory(_ changeset: Changeset) throws {
        try appendHistory(clientVersion: changeset.clientVersion, encoded: Data(ClientEncodings.encode(changeset)))
    }

    /// A changeset already encoded (`ChangesetCodec`), as a commit records it, with the version of
    /// the subscription set it was made under (its writes are judged under that set's view).
    func appendHistory(clientVersion: UInt64, encoded: Data, queryVersion: Int64? = nil) throws {
        try realm.executeSQL(
            """
            INSERT INTO _sync_history (client_version, changeset, query_version) VALUES (?, ?, ?)
            ON CONFLICT(client_version) DO UPDATE SET changeset = excluded.changeset
            """,
            [.integer(Int64(bitPattern: clientVersion)), .blob(encoded), .integer(queryVersion ?? 0)])
    }

    /// Whether a local changeset after client version `after` waits for its acknowledgement.
    func hasHistory(after: UInt64) throws -> Bool {
        !(try realm.querySQL(
            "SELECT 1 FROM _sync_history WHERE client_version > ? LIMIT 1", [.integer(Int64(bitPattern: after))]
        ).isEmpty)
    }

    /// How many local changesets wait for their acknowledgement.
    func historyCount() throws -> Int {
        guard case .integer(let count)? = try realm.querySQL("SELECT count(*) FROM _sync_history").first?.first else {
            return 0
        }
        return Int(clamping: count)
    }

    /// The first local changeset after client version `after` made under subscription set `version`
    /// or a later one; nil when there is none.
    func firstClientVersion(after: UInt64, madeUnder version: Int64) throws -> UInt64? {
        let row = try realm.querySQL(
            "SELECT min(client_version) FROM _sync_history WHERE client_version > ? AND query_version >= ?",
            [.integer(Int64(bitPattern: after)), .integer(version)]
        ).first
        guard case .integer(let value)? = row?.first else { return nil }
        return UInt64(bitPattern: value)
    }

    /// Local changesets after client version `after`, in order.
    func history(after: UInt64 = 0) throws -> [Changeset] {
        let rows = try realm.querySQL(
            "SELECT changeset FROM _sync_history WHERE client_version > ? ORDER BY client_version",
            [.integer(Int64(bitPattern: after))])
        return try rows.map { row in
            guard case .blob(let data)? = row.first else {
                throw SyncError(.badChangeset, "A stored changeset of the sync history is not a blob")
            }
            return try ClientEncodings.decodeChangeset(Array(data))
        }
    }

    func trimHistory(through version: UInt64) throws {
        try realm.executeSQL(
            "DELETE FROM _sync_history WHERE client_version <= ?", [.integer(Int64(bitPattern: version))])
    }

    // MARK: List mirror

    /// The mirror of one list, in list order (position, element id).
    func listMirror(table: String, owner: Int64) throws -> [MirroredElement] {
        let rows = try realm.querySQL(
            """
            SELECT row, element, position, value FROM _sync_list WHERE tbl = ? AND owner = ?
            ORDER BY position, element
            """,
            [.text(table), .integer(owner)])
        return try rows.map { row in
            guard row.count == 4, case .integer(let r) = row[0], case .blob(let e) = row[1],
                case .blob(let p) = row[2], case .blob(let v) = row[3]
            else { throw SyncError(.badChangeset, "A list element of '\(table)' has a damaged sync mirror row") }
            guard let position = FractionalPosition(bytes: Array(p)) else {
                throw SyncError(.badChangeset, "A stored list position of '\(table)' is not a position")
            }
            return MirroredElement(
                row: r, id: try ClientEncodings.decodeElement(e, of: table), position: position,
                value: try ClientEncodings.decodeValue(v))
        }
    }

    func mirrorElement(table: String, owner: Int64, _ element: MirroredElement) throws {
        try realm.executeSQL(
            "INSERT OR REPLACE INTO _sync_list (tbl, row, owner, element, position, value) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(table), .integer(element.row), .integer(owner), .blob(ClientEncodings.encode(element.id)),
                .blob(Data(element.position.bytes)), .blob(ClientEncodings.encode(element.value)),
            ])
    }

    func forgetElement(table: String, owner: Int64, row: Int64) throws {
        try realm.executeSQL(
            "DELETE FROM _sync_list WHERE tbl = ? AND owner = ? AND row = ?",
            [.text(table), .integer(owner), .integer(row)])
    }

    /// Forgets the mirror rows of elements the list no longer has: rows the realm removed on its
    /// own (an element linking to a deleted object), which no instruction recorded.
    func pruneListMirror(table: String, owner: Int64) throws {
        try realm.executeSQL(
            """
            DELETE FROM _sync_list WHERE tbl = ? AND owner = ?
            AND row NOT IN (SELECT _row FROM \(Realm.quoteSQLName(table)) WHERE owner = ?)
            """, [.text(table), .integer(owner), .integer(owner)])
    }

    func forgetList(table: String, owner: Int64) throws {
        try realm.executeSQL("DELETE FROM _sync_list WHERE tbl = ? AND owner = ?", [.text(table), .integer(owner)])
    }

    /// The element rows of one list as the realm orders them (`pos`).
    func listRows(table: String, owner: Int64) throws -> [Int64] {
        let rows = try realm.querySQL(
            "SELECT _row FROM \(Realm.quoteSQLName(table)) WHERE owner = ? ORDER BY pos", [.integer(owner)])
        return rows.compactMap { if case .integer(let r)? = $0.first { return r } else { return nil } }
    }

    // MARK: Set and map mirror

    func collectionMirror(table: String, owner: Int64) throws -> [SyncField]? {
        let rows = try realm.querySQL(
            "SELECT content FROM _sync_collection WHERE tbl = ? AND owner = ?", [.text(table), .integer(owner)])
        guard case .blob(let data)? = rows.first?.first else { return nil }
        return try ClientEncodings.decodeContent(data, of: table)
    }

    func setCollectionMirror(table: String, owner: Int64, _ content: [SyncField]) throws {
        try realm.executeSQL(
            "INSERT OR REPLACE INTO _sync_collection (tbl, owner, content) VALUES (?, ?, ?)",
            [.text(table), .integer(owner), .blob(ClientEncodings.encode(content))])
    }

    func forgetCollection(table: String, owner: Int64) throws {
        try realm.executeSQL(
            "DELETE FROM _sync_collection WHERE tbl = ? AND owner = ?", [.text(table), .integer(owner)])
    }
}

/// One element of a list's mirror: its row in the list table, its id and position.
struct MirroredElement: Hashable {
    var row: Int64
    var id: ElementID
    var position: FractionalPosition
    var value: SyncValue
}

/// What the client knows of where it stands, as stored in `_sync_state`.
struct ClientState: Hashable {
    enum Name: String {
        case clientFileID, salt, downloadCursor, uploadAcknowledged, lastClientVersion, lastClock
    }
    var clientFileID: UInt64
    var salt: UInt64
    var downloadCursor: UInt64
    var uploadAcknowledged: UInt64
    var lastClientVersion: UInt64
    var lastClock: HLCTimestamp
}

extension ClientStore {
    // MARK: Bootstrap batches

    func appendBootstrapBatch(serverVersion: UInt64, _ objects: [ObjectSnapshot], removals: [ObjectRef]) throws {
        try realm.executeSQL(
            "INSERT INTO _sync_pending_bootstrap (server_version, batch) VALUES (?, ?)",
            [
                .integer(Int64(bitPattern: serverVersion)),
                .blob(ClientEncodings.encode(bootstrap: objects, removals: removals, serverVersion: serverVersion)),
            ])
    }

    func hasBootstrapBatches() throws -> Bool {
        !(try realm.querySQL("SELECT 1 FROM _sync_pending_bootstrap LIMIT 1").isEmpty)
    }

    func forgetBootstrapBatches() throws {
        try realm.executeSQL("DELETE FROM _sync_pending_bootstrap")
    }

    /// Every stored batch's objects and removals, in arrival order, and forgets them.
    func takeBootstrap() throws -> (objects: [ObjectSnapshot], removals: [ObjectRef]) {
        let rows = try realm.querySQL("SELECT batch FROM _sync_pending_bootstrap ORDER BY seq")
        try realm.executeSQL("DELETE FROM _sync_pending_bootstrap")
        var objects: [ObjectSnapshot] = []
        var removals: [ObjectRef] = []
        for row in rows {
            guard case .blob(let data)? = row.first else {
                throw SyncError(.badChangeset, "A stored bootstrap batch is not a blob")
            }
            let batch = try ClientEncodings.decodeBootstrap(data)
            objects += batch.objects
            removals += batch.removals
        }
        return (objects, removals)
    }

    // MARK: Active subscription set

    /// The last subscription set the server completed; the empty version 0 before any.
    func activeQuerySet() throws -> QuerySet {
        let rows = try realm.querySQL("SELECT body FROM _sync_query_set ORDER BY version DESC LIMIT 1")
        guard let row = rows.first else { return QuerySet(version: 0, subscriptions: []) }
        guard case .blob(let data)? = row.first else {
            throw SyncError(.badChangeset, "The stored active subscription set is not a blob")
        }
        return try ClientEncodings.decodeQuerySet(data)
    }

    func setActiveQuerySet(_ query: QuerySet) throws {
        try realm.executeSQL("DELETE FROM _sync_query_set")
        try realm.executeSQL(
            "INSERT INTO _sync_query_set (version, body) VALUES (?, ?)",
            [.integer(query.version), .blob(ClientEncodings.encode(query))])
    }
}

extension ClientStore {
    // MARK: Unresolved links

    func rememberUnresolved(_ className: String, _ key: Int64, _ field: String, _ ref: ObjectRef) throws {
        try realm.executeSQL(
            "INSERT OR REPLACE INTO _sync_unresolved (class, key, field, ref) VALUES (?, ?, ?, ?)",
            [.text(className), .integer(key), .text(field), .blob(ClientEncodings.encode(ref))])
    }

    func forgetUnresolved(_ className: String, _ key: Int64, _ field: String? = nil) throws {
        if let field {
            try realm.executeSQL(
                "DELETE FROM _sync_unresolved WHERE class = ? AND key = ? AND field = ?",
                [.text(className), .integer(key), .text(field)])
        } else {
            try realm.executeSQL(
                "DELETE FROM _sync_unresolved WHERE class = ? AND key = ?", [.text(className), .integer(key)])
        }
    }

    /// Whether any link waits for its target.
    func hasUnresolved() throws -> Bool {
        try !realm.querySQL("SELECT 1 FROM _sync_unresolved LIMIT 1").isEmpty
    }

    /// The unresolved links of one object, by field.
    func unresolved(_ className: String, _ key: Int64) throws -> [String: ObjectRef] {
        var links: [String: ObjectRef] = [:]
        for row in try realm.querySQL(
            "SELECT field, ref FROM _sync_unresolved WHERE class = ? AND key = ?", [.text(className), .integer(key)])
        {
            guard row.count == 2, case .text(let field) = row[0], case .blob(let data) = row[1] else { continue }
            links[field] = try ClientEncodings.decodeRef(data)
        }
        return links
    }

    /// The links waiting for `ref`, forgetting them: (class, key, field) of each.
    func takeUnresolved(to ref: ObjectRef) throws -> [(className: String, key: Int64, field: String)] {
        let bytes = ClientEncodings.encode(ref)
        let rows = try realm.querySQL("SELECT class, key, field FROM _sync_unresolved WHERE ref = ?", [.blob(bytes)])
        try realm.executeSQL("DELETE FROM _sync_unresolved WHERE ref = ?", [.blob(bytes)])
        return rows.compactMap { row in
            guard row.count == 3, case .text(let c) = row[0], case .integer(let k) = row[1], case .text(let f) = row[2]
            else { return nil }
            return (c, k, f)
        }
    }
}

extension ClientStore {
    // MARK: Deferred erases

    func deferErase(_ ref: ObjectRef, concurrentThrough: UInt64) throws {
        try realm.executeSQL(
            "INSERT OR REPLACE INTO _sync_deferred_erase (ref, recreated, concurrent_through) VALUES (?, 0, ?)",
            [.blob(ClientEncodings.encode(ref)), .integer(Int64(bitPattern: concurrentThrough))])
    }

    func markRecreated(_ ref: ObjectRef) throws {
        try realm.executeSQL(
            "UPDATE _sync_deferred_erase SET recreated = 1 WHERE ref = ?", [.blob(ClientEncodings.encode(ref))])
    }

    /// Whether the object was created again since its deferred erase, and the last local client
    /// version concurrent with that erase (nil: none deferred); forgets it.
    func takeDeferredErase(_ ref: ObjectRef) throws -> (recreated: Bool, concurrentThrough: UInt64)? {
        let bytes = ClientEncodings.encode(ref)
        let rows = try realm.querySQL(
            "SELECT recreated, concurrent_through FROM _sync_deferred_erase WHERE ref = ?", [.blob(bytes)])
        try realm.executeSQL("DELETE FROM _sync_deferred_erase WHERE ref = ?", [.blob(bytes)])
        guard let row = rows.first, row.count == 2, case .integer(let recreated) = row[0],
            case .integer(let through) = row[1]
        else { return nil }
        return (recreated != 0, UInt64(bitPattern: through))
    }
}
