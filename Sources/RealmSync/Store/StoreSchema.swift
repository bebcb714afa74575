/// The tables of the sync store, written once for every store: each renders them in its own
/// `StoreDialect` (SQLite's in `Store/SQLite/`, PostgreSQL's in RealmSyncPostgres). A column means
/// the same in every store; only how it is kept differs (a boolean is an INTEGER in SQLite, a key
/// text is BYTEA in PostgreSQL, whose text cannot hold a NUL). docs/SYNC.md "The server" says what
/// each table holds.
///
/// A new table or column goes here, with the upgrade that brings an existing store to it in each
/// store's opening code (`SQLiteSyncStore.upgrades`, `PostgresStoreSchema.upgrades`).
package enum StoreSchema {
    package enum ColumnType {
        /// The row's own number, given by the store on insert (objects, the held log, the inbox).
        case rowID
        /// A 64-bit number; unsigned ones (versions, clocks, file ids, salts) bit for bit.
        case integer
        case boolean
        case text
        /// Encoded values, primary keys, changesets and positions.
        case bytes
        /// A text used in a key that may hold any character (field paths, map keys).
        case keyText
    }

    package struct Column {
        package let name: String
        package let type: ColumnType
        package let isNullable: Bool
    }

    package struct Table {
        package let name: String
        package let columns: [Column]
        package let primaryKey: [String]
        package let unique: [String]
    }

    package struct Index {
        package let name: String
        package let table: String
        package let columns: [String]
        /// A partial index's condition.
        package let condition: String?
    }

    private static func column(_ name: String, _ type: ColumnType, nullable: Bool = false) -> Column {
        Column(name: name, type: type, isNullable: nullable)
    }

    /// A write time: the clock and the client file of its changeset.
    private static func time(_ prefix: String = "") -> [Column] {
        [column(prefix + "clock", .integer), column(prefix + "client", .integer)]
    }

    package static let tables: [Table] = [
        Table(
            name: "meta", columns: [column("key", .text), column("value", .integer)], primaryKey: ["key"], unique: []),
        Table(
            name: "objects",
            columns: [
                column("id", .rowID), column("class", .text), column("pk", .bytes), column("live", .boolean),
                column("erased_at", .integer), column("erased_by", .integer), column("creator", .text),
                column("created_at", .integer),
            ],
            primaryKey: ["id"], unique: ["class", "pk"]),
        Table(
            name: "fields",
            columns: [column("object", .integer), column("path", .keyText), column("value", .bytes, nullable: true)]
                + time() + [column("replaced_at", .integer), column("replaced_by", .integer)],
            primaryKey: ["object", "path"], unique: []),
        Table(
            name: "list_elements",
            columns: [column("object", .integer), column("field", .text)] + time()
                + [column("idx", .integer), column("position", .bytes)] + time("position_")
                + [column("value", .bytes)] + time("value_") + [column("erased", .boolean)],
            primaryKey: ["object", "field", "clock", "client", "idx"], unique: []),
        Table(
            name: "list_clears", columns: [column("object", .integer), column("field", .text)] + time(),
            primaryKey: ["object", "field"], unique: []),
        Table(
            name: "set_entries",
            columns: [
                column("object", .integer), column("field", .text), column("value", .bytes),
                column("present", .boolean),
            ] + time(),
            primaryKey: ["object", "field", "value"], unique: []),
        Table(
            name: "map_entries",
            columns: [
                column("object", .integer), column("field", .text), column("key", .keyText),
                column("value", .bytes, nullable: true),
            ] + time(),
            primaryKey: ["object", "field", "key"], unique: []),
        Table(
            name: "history",
            columns: [
                column("server_version", .integer), column("client_file_id", .integer),
                column("client_version", .integer), column("based_on", .integer), column("clock", .integer),
                column("original", .bytes), column("kept", .bytes),
            ],
            primaryKey: ["server_version"], unique: []),
        Table(
            name: "clients",
            columns: [
                column("file_id", .integer), column("salt", .integer), column("last_client_version", .integer),
                column("user_name", .text),
            ],
            primaryKey: ["file_id"], unique: []),
        Table(
            name: "held", columns: [column("file_id", .integer), column("object", .integer)],
            primaryKey: ["file_id", "object"], unique: []),
        Table(
            name: "held_log",
            columns: [
                column("seq", .rowID), column("file_id", .integer), column("object", .integer),
                column("server_version", .integer), column("query_version", .integer), column("held", .boolean),
            ],
            primaryKey: ["seq"], unique: []),
        Table(
            name: "inbox",
            columns: [
                column("id", .rowID), column("client_file_id", .integer), column("last_client_version", .integer),
                column("body", .bytes), column("outcome", .bytes, nullable: true),
                column("settled_at", .integer, nullable: true),
            ],
            primaryKey: ["id"], unique: ["client_file_id", "last_client_version"]),
    ]

    package static let indexes: [Index] = [
        Index(name: "objects_by_class", table: "objects", columns: ["class", "live", "id"], condition: nil),
        Index(
            name: "history_by_client", table: "history", columns: ["client_file_id", "server_version"], condition: nil),
        Index(name: "held_by_object", table: "held", columns: ["object", "file_id"], condition: nil),
        Index(
            name: "held_log_by_version", table: "held_log", columns: ["file_id", "server_version"], condition: nil),
        Index(name: "held_log_by_object", table: "held_log", columns: ["file_id", "object"], condition: nil),
        Index(name: "inbox_unsettled", table: "inbox", columns: ["id"], condition: "settled_at IS NULL"),
    ]

    /// The statements that create every table and index missing, one statement each.
    package static func creation(in dialect: StoreDialect) -> [String] {
        tables.map { create($0, dialect) }
            + indexes.map { index in
                "CREATE INDEX IF NOT EXISTS \(index.name) ON \(index.table)(\(index.columns.joined(separator: ", ")))"
                    + (index.condition.map { " WHERE \($0)" } ?? "")
            }
    }

    private static func create(_ table: Table, _ dialect: StoreDialect) -> String {
        // A key of one number is the row's own key (SQLite's rowid): written on its column.
        let inlineKey = table.primaryKey.count == 1 ? table.primaryKey[0] : nil
        var parts = table.columns.map { column -> String in
            if column.type == .rowID { return "\(column.name) \(dialect.typeName(.rowID))" }
            var text = "\(column.name) \(dialect.typeName(column.type))"
            if column.name == inlineKey { return text + " PRIMARY KEY" }
            if !column.isNullable { text += " NOT NULL" }
            return text
        }
        if inlineKey == nil { parts.append("PRIMARY KEY(\(table.primaryKey.joined(separator: ", ")))") }
        if !table.unique.isEmpty { parts.append("UNIQUE(\(table.unique.joined(separator: ", ")))") }
        let keyedByRow = table.columns.contains { $0.type == .rowID || ($0.name == inlineKey && $0.type == .integer) }
        return "CREATE TABLE IF NOT EXISTS \(table.name)(\(parts.joined(separator: ", ")))"
            + (keyedByRow ? "" : dialect.tableWithoutRowID)
    }
}

/// How a store's SQL spells the schema's types.
package struct StoreDialect: Sendable {
    /// The SQL type of each column type; `rowID`'s includes its PRIMARY KEY (a number the store
    /// assigns).
    package let typeName: @Sendable (StoreSchema.ColumnType) -> String
    /// Appended to a table keyed by something else than a row number ("" where nothing is gained).
    package let tableWithoutRowID: String

    package init(
        typeName: @escaping @Sendable (StoreSchema.ColumnType) -> String, tableWithoutRowID: String
    ) {
        self.typeName = typeName
        self.tableWithoutRowID = tableWithoutRowID
    }
}
