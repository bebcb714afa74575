import Foundation
import RealmDatabase

/// The client's own tables in the realm file (`_sync_*`, outside the schema). Every read and write
/// runs in whatever transaction the realm has open, so sync metadata commits with the data.
///
/// - `_sync_state(name, value)`: the numbers of `ClientState`.
/// - `_sync_history(client_version, changeset, query_version, stamp)`: local changesets not yet
///   acknowledged; `stamp` is new at every write of the bytes (`DecodedHistory` reads by it).
/// - `_sync_list(tbl, row, owner, element, position, value)`: each element row of a synced list
///   (keyed by owner too: SQLite reuses the largest row id of a collection table once it is
///   deleted, possibly for another owner's list in the same commit) →
///   its `ElementID` (20 big-endian bytes, so the blob order is the id order), `FractionalPosition`
///   and value at the last commit (to tell a changed element from an unchanged one). An element
///   linking an object this replica lacks has no row in the list: its mirror row has a negative
///   `row` of its own (hidden, as Realm hides an unresolved link in a list) and comes back into the
///   list when the object is created.
/// - (Sets and maps have no mirror: their edits are captured as they are made, `SetAndMapEdits`.
///   Files made before keep one in `_sync_collection`, which `createTables` drops.)
/// - `_sync_unresolved_link(class, key, field, entry, ref)`: links the server holds to objects this
///   replica does not have (erased, or not arrived yet), in a to-one field (`entry` empty: the
///   realm reads null), a set (`entry`: the reference; the set lacks it) or a map (`entry`: the
///   key, which reads null). The dump shows the reference, and the link comes back when the object
///   is created again. (Lists keep theirs in `_sync_list`.) Files made before it have
///   `_sync_unresolved(class, key, field, ref)`, to-one links only: `createTables` moves them.
/// - `_sync_deferred_erase(ref, recreated, concurrent_through)`: remote erases of objects with a
///   pending local erase, decided when that erase reaches the server (`DownloadApplier.erase`);
///   the local changesets up to client version `concurrent_through` are concurrent with it.
/// - `_sync_pending_bootstrap(seq, server_version, batch)`: bootstrap batches (objects entering the
///   view and removals of those leaving it) until the last one.
/// - `_sync_query_set(version, body)`: the active subscription set (the last one the server
///   completed), which `identify` sends; none before the first.
/// - `_sync_made_under(version, body)`: the subscription sets the unacknowledged changesets were
///   made under (`_sync_history.query_version`), sent before them in order, so the server judges
///   each write under the view it was made in; gone with the last changeset made under each.
struct ClientStore {
    let realm: Realm
    /// The owning client's decoded changesets (`DecodedHistory`); nil decodes every read.
    var decoded: DecodedHistory? = nil

    static let creation = [
        "CREATE TABLE IF NOT EXISTS _sync_state (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
        """
        CREATE TABLE IF NOT EXISTS _sync_history (client_version INTEGER PRIMARY KEY, changeset BLOB NOT NULL,
        query_version INTEGER NOT NULL DEFAULT 0, stamp INTEGER NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE IF NOT EXISTS _sync_list (tbl TEXT NOT NULL, row INTEGER NOT NULL, owner INTEGER NOT NULL,
        element BLOB NOT NULL, position BLOB NOT NULL, value BLOB NOT NULL, PRIMARY KEY (tbl, owner, row)) WITHOUT ROWID
        """,
        "CREATE INDEX IF NOT EXISTS _sync_list_order ON _sync_list (tbl, owner, position, element)",
        "CREATE INDEX IF NOT EXISTS _sync_list_element ON _sync_list (tbl, owner, element)",
        "CREATE INDEX IF NOT EXISTS _sync_list_hidden ON _sync_list (value) WHERE row < 0",
        """
        CREATE TABLE IF NOT EXISTS _sync_unresolved_link (class TEXT NOT NULL, key INTEGER NOT NULL,
        field TEXT NOT NULL, entry BLOB NOT NULL, ref BLOB NOT NULL, PRIMARY KEY (class, key, field, entry)) WITHOUT ROWID
        """,
        "CREATE INDEX IF NOT EXISTS _sync_unresolved_link_ref ON _sync_unresolved_link (ref)",
        """
        CREATE TABLE IF NOT EXISTS _sync_deferred_erase (ref BLOB PRIMARY KEY, recreated INTEGER NOT NULL,
        concurrent_through INTEGER NOT NULL) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS _sync_pending_bootstrap (seq INTEGER PRIMARY KEY, server_version INTEGER NOT NULL,
        batch BLOB NOT NULL)
        """,
        "CREATE TABLE IF NOT EXISTS _sync_query_set (version INTEGER PRIMARY KEY, body BLOB NOT NULL)",
        "CREATE TABLE IF NOT EXISTS _sync_made_under (version INTEGER PRIMARY KEY, body BLOB NOT NULL)",
    ]

