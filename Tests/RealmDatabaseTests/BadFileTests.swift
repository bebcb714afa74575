import CSQLite
import Foundation
import XCTest

@testable import RealmDatabase

/// Bad input: missing folders, unwritable paths, files that are not realms, truncated and
/// corrupted files. Each gives a clear error, and a failed open never modifies the file.
final class BadFileTests: RealmTestCase {
    private func config(_ url: URL) -> Realm.Configuration {
        var config = itemConfig()
        config.fileURL = url
        return config
    }

    /// A realm file with some data, closed.
    private func makeRealm(_ name: String = "items", rows: Int = 200) throws -> URL {
        let url = fileURL(name)
        let realm = try Realm(configuration: config(url))
        try realm.write {
            for i in 0..<rows {
                try realm.create(
                    "Item", value: ["id": .int(Int64(i)), "name": .string(String(repeating: "x", count: 100) + "\(i)")])
            }
        }
        return url
    }

    /// Asserts that opening `url` fails with `code` and a message naming the path, and that the
    /// file and the folder are exactly as before.
    private func assertOpenFails(
        _ url: URL, code: RealmError.Code, containing fragments: [String] = [],
        readOnly: Bool = false, file: StaticString = #filePath, line: UInt = #line
    ) {
        let before = fileState(url)
        let contents = folderContents()
        var configuration = config(url)
        configuration.readOnly = readOnly
        assertRealmError(
            try Realm(configuration: configuration), code: code, containing: [url.path] + fragments, file: file,
            line: line)
        let after = fileState(url)
        XCTAssertEqual(after.bytes, before.bytes, "the file's bytes are unchanged", file: file, line: line)
        XCTAssertEqual(
            after.modified, before.modified, "the file's modification date is unchanged", file: file, line: line)
        XCTAssertEqual(folderContents(), contents, "no file is left behind", file: file, line: line)
    }

    // MARK: Paths

    func testMissingFolder() {
        let missing = folder.appendingPathComponent("nope", isDirectory: true)
        let url = missing.appendingPathComponent("x.realm")
        assertRealmError(
            try Realm(configuration: config(url)), code: .fileAccess,
            containing: ["Unable to open a realm at path '\(url.path)'", "the folder '\(missing.path)' does not exist"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path), "the folder is not created")
    }

    func testUnwritablePath() {
        // /proc refuses new files even to root.
        let url = URL(fileURLWithPath: "/proc/realmhost-\(UUID().uuidString).realm")
        assertRealmError(
            try Realm(configuration: config(url)), code: .fileAccess,
            containing: ["Unable to open a realm at path '\(url.path)'"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
    }

    func testUnwritableFolder() throws {
        guard getuid() != 0 else { throw XCTSkip("permissions do not bind root") }
        let locked = folder.appendingPathComponent("locked", isDirectory: true)
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: locked.path) }
        let url = locked.appendingPathComponent("x.realm")
        assertRealmError(try Realm(configuration: config(url)), code: .fileAccess, containing: [url.path])
    }

    func testPathIsAFolder() throws {
        let url = folder.appendingPathComponent("dir.realm", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        assertRealmError(try Realm(configuration: config(url)), code: .fileAccess, containing: [url.path])
        var isDirectory: ObjCBool = false
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    // MARK: Files that are not realms

    func testTextFile() throws {
        let url = fileURL("notes")
        try Data(String(repeating: "Just some notes, not a database.\n", count: 20).utf8).write(to: url)
        assertOpenFails(url, code: .notARealm, containing: ["not a realm file"])
        assertOpenFails(url, code: .notARealm, readOnly: true)
    }

    func testShortFile() throws {
        let url = fileURL("short")
        try Data("SQLite".utf8).write(to: url)
        assertOpenFails(url, code: .notARealm, containing: ["not a realm file"])
    }

    func testSQLiteDatabaseOfAnotherKind() throws {
        let url = fileURL("other")
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil), SQLITE_OK)
        XCTAssertEqual(
            sqlite3_exec(db, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hello')", nil, nil, nil),
            SQLITE_OK)
        sqlite3_close_v2(db)
        assertOpenFails(url, code: .notARealm, containing: ["not a realm file"])
        // Not even without a configured schema (the dynamic open).
        let before = fileState(url)
        assertRealmError(try Realm(configuration: Realm.Configuration(fileURL: url)), code: .notARealm)
        XCTAssertEqual(fileState(url).bytes, before.bytes)
    }

    func testAnEmptyFileBecomesANewRealm() throws {
        let url = fileURL("empty")
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: Data()))
        let realm = try Realm(configuration: config(url))
        try realm.write { try realm.create("Item", value: ["id": 1]) }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1)
    }

    // MARK: Damaged realms

    func testTruncatedFile() throws {
        let url = try makeRealm()
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: url.path))
        XCTAssertGreaterThan(bytes.count, 8192)
        try bytes.prefix(bytes.count / 2).write(to: url)
        assertOpenFails(url, code: .corruptFile, containing: ["truncated"])
        assertOpenFails(url, code: .corruptFile, readOnly: true)
    }

    func testFileCutInsideItsHeader() throws {
        let url = try makeRealm()
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: url.path))
        try bytes.prefix(60).write(to: url)
        assertOpenFails(url, code: .notARealm)
    }

    func testCorruptedSchemaPage() throws {
        let url = try makeRealm()
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: url.path))
        // Page 1 holds the database's table of tables, after the 100-byte header.
        for i in 100..<1024 { bytes[i] = UInt8(truncatingIfNeeded: i &* 37) }
        try bytes.write(to: url)
        assertOpenFails(url, code: .corruptFile, containing: ["corrupted"])
    }

    func testCorruptedMagic() throws {
        let url = try makeRealm()
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: url.path))
        bytes[0] = UInt8(ascii: "X")
        try bytes.write(to: url)
        assertOpenFails(url, code: .notARealm, containing: ["not a realm file"])
    }

    func testUnreadableStoredSchema() throws {
        let url = try makeRealm()
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil), SQLITE_OK)
        XCTAssertEqual(
            sqlite3_exec(db, "UPDATE _realm_meta SET value = '{not json' WHERE key = 'schema'", nil, nil, nil),
            SQLITE_OK)
        sqlite3_close_v2(db)
        assertOpenFails(url, code: .corruptFile, containing: ["schema"])
    }

    // MARK: Refused opens of good realms leave them alone too

    func testRefusedOpensOfAGoodRealmDoNotTouchIt() throws {
        let url = try makeRealm(rows: 3)
        var changed = itemConfig()
        changed.fileURL = url
        changed.schema!.objectSchemas[0].properties.append(Property(name: "extra", type: .string))
        let before = fileState(url)
        assertRealmError(try Realm(configuration: changed), code: .schemaMismatch)
        changed.schemaVersion = 5
        changed.migrationBlock = { _, _ in throw RealmError(.migration, "no") }
        assertRealmError(try Realm(configuration: changed), "no")
        XCTAssertEqual(fileState(url).bytes, before.bytes)
        XCTAssertEqual(fileState(url).modified, before.modified)
        XCTAssertEqual(folderContents(), ["items.realm"])
        // And it still opens as it was.
        XCTAssertEqual(try Realm(configuration: config(url)).objects("Item").countObjects(), 3)
    }

    func testAFailedCreateLeavesNoFile() throws {
        var config = itemConfig()
        config.initialDataBlock = { realm in
            try realm.create("Item", value: ["id": 1])
            throw RealmError(.internalError, "initial data failed")
        }
        assertRealmError(try Realm(configuration: config), "initial data failed")
        XCTAssertEqual(folderContents(), [])
    }
}
