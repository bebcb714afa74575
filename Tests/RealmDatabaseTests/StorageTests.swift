import CSQLite
import Foundation
import XCTest

@testable import RealmDatabase

/// The storage under a realm: one SQLite file per realm, in WAL mode, with durable commits.
final class StorageTests: RealmTestCase {
    func testTheFileIsAnSQLiteDatabaseInWALMode() throws {
        do {
            let realm = try Realm(configuration: itemConfig())
            try realm.write { try realm.create("Item", value: ["id": 1]) }
            XCTAssertEqual(try realm.connection.scalar("PRAGMA journal_mode"), .text("wal"))
            XCTAssertEqual(
                try realm.connection.scalarInt("PRAGMA synchronous"), 2, "FULL: a commit is durable when it returns")
        }
        let header = try XCTUnwrap(FileManager.default.contents(atPath: fileURL("items").path)).prefix(20)
        XCTAssertEqual(header.prefix(16), Data("SQLite format 3\0".utf8))
        XCTAssertEqual(header[header.startIndex + 18], 2, "WAL read version")
        XCTAssertEqual(header[header.startIndex + 19], 2, "WAL write version")
    }

    func testOneFilePerRealm() throws {
        do {
            let a = try Realm(configuration: itemConfig("a"))
            let b = try Realm(configuration: doggoConfig("b"))
            try a.write { try a.create("Item", value: ["id": 1]) }
            try b.write { try b.create("Dog", value: ["name": "Rex"]) }
            let frozen = try a.freeze()
            XCTAssertEqual(try frozen.objects("Item").countObjects(), 1)
        }
        // Once closed, each realm is exactly one file: the WAL is folded back in.
        XCTAssertEqual(folderContents(), ["a.realm", "b.realm"])
        let a = try Realm(configuration: itemConfig("a"))
        XCTAssertEqual(try a.objects("Item").countObjects(), 1)
    }

    func testCommittedDataSurvivesWithoutAClose() throws {
        let realm = try Realm(configuration: itemConfig())
        try realm.write { try realm.create("Item", value: ["id": 1, "name": "kept"]) }
        // Copy the files as a crash would leave them (the instance is still open).
        let copy = folder.appendingPathComponent("copy", isDirectory: true)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: fileURL("items").path + suffix) {
            try FileManager.default.copyItem(
                atPath: fileURL("items").path + suffix, toPath: copy.appendingPathComponent("items.realm").path + suffix
            )
        }
        var config = itemConfig()
        config.fileURL = copy.appendingPathComponent("items.realm")
        let recovered = try Realm(configuration: config)
        XCTAssertEqual(try recovered.object(ofType: "Item", forPrimaryKey: 1)?["name"], "kept")
    }

    func testTheStoredFormatIsMarked() throws {
        _ = try Realm(configuration: itemConfig())
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(fileURL("items").path, &db, SQLITE_OPEN_READONLY, nil), SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        XCTAssertEqual(
            sqlite3_prepare_v2(db, "SELECT key FROM _realm_meta ORDER BY key", -1, &statement, nil), SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        var keys = [String]()
        while sqlite3_step(statement) == SQLITE_ROW { keys.append(String(cString: sqlite3_column_text(statement, 0))) }
        XCTAssertEqual(keys, ["format", "schema", "schemaVersion", "version"])
    }
}
