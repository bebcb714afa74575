import CSQLite
import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync

/// The store's tables are written once (`StoreSchema`) and rendered in each store's dialect: a new
/// SQLite file gets the tables files made by earlier builds have, and such a file is upgraded to the
/// few changes since (the client's user under PostgreSQL's column name, the unsettled uploads as a
/// partial index, the held log by server version).
final class SQLiteStoreSchemaTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try FileManager.default.removeItem(at: folder) }

    /// The tables as builds before `StoreSchema` created them.
    private static let earlierSchema = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS objects(
            id INTEGER PRIMARY KEY, class TEXT NOT NULL, pk BLOB NOT NULL, live INTEGER NOT NULL,
            erased_at INTEGER NOT NULL, erased_by INTEGER NOT NULL, creator TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            UNIQUE(class, pk));
        CREATE INDEX IF NOT EXISTS objects_by_class ON objects(class, live, id);
        CREATE TABLE IF NOT EXISTS fields(
            object INTEGER NOT NULL, path TEXT NOT NULL, value BLOB, clock INTEGER NOT NULL,
            client INTEGER NOT NULL, replaced_at INTEGER NOT NULL, replaced_by INTEGER NOT NULL,
            PRIMARY KEY(object, path)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS list_elements(
            object INTEGER NOT NULL, field TEXT NOT NULL, clock INTEGER NOT NULL, client INTEGER NOT NULL,
            idx INTEGER NOT NULL, position BLOB NOT NULL, position_clock INTEGER NOT NULL,
            position_client INTEGER NOT NULL, value BLOB NOT NULL, value_clock INTEGER NOT NULL,
            value_client INTEGER NOT NULL, erased INTEGER NOT NULL,
            PRIMARY KEY(object, field, clock, client, idx)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS list_clears(
            object INTEGER NOT NULL, field TEXT NOT NULL, clock INTEGER NOT NULL, client INTEGER NOT NULL,
            PRIMARY KEY(object, field)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS set_entries(
            object INTEGER NOT NULL, field TEXT NOT NULL, value BLOB NOT NULL, present INTEGER NOT NULL,
            clock INTEGER NOT NULL, client INTEGER NOT NULL, PRIMARY KEY(object, field, value)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS map_entries(
            object INTEGER NOT NULL, field TEXT NOT NULL, key TEXT NOT NULL, value BLOB,
            clock INTEGER NOT NULL, client INTEGER NOT NULL, PRIMARY KEY(object, field, key)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS history(
            server_version INTEGER PRIMARY KEY, client_file_id INTEGER NOT NULL,
            client_version INTEGER NOT NULL, based_on INTEGER NOT NULL, clock INTEGER NOT NULL,
            original BLOB NOT NULL, kept BLOB NOT NULL);
        CREATE INDEX IF NOT EXISTS history_by_client ON history(client_file_id, server_version);
        CREATE TABLE IF NOT EXISTS clients(
            file_id INTEGER PRIMARY KEY, salt INTEGER NOT NULL, last_client_version INTEGER NOT NULL,
            user TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS held(
            file_id INTEGER NOT NULL, object INTEGER NOT NULL, PRIMARY KEY(file_id, object)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS held_by_object ON held(object, file_id);
        CREATE TABLE IF NOT EXISTS held_log(
            seq INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, object INTEGER NOT NULL,
            server_version INTEGER NOT NULL, query_version INTEGER NOT NULL, held INTEGER NOT NULL);
        DROP INDEX IF EXISTS held_log_by_file;
        CREATE INDEX IF NOT EXISTS held_log_by_version ON held_log(file_id, server_version);
        CREATE INDEX IF NOT EXISTS held_log_by_object ON held_log(file_id, object);
        CREATE TABLE IF NOT EXISTS inbox(
            id INTEGER PRIMARY KEY, client_file_id INTEGER NOT NULL, last_client_version INTEGER NOT NULL,
            body BLOB NOT NULL, outcome BLOB, settled_at INTEGER,
            UNIQUE(client_file_id, last_client_version));
        CREATE INDEX IF NOT EXISTS inbox_unsettled ON inbox(settled_at, id);

        """

    private func connection(_ name: String) throws -> SQLiteConnection {
        try SQLiteConnection(
            path: folder.appendingPathComponent(name).path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
    }

    /// Every table's columns (name, type, NOT NULL, place in the key), whether it has a rowid, and
    /// every index's columns and condition: what a schema is, whatever its CREATE text looks like.
    private func structure(_ db: SQLiteConnection) throws -> [String] {
        var lines: [String] = []
        let tables = try db.rows("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
        for table in tables {
            guard case .text(let name) = table[0], case .text(let sql) = table[1] else { continue }
            lines.append("\(name) without rowid: \(sql.uppercased().contains("WITHOUT ROWID"))")
            for column in try db.rows("SELECT name, type, \"notnull\", pk FROM pragma_table_info('\(name)')") {
                lines.append("\(name).\(column)")
            }
        }
        let indexes = try db.rows(
            "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
        for index in indexes {
            guard case .text(let name) = index[0], case .text(let sql) = index[2] else { continue }
            let columns = try db.rows("SELECT name FROM pragma_index_info('\(name)') ORDER BY seqno")
            let condition = sql.range(of: "WHERE").map { String(sql[$0.lowerBound...]) } ?? ""
            lines.append("index \(name) on \(index[1]) \(columns) \(condition)")
        }
        return lines
    }

    func testANewFileHasTheTablesOfEarlierBuildsWithTheirUpgrades() throws {
        _ = try SQLiteSyncStore(path: folder.appendingPathComponent("new.sqlite").path, historySalt: 1)
        let old = try connection("old.sqlite")
        try old.execute(Self.earlierSchema)
        try old.execute("INSERT INTO clients(file_id, salt, last_client_version, user) VALUES (1, 9, 0, 'alice')")
        try old.execute("CREATE INDEX held_log_by_file ON held_log(file_id, seq)")
        let upgraded = try SQLiteSyncStore(path: folder.appendingPathComponent("old.sqlite").path, historySalt: 1)
        XCTAssertEqual(try upgraded.read { try $0.client(1)?.user }, "alice", "the column renamed keeps its values")
        let expected = try structure(try connection("new.sqlite"))
        XCTAssertEqual(try structure(old), expected)
        XCTAssertTrue(
            expected.contains { $0.hasPrefix("index inbox_unsettled") && $0.hasSuffix("WHERE settled_at IS NULL") })
        XCTAssertTrue(expected.contains("fields without rowid: true"))
        XCTAssertTrue(expected.contains("objects without rowid: false"))
        // Opening an upgraded file again changes nothing.
        _ = try SQLiteSyncStore(path: folder.appendingPathComponent("old.sqlite").path, historySalt: 1)
        XCTAssertEqual(try structure(old), expected)
    }
}
