/// A statement both stores run word for word, written once in PostgreSQL's numbering (`$1`, `$2`…).
/// SQLite's text numbers the same parameters `?1`, `?2`…: SQLite would read `$1` as a named
/// parameter, numbered by its first appearance rather than by its digits.
package struct StoreStatement: Sendable {
    package let postgres: String
    package let sqlite: String

    init(_ text: String) {
        postgres = text
        sqlite = Self.numberedForSQLite(text)
    }

    /// `text` with each `$n` outside a quoted literal written `?n`.
    private static func numberedForSQLite(_ text: String) -> String {
        var result = ""
        var quoted = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == "'" { quoted.toggle() }
            let numbersAParameter = next < text.endIndex && text[next].isASCII && text[next].isNumber
            result.append(character == "$" && !quoted && numbersAParameter ? "?" : character)
            index = next
        }
        return result
    }
}

/// The statements the two stores share; what differs by dialect (upserts, arrays, savepoints, the
/// batched reads) stays with each store. `live = TRUE` rather than `live`: SQLite uses the index
/// `objects_by_class(class, live, id)` for an equality only, and PostgreSQL reads both alike.
package enum StoreStatements {
    // Objects and fields.
    package static let historySalt = StoreStatement("SELECT value FROM meta WHERE key = 'history_salt'")
    package static let liveObjects = StoreStatement(
        "SELECT id, pk FROM objects WHERE class = $1 AND live = TRUE AND id > $2 ORDER BY id LIMIT $3")
    /// `liveObjects` with their creators: a view's candidates (`ViewScan`).
    package static let liveObjectsWithCreators = StoreStatement(
        "SELECT id, pk, creator FROM objects WHERE class = $1 AND live = TRUE AND id > $2 ORDER BY id LIMIT $3")
    /// Ordered by path: BYTEA in PostgreSQL orders bytewise, as SQLite orders the same paths as text.
    package static let fieldTimes = StoreStatement(
        "SELECT path, clock, client, replaced_at, replaced_by FROM fields WHERE object = $1 ORDER BY path")

    // Lists, sets and maps.
    package static let listElement = StoreStatement(
        "SELECT \(StoredColumns.element) FROM list_elements "
            + "WHERE object = $1 AND field = $2 AND clock = $3 AND client = $4 AND idx = $5")
    package static let listElements = StoreStatement(
        "SELECT \(StoredColumns.element) FROM list_elements WHERE object = $1 AND field = $2")
    package static let listClear = StoreStatement(
        "SELECT clock, client FROM list_clears WHERE object = $1 AND field = $2")
    package static let setEntry = StoreStatement(
        "SELECT \(StoredColumns.setEntry) FROM set_entries WHERE object = $1 AND field = $2 AND value = $3")
    package static let setEntries = StoreStatement(
        "SELECT value, \(StoredColumns.setEntry) FROM set_entries WHERE object = $1 AND field = $2")
    package static let mapEntry = StoreStatement(
        "SELECT \(StoredColumns.mapEntry) FROM map_entries WHERE object = $1 AND field = $2 AND key = $3")
    package static let mapEntries = StoreStatement(
        "SELECT \(StoredColumns.mapEntry) FROM map_entries WHERE object = $1 AND field = $2")

    // Holders, client files and the history.
    package static let holders = StoreStatement("SELECT file_id FROM held WHERE object = $1")
    package static let client = StoreStatement(
        "SELECT \(StoredColumns.client), user_name FROM clients WHERE file_id = $1")
    package static let history = StoreStatement(
        "SELECT server_version, kept FROM history WHERE server_version > $1 ORDER BY server_version LIMIT $2")
    package static let originalChangesets = StoreStatement(
        "SELECT server_version, original FROM history WHERE server_version > $1 ORDER BY server_version LIMIT $2")
    /// A file's client versions rise with the server version: the last one is the highest, one index
    /// seek away (max() would read every changeset of the file).
    package static let highestClientVersion = StoreStatement(
        "SELECT client_version FROM history WHERE client_file_id = $1 AND server_version <= $2 "
            + "ORDER BY server_version DESC LIMIT 1")

    // The inbox.
    package static let unsettledUploads = StoreStatement(
        "SELECT \(StoredColumns.inboxUpload) FROM inbox WHERE settled_at IS NULL ORDER BY id LIMIT $1")
    package static let settledUploads = StoreStatement(
        "SELECT id, outcome FROM inbox WHERE client_file_id = $1 AND settled_at IS NOT NULL")
    package static let settleUpload = StoreStatement(
        "UPDATE inbox SET outcome = $1, settled_at = $2 WHERE id = $3 AND settled_at IS NULL")
    package static let dropUnsettledUploads = StoreStatement(
        "DELETE FROM inbox WHERE client_file_id = $1 AND settled_at IS NULL")
}