    /// The names of the tables `creation` makes.
    static var tableNames: Set<String> {
        Set(
            creation.compactMap { sql in
                guard sql.hasPrefix("CREATE TABLE IF NOT EXISTS ") else { return nil }
                return sql.dropFirst("CREATE TABLE IF NOT EXISTS ".count).split(separator: " ").first.map(String.init)
            })
    }

    /// Creates the tables (in the caller's write transaction) the file lacks, and moves what an
    /// older file keeps in a table since replaced.
    func createTables() throws {
        for sql in Self.creation { try realm.executeSQL(sql) }
        let old = try realm.querySQL("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sync_unresolved'")
        if !old.isEmpty {
            try realm.executeSQL(
                """
                INSERT OR REPLACE INTO _sync_unresolved_link (class, key, field, entry, ref)
                SELECT class, key, field, X'', ref FROM _sync_unresolved
                """)
            try realm.executeSQL("DROP TABLE _sync_unresolved")
        }
        if try lacksHistoryStamps() {
            try realm.executeSQL("ALTER TABLE _sync_history ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0")
            try realm.executeSQL("UPDATE _sync_history SET stamp = random()")
        }
        // Every commit was recorded whole: no later one is diffed against this mirror.
        try realm.executeSQL("DROP TABLE IF EXISTS _sync_collection")
    }

    /// Whether `createTables` has more to do on a file made by an earlier version than creating
    /// tables: its history lacks stamps, or it keeps the set and map mirror.
    func needsUpgrade() throws -> Bool {
        try lacksHistoryStamps()
            || !realm.querySQL("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sync_collection'").isEmpty
    }

