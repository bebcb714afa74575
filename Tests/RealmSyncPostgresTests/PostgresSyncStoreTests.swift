import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import RealmSyncPostgres
@testable import SyncStoreConformance

/// What only the PostgreSQL store has: its schema version, its connection, its transactions as
/// PostgreSQL runs them, and its address. The shared tests (Shared/) check that it decides as the
/// SQLite store does.
final class PostgresSyncStoreTests: XCTestCase {
    private var place: TestStorePlace!

    override func setUpWithError() throws { place = try TestStorePlace("pgstore", kind: .postgres) }
    override func tearDown() { place = nil }

    private func admin(_ store: any SyncStore) throws -> BlockingPostgresConnection {
        let postgres = try XCTUnwrap(store as? PostgresSyncStore)
        return try BlockingPostgresConnection(postgres.location)
    }

    func testTheSchemaIsCreatedOnceWithItsVersionAndTheFirstSalt() throws {
        let store = try place.open(historySalt: 42, schema: serverTestSchema)
        let reopened = try place.open(historySalt: 7, schema: serverTestSchema)
        XCTAssertEqual(try reopened.read { try $0.historySalt() }, 42, "the salt of the first open stays")
        let connection = try admin(store)
        defer { connection.close() }
        let version = try connection.rows("SELECT value FROM meta WHERE key = 'schema_version'", [], "test").first
        XCTAssertEqual(try version?.int(0), PostgresStoreSchema.version)
    }

    func testASchemaNewerThanThisBuildIsRefused() throws {
        let store = try place.open(historySalt: 42, schema: nil)
        let connection = try admin(store)
        defer { connection.close() }
        try connection.query("UPDATE meta SET value = 99 WHERE key = 'schema_version'", [], "test")
        XCTAssertThrowsError(try place.open(historySalt: 42, schema: nil)) { error in
            XCTAssertTrue("\(error)".contains("has schema version 99"), "\(error)")
        }
    }

