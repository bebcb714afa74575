import RealmValues

/// Converts the decimal128 values of a file written before decimal format 2, which stored them as
/// text (compared as text by SQLite, so `ORDER BY` put "10" before "9"), to their 16 ordered bytes
/// (`Decimal128.storedBytes`). Runs when a writable realm opens, in one transaction: a failure
/// leaves the file as it was, and the marker is set only with the converted values.
struct DecimalStorageMigration {
    let connection: SQLiteConnection
    /// The file's stored schema: the tables and columns that exist.
    let schema: Schema

    /// A column that may hold decimals: a decimal128 column, or a mixed one with its type tag.
    private struct Column {
        let table: String
        let column: String
        let tag: String?
    }

    func runIfNeeded() throws {
        let meta = MetaTable(connection)
        guard try meta.decimalFormat() < MetaTable.currentDecimalFormat else { return }
        try connection.inTransaction(.immediate) { () throws -> Void in
            // Checked again under the write lock: another connection may have converted the file.
            guard try meta.decimalFormat() < MetaTable.currentDecimalFormat else { return }
            for column in columns() where try exists(column) { try convert(column) }
            try meta.setDecimalFormat(MetaTable.currentDecimalFormat)
        }
    }

    private func columns() -> [Column] {
        var out: [Column] = []
        for objectSchema in schema.objectSchemas {
            for p in objectSchema.persistedProperties where p.type == .decimal128 || p.type == .mixed {
                let mixed = p.type == .mixed
                if p.isCollection {
                    let table = StorageLayout.collectionTable(objectSchema.className, p)
                    out.append(Column(table: table, column: "value", tag: mixed ? "value__t" : nil))
                } else {
                    let table = StorageLayout.table(objectSchema.className)
                    out.append(
                        Column(table: table, column: p.name, tag: mixed ? StorageLayout.typeTagColumn(p.name) : nil))
                }
            }
        }
        return out
    }

    /// Whether the table and columns are there: the stored schema is the file's own account of
    /// itself, and a damaged one must not stop the open here (the open reports it elsewhere, or not).
    private func exists(_ c: Column) throws -> Bool {
        let sql = "SELECT count(*) FROM pragma_table_info(?) WHERE name = ? OR name = ?"
        let found = try connection.scalarInt(sql, [.text(c.table), .text(c.column), .text(c.tag ?? c.column)]) ?? 0
        return found == (c.tag == nil ? 1 : 2)
    }

    /// Rewrites the column's text values; text that is no decimal is left as it was (it read as nil
    /// before and still does).
    private func convert(_ c: Column) throws {
        let table = StorageLayout.quote(c.table)
        let column = StorageLayout.quote(c.column)
        var filter = "typeof(\(column)) = 'text'"
        if let tag = c.tag { filter += " AND \(StorageLayout.quote(tag)) = \(MixedTag.decimal128.rawValue)" }
        var rows: [(Int64, Decimal128)] = []
        try connection.forEachRow("SELECT rowid, \(column) FROM \(table) WHERE \(filter)", cache: false) {
            if let d = Decimal128(string: $0.string(at: 1)) { rows.append(($0.int64(at: 0), d)) }
        }
        let update = "UPDATE \(table) SET \(column) = ? WHERE rowid = ?"
        for (row, d) in rows { try connection.run(update, [.blob(d.storedBytes), .integer(row)]) }
    }
}