    /// Whether the file's history predates the stamps of its changesets (`DecodedHistory`).
    func lacksHistoryStamps() throws -> Bool {
        try realm.querySQL("SELECT 1 FROM pragma_table_info('_sync_history') WHERE name = 'stamp'").isEmpty
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
    /// the subscription set it was made under (its writes are judged under that set's view). Every
    /// write of the bytes gives them a new stamp (never 0), which `DecodedHistory` reads them by.
    func appendHistory(clientVersion: UInt64, encoded: Data, queryVersion: Int64? = nil) throws {
        try realm.executeSQL(
            """
            INSERT INTO _sync_history (client_version, changeset, query_version, stamp) VALUES (?, ?, ?, ?)
            ON CONFLICT(client_version) DO UPDATE SET changeset = excluded.changeset, stamp = excluded.stamp
            """,
            [
                .integer(Int64(bitPattern: clientVersion)), .blob(encoded), .integer(queryVersion ?? 0),
                .integer(Int64.random(in: 1...Int64.max)),
            ])
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

    /// Local changesets after client version `after`, in order.
    func history(after: UInt64 = 0) throws -> [Changeset] {
        try historyWithQueryVersions(after: after).map(\.changeset)
    }

    /// Local changesets after client version `after`, in order, each with the version of the
    /// subscription set it was made under (0: none).
    func historyWithQueryVersions(after: UInt64) throws -> [(changeset: Changeset, queryVersion: Int64)] {
        // With decoded changesets kept, their stamps are read, and the bytes only of those not kept.
        let rows = try realm.querySQL(
            "SELECT \(decoded == nil ? "changeset" : "stamp"), query_version, client_version FROM _sync_history "
                + "WHERE client_version > ? ORDER BY client_version",
            [.integer(Int64(bitPattern: after))])
        // The versions read, when they are the whole history: what the decoded ones may keep.
        var versions: Set<UInt64>? = after == 0 && decoded != nil ? [] : nil
        let history = try rows.map { row in
            guard row.count == 3, case .integer(let queryVersion) = row[1], case .integer(let clientVersion) = row[2]
            else { throw Self.damagedHistory }
            let version = UInt64(bitPattern: clientVersion)
            versions?.insert(version)
            if let decoded, case .integer(let stamp) = row[0] {
                let changeset = try decoded.changeset(version, stamp: stamp) { try storedChangeset(clientVersion) }
                return (changeset, queryVersion)
            }
            guard case .blob(let data) = row[0] else { throw Self.damagedHistory }
            return (try ClientEncodings.decodeChangeset(Array(data)), queryVersion)
        }
        if let versions { decoded?.keep(only: versions) }
        return history
    }

    private static var damagedHistory: SyncError {
        SyncError(.badChangeset, "A stored changeset of the sync history is damaged")
    }

    /// The stored bytes of the changeset of a client version.
    private func storedChangeset(_ clientVersion: Int64) throws -> Data {
        let rows = try realm.querySQL(
            "SELECT changeset FROM _sync_history WHERE client_version = ?", [.integer(clientVersion)])
        guard case .blob(let data)? = rows.first?.first else { throw Self.damagedHistory }
        return data
    }

    /// The lowest subscription set version above `version` that a changeset after client version
    /// `after` was made under; nil when there is none.
    func firstQueryVersion(after: UInt64, above version: Int64) throws -> Int64? {
        let row = try realm.querySQL(
            "SELECT min(query_version) FROM _sync_history WHERE client_version > ? AND query_version > ?",
            [.integer(Int64(bitPattern: after)), .integer(version)]
        ).first
        guard case .integer(let value)? = row?.first else { return nil }
        return value
    }

    func trimHistory(through version: UInt64) throws {
        try realm.executeSQL(
            "DELETE FROM _sync_history WHERE client_version <= ?", [.integer(Int64(bitPattern: version))])
        try realm.executeSQL(
            "DELETE FROM _sync_made_under WHERE version NOT IN (SELECT query_version FROM _sync_history)")
    }

    /// Keeps the subscription set a changeset is made under (once per version).
    func rememberMadeUnder(_ query: QuerySet) throws {
        try realm.executeSQL(
            "INSERT OR IGNORE INTO _sync_made_under (version, body) VALUES (?, ?)",
            [.integer(query.version), .blob(ClientEncodings.encode(query))])
    }

    /// The subscription set of `version` a changeset was made under, if it is kept.
    func madeUnder(_ version: Int64) throws -> QuerySet? {
        let rows = try realm.querySQL("SELECT body FROM _sync_made_under WHERE version = ?", [.integer(version)])
        guard case .blob(let data)? = rows.first?.first else { return nil }
        return try ClientEncodings.decodeQuerySet(data)
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
    /// own, which no instruction recorded. (A remote erase of an object hides the elements linking
    /// to it first, `hideElement(of:owner:row:)`: their rows are negative and stay.)
    func pruneListMirror(table: String, owner: Int64) throws {
        try realm.executeSQL(
            """
            DELETE FROM _sync_list WHERE tbl = ? AND owner = ? AND row >= 0
            AND row NOT IN (SELECT _row FROM \(Realm.quoteSQLName(table)) WHERE owner = ?)
            """, [.text(table), .integer(owner), .integer(owner)])
    }

    /// A row number for a hidden element of a list: below every row its mirror has.
    func hiddenRow(table: String, owner: Int64) throws -> Int64 {
        let rows = try realm.querySQL(
            "SELECT min(row) FROM _sync_list WHERE tbl = ? AND owner = ?", [.text(table), .integer(owner)])
        guard case .integer(let lowest)? = rows.first?.first else { return -1 }
        return min(lowest, 0) - 1
    }

    /// Before the realm drops an element of `table` that links an object erased remotely: its
    /// mirror row becomes a hidden one, which keeps the link by reference.
    func hideElement(of table: String, owner: Int64, row: Int64) throws {
        try realm.executeSQL(
            "UPDATE _sync_list SET row = ? WHERE tbl = ? AND owner = ? AND row = ?",
            [.integer(try hiddenRow(table: table, owner: owner)), .text(table), .integer(owner), .integer(row)])
    }

    /// The lists (table, owner) with a hidden element linking to `ref`.
    func listsWaiting(for ref: ObjectRef) throws -> [(table: String, owner: Int64)] {
        let rows = try realm.querySQL(
            "SELECT DISTINCT tbl, owner FROM _sync_list WHERE row < 0 AND value = ?",
            [.blob(ClientEncodings.encode(ref))])
        return rows.compactMap { row in
            guard row.count == 2, case .text(let table) = row[0], case .integer(let owner) = row[1] else { return nil }
            return (table, owner)
        }
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

}

/// One element of a list's mirror: its row in the list table, its id and position.
struct MirroredElement: Hashable {
    /// Negative for a hidden element: a link to an object the replica lacks, not in the list.
    var row: Int64
    var id: ElementID
    var position: FractionalPosition
    var value: SyncValue

    var isHidden: Bool { row < 0 }
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

    /// `site.entry`: empty for a to-one field, the reference in a set, the key in a map.
    func rememberUnresolved(_ site: LinkSite, _ ref: ObjectRef) throws {
        try realm.executeSQL(
            "INSERT OR REPLACE INTO _sync_unresolved_link (class, key, field, entry, ref) VALUES (?, ?, ?, ?, ?)",
            [
                .text(site.className), .integer(site.key), .text(site.field), .blob(site.entry),
                .blob(ClientEncodings.encode(ref)),
            ])
    }

    func forgetUnresolved(_ site: LinkSite) throws {
        try realm.executeSQL(
            "DELETE FROM _sync_unresolved_link WHERE class = ? AND key = ? AND field = ? AND entry = ?",
            [.text(site.className), .integer(site.key), .text(site.field), .blob(site.entry)])
    }

    /// Whether a link waits for its object at `site`.
    func isUnresolved(_ site: LinkSite) throws -> Bool {
        !(try realm.querySQL(
            "SELECT 1 FROM _sync_unresolved_link WHERE class = ? AND key = ? AND field = ? AND entry = ?",
            [.text(site.className), .integer(site.key), .text(site.field), .blob(site.entry)]
        ).isEmpty)
    }

    /// Forgets the unresolved links of an object (of one of its fields, when `field` is given).
    func forgetUnresolved(_ className: String, _ key: Int64, _ field: String? = nil) throws {
        if let field {
            try realm.executeSQL(
                "DELETE FROM _sync_unresolved_link WHERE class = ? AND key = ? AND field = ?",
                [.text(className), .integer(key), .text(field)])
        } else {
            try realm.executeSQL(
                "DELETE FROM _sync_unresolved_link WHERE class = ? AND key = ?", [.text(className), .integer(key)])
        }
    }

    /// Whether any link waits for its target (lists' hidden elements included).
    func hasUnresolved() throws -> Bool {
        let rows = try realm.querySQL(
            "SELECT EXISTS (SELECT 1 FROM _sync_unresolved_link) OR EXISTS (SELECT 1 FROM _sync_list WHERE row < 0)")
        return rows.first?.first == .integer(1)
    }

    /// The unresolved links of one object outside lists: (field, entry, reference) of each.
    func unresolved(_ className: String, _ key: Int64) throws -> [(field: String, entry: Data, ref: ObjectRef)] {
        try realm.querySQL(
            "SELECT field, entry, ref FROM _sync_unresolved_link WHERE class = ? AND key = ?",
            [.text(className), .integer(key)]
        ).map { row in
            guard row.count == 3, case .text(let field) = row[0], case .blob(let entry) = row[1],
                case .blob(let ref) = row[2]
            else { throw SyncError(.badChangeset, "An unresolved link of '\(className)' has a damaged row") }
            return (field, entry, try ClientEncodings.decodeRef(ref))
        }
    }

    /// The links waiting for `ref` outside lists, forgetting them.
    func takeUnresolved(to ref: ObjectRef) throws -> [LinkSite] {
        let bytes = ClientEncodings.encode(ref)
        let rows = try realm.querySQL(
            "SELECT class, key, field, entry FROM _sync_unresolved_link WHERE ref = ?", [.blob(bytes)])
        try realm.executeSQL("DELETE FROM _sync_unresolved_link WHERE ref = ?", [.blob(bytes)])
        return rows.compactMap { row in
            guard row.count == 4, case .text(let c) = row[0], case .integer(let k) = row[1],
                case .text(let f) = row[2], case .blob(let e) = row[3]
            else { return nil }
            return LinkSite(className: c, key: k, field: f, entry: e)
        }
    }
}

/// Where a link waits for its target outside a list: an object's field, and in a set the
/// reference itself, in a map the key (`entry`; empty for a to-one field).
struct LinkSite: Hashable {
    let className: String
    let key: Int64
    let field: String
    var entry = Data()

    static func setValue(_ className: String, _ key: Int64, _ field: String, _ ref: ObjectRef) -> LinkSite {
        LinkSite(className: className, key: key, field: field, entry: ClientEncodings.encode(ref))
    }

    static func mapKey(_ className: String, _ key: Int64, _ field: String, _ mapKey: String) -> LinkSite {
        LinkSite(className: className, key: key, field: field, entry: Data(mapKey.utf8))
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