    /// The tables of version 1 as builds before `StoreSchema` created them.
    private static let version1Schema = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value BIGINT NOT NULL);
        CREATE TABLE objects(
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, class TEXT NOT NULL, pk BYTEA NOT NULL,
            live BOOLEAN NOT NULL, erased_at BIGINT NOT NULL, erased_by BIGINT NOT NULL, creator TEXT NOT NULL,
            created_at BIGINT NOT NULL, UNIQUE(class, pk));
        CREATE INDEX objects_by_class ON objects(class, live, id);
        CREATE TABLE fields(
            object BIGINT NOT NULL, path BYTEA NOT NULL, value BYTEA, clock BIGINT NOT NULL, client BIGINT NOT NULL,
            replaced_at BIGINT NOT NULL, replaced_by BIGINT NOT NULL, PRIMARY KEY(object, path));
        CREATE TABLE list_elements(
            object BIGINT NOT NULL, field TEXT NOT NULL, clock BIGINT NOT NULL, client BIGINT NOT NULL,
            idx BIGINT NOT NULL, position BYTEA NOT NULL, position_clock BIGINT NOT NULL,
            position_client BIGINT NOT NULL, value BYTEA NOT NULL, value_clock BIGINT NOT NULL,
            value_client BIGINT NOT NULL, erased BOOLEAN NOT NULL, PRIMARY KEY(object, field, clock, client, idx));
        CREATE TABLE list_clears(
            object BIGINT NOT NULL, field TEXT NOT NULL, clock BIGINT NOT NULL, client BIGINT NOT NULL,
            PRIMARY KEY(object, field));
        CREATE TABLE set_entries(
            object BIGINT NOT NULL, field TEXT NOT NULL, value BYTEA NOT NULL, present BOOLEAN NOT NULL,
            clock BIGINT NOT NULL, client BIGINT NOT NULL, PRIMARY KEY(object, field, value));
        CREATE TABLE map_entries(
            object BIGINT NOT NULL, field TEXT NOT NULL, key BYTEA NOT NULL, value BYTEA, clock BIGINT NOT NULL,
            client BIGINT NOT NULL, PRIMARY KEY(object, field, key));
        CREATE TABLE history(
            server_version BIGINT PRIMARY KEY, client_file_id BIGINT NOT NULL, client_version BIGINT NOT NULL,
            based_on BIGINT NOT NULL, clock BIGINT NOT NULL, original BYTEA NOT NULL, kept BYTEA NOT NULL);
        CREATE INDEX history_by_client ON history(client_file_id, server_version);
        CREATE TABLE clients(
            file_id BIGINT PRIMARY KEY, salt BIGINT NOT NULL, last_client_version BIGINT NOT NULL,
            user_name TEXT NOT NULL);
        CREATE TABLE held(file_id BIGINT NOT NULL, object BIGINT NOT NULL, PRIMARY KEY(file_id, object));
        CREATE INDEX held_by_object ON held(object, file_id);
        CREATE TABLE held_log(
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, file_id BIGINT NOT NULL, object BIGINT NOT NULL,
            server_version BIGINT NOT NULL, query_version BIGINT NOT NULL, held BOOLEAN NOT NULL);
        CREATE INDEX held_log_by_file ON held_log(file_id, seq);
        CREATE INDEX held_log_by_object ON held_log(file_id, object);
        """

    /// Every table's columns and every index's definition, as the catalog states them.
    private func catalog(_ connection: BlockingPostgresConnection) throws -> [String] {
        let columns = try connection.rows(
            """
            SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' '
                || coalesce(is_identity, '') FROM information_schema.columns
            WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
            """, [], "test")
        let indexes = try connection.rows(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname", [], "test")
        return try (columns + indexes).map { try $0.text(0) }
    }

    func testAStoreOfVersion1IsUpgradedToTheTablesANewStoreGets() throws {
        let new = try admin(try place.open("new", historySalt: 1, schema: nil))
        defer { new.close() }
        let database = try TestPostgresDatabase("pgstore_v1")
        let old = try BlockingPostgresConnection(database.location)
        defer { old.close() }
        for statement in Self.version1Schema.split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
            try old.query(String(statement), [], "test")
        }
        try old.query("INSERT INTO meta(key, value) VALUES ('schema_version', 1)", [], "test")
        _ = try PostgresSyncStore(location: database.location, historySalt: 1, schema: nil)
        let expected = try catalog(new)
        XCTAssertEqual(try catalog(old), expected)
        XCTAssertTrue(expected.contains { $0.contains("inbox_unsettled") && $0.contains("WHERE (settled_at IS NULL)") })
        XCTAssertTrue(expected.contains("clients.user_name text NO NO"), "\(expected)")
    }

    func testAWriteWhoseStatementFailedInsideIsRolledBackAndSaysSo() throws {
        let store = try place.open(historySalt: 42, schema: nil)
        // The body swallows a failed statement: PostgreSQL aborted the transaction all the same.
        XCTAssertThrowsError(
            try store.write { transaction in
                try transaction.writeObject(item(1), StoredObject(exists: true, creator: "u"))
                let postgres = try XCTUnwrap(transaction as? PostgresSyncStoreTransaction)
                _ = try? postgres.db.query("SELECT 1 / 0", [], "dividing by zero")
            }
        ) { error in
            // The object waits in the pending rows: sending them before the commit meets the abort.
            XCTAssertTrue("\(error)".contains("creating 1 objects failed"), "\(error)")
            XCTAssertTrue("\(error)".contains("current transaction is aborted"), "\(error)")
        }
        XCTAssertNil(try store.read { try $0.object(item(1)) })
        try store.write { try $0.writeObject(item(2), StoredObject(exists: true, creator: "u")) }
        XCTAssertNotNil(try store.read { try $0.object(item(2)) }, "the store goes on")
    }

    func testAFailedWriteSentWithoutWaitingFailsItsSavepointNamingItsOperation() throws {
        let store = try place.open(historySalt: 42, schema: nil)
        try store.write { transaction in
            try transaction.writeObject(item(1), StoredObject(exists: true, creator: "u"))
            let postgres = try XCTUnwrap(transaction as? PostgresSyncStoreTransaction)
            XCTAssertThrowsError(
                try transaction.savepoint {
                    try transaction.writeObject(item(2), StoredObject(exists: true, creator: "u"))
                    // Sent, not awaited, inside the savepoint (which PostgreSQL now has, its
                    // pending rows sent before): the savepoint's end waits for it, and fails.
                    try postgres.execute("SELECT 1 / 0", [], "dividing by zero")
                }
            ) { error in XCTAssertTrue("\(error)".contains("dividing by zero failed"), "\(error)") }
            try transaction.writeObject(item(3), StoredObject(exists: true, creator: "u"))
        }
        XCTAssertNotNil(try store.read { try $0.object(item(1)) })
        XCTAssertNil(try store.read { try $0.object(item(2)) }, "the savepoint was rolled back")
        XCTAssertNotNil(try store.read { try $0.object(item(3)) }, "the transaction went on")
    }

    func testAFailedWriteSentWithoutWaitingFailsItsTransactionNamingItsOperation() throws {
        let store = try place.open(historySalt: 42, schema: nil)
        XCTAssertThrowsError(
            try store.write { transaction in
                try transaction.writeObject(item(1), StoredObject(exists: true, creator: "u"))
                let postgres = try XCTUnwrap(transaction as? PostgresSyncStoreTransaction)
                try postgres.db.send("SELECT 1 / 0", [], "dividing by zero")
            }
        ) { error in XCTAssertTrue("\(error)".contains("dividing by zero failed"), "\(error)") }
        XCTAssertNil(try store.read { try $0.object(item(1)) }, "nothing was committed")
        try store.write { try $0.writeObject(item(2), StoredObject(exists: true, creator: "u")) }
        XCTAssertNotNil(try store.read { try $0.object(item(2)) }, "the store goes on")
    }

    func testValuesAreBoundNeverSpliced() throws {
        let store = try place.open(historySalt: 42, schema: nil)
        // Keys, paths and values may hold any character, NUL too (stored as bytes); user and class
        // names are checked before they reach the store (a token's user, the schema's classes).
        let hostile = "x'); DROP TABLE objects; --\u{0}é"
        let user = "x'); DROP TABLE clients; --é"
        let ref = ObjectRef("Item", .string(hostile))
        let time = RealmSync.WriteTime(clock: HLCTimestamp(rawValue: 5), clientFileID: 1)
        try store.write { transaction in
            try transaction.writeObject(ref, StoredObject(exists: true, creator: user))
            try transaction.writeMapEntry(ref, field: "attrs", StoredMapEntry(key: hostile, value: .int(1), time: time))
            try transaction.writeField(ref, path: [hostile], StoredField(value: .string(hostile), time: time))
        }
        try store.read { reader in
            XCTAssertEqual(try reader.object(ref)?.creator, user)
            XCTAssertEqual(try reader.mapEntry(ref, field: "attrs", key: hostile)?.value, .int(1))
            XCTAssertEqual(try reader.field(ref, path: [hostile])?.value, .string(hostile))
        }
    }

    func testALostConnectionIsOpenedAgainForTheNextTransaction() throws {
        let store = try place.open(historySalt: 42, schema: nil)
        try store.write { try $0.writeObject(item(1), StoredObject(exists: true, creator: "u")) }
        let postgres = try XCTUnwrap(store as? PostgresSyncStore)
        let connection = try admin(store)
        defer { connection.close() }
        try connection.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            [.text(postgres.location.database)], "test")
        // The first transaction may meet the cut connection and fail; the next one reconnects.
        var read: StoredObject?
        for _ in 0..<3 where read == nil { read = try? store.read { try $0.object(item(1)) } }
        XCTAssertEqual(read?.exists, true)
    }

    func testAClosedStoreRefusesTransactionsNamingItself() throws {
        let store = try XCTUnwrap(try place.open(historySalt: 42, schema: nil) as? PostgresSyncStore)
        store.close()
        XCTAssertThrowsError(try store.read { try $0.latestServerVersion() }) { error in
            XCTAssertTrue("\(error)".contains("the PostgreSQL store \(store.location) was closed"), "\(error)")
        }
    }

    func testAnUnreachableServerIsAnErrorNamingItWithoutThePassword() throws {
        XCTAssertThrowsError(try PostgresSyncStore(url: "postgres://realm:hunter2@127.0.0.1:1/sync")) { error in
            XCTAssertTrue(
                "\(error)".contains("cannot connect to the PostgreSQL store postgres://realm@127.0.0.1:1/sync"),
                "\(error)")
            XCTAssertFalse("\(error)".contains("hunter2"))
        }
    }

    func testAddressesAreParsedOrRefusedNamingWhatIsWrong() throws {
        let location = try PostgresStoreLocation(parsing: "postgresql://realm:s%40cret@127.0.0.1:5433/sync")
        XCTAssertEqual(
            location,
            PostgresStoreLocation(host: "127.0.0.1", port: 5433, user: "realm", password: "s@cret", database: "sync"))
        XCTAssertEqual(try PostgresStoreLocation(parsing: "postgres://realm@localhost/sync").port, 5432)
        let refusals = [
            "postgres://127.0.0.1/sync": "the PostgreSQL user is missing",
            "postgres://realm@127.0.0.1:5432": "the database name is missing",
            "postgres://realm@127.0.0.1/sync?sslmode=require": "options after '?' or '#' are not supported",
            "mysql://realm@127.0.0.1/sync": "is not a postgres://USER@HOST:PORT/DB address",
        ]
        for (url, message) in refusals {
            XCTAssertThrowsError(try PostgresStoreLocation(parsing: url), url) { error in
                XCTAssertTrue("\(error)".contains(message), "\(url): \(error)")
            }
        }
    }

    // MARK: Pending rows (writes sent a table at a time)

    func testFieldsForgottenInAKeptSavepointStayForgottenThoughWrittenBeforeItAndNotYetSent() throws {
        let store = try place.open(historySalt: 42, schema: nil)
        let time = RealmSync.WriteTime(clock: HLCTimestamp(rawValue: 5), clientFileID: 1)
        try store.write { transaction in
            try transaction.writeObject(item(1), StoredObject(exists: true, creator: "u"))
            try transaction.writeField(item(1), path: ["e", "x"], StoredField(value: .int(1), time: time))
            try transaction.savepoint { try transaction.forgetFields(of: item(1), below: ["e"]) }
            try transaction.writeField(item(1), path: ["e", "y"], StoredField(value: .int(2), time: time))
        }
        try store.read { reader in
            XCTAssertNil(
                try reader.field(item(1), path: ["e", "x"]), "written before the forget, in the level around it")
            XCTAssertEqual(try reader.field(item(1), path: ["e", "y"])?.value, .int(2), "written after the forget")
        }
    }

    func testAnObjectCreatedAndChangedInASavepointBeforeAnySendIsInserted() throws {
        let store = try place.open(historySalt: 42, schema: nil)
        try store.write { transaction in
            try transaction.writeObject(item(1), StoredObject(exists: true, creator: "u"))
            try transaction.savepoint {
                try transaction.writeObject(item(1), StoredObject(exists: false, erasedAt: 3, creator: "u"))
            }
        }
        XCTAssertEqual(
            try store.read { try $0.object(item(1)) }, StoredObject(exists: false, erasedAt: 3, creator: "u"),
            "the change of a create not yet sent is the create's row")
    }

    func testASavepointUndoneAfterItsRowsWereSentLeavesTheStoreAndTheTransactionsReadsAsBefore() throws {
        let store = try place.open(historySalt: 42, schema: nil)
        let time = RealmSync.WriteTime(clock: HLCTimestamp(rawValue: 5), clientFileID: 1)
        struct Undo: Error {}
        try store.write { transaction in
            try transaction.writeObject(item(1), StoredObject(exists: true, creator: "u"))
            try transaction.writeField(item(1), path: ["a"], StoredField(value: .int(1), time: time))
            XCTAssertThrowsError(
                try transaction.savepoint {
                    try transaction.writeField(item(1), path: ["a"], StoredField(value: .int(2), time: time))
                    try transaction.writeObject(item(2), StoredObject(exists: true, creator: "u"))
                    try transaction.setHeld(1, item(2), true, at: ViewPosition(serverVersion: 1, queryVersion: 0))
                    // Reads the database: the pending rows go first, inside a SAVEPOINT of PostgreSQL's.
                    XCTAssertEqual(try transaction.heldObjects(by: 1, after: 0, limit: 10).map(\.ref), [item(2)])
                    throw Undo()
                })
            XCTAssertEqual(try transaction.field(item(1), path: ["a"])?.value, .int(1), "the cache is undone too")
            XCTAssertNil(try transaction.object(item(2)))
            XCTAssertEqual(try transaction.heldObjects(by: 1, after: 0, limit: 10).count, 0)
        }
        try store.read { reader in
            XCTAssertEqual(try reader.field(item(1), path: ["a"])?.value, .int(1))
            XCTAssertNil(try reader.object(item(2)))
        }
    }
}
