import CSQLite
import Foundation
import XCTest

@testable import RealmDatabase

/// Write transactions: write {}, beginWrite / commitWrite / cancelWrite, nesting, writes outside a
/// transaction, and what a commit leaves in the file.
final class TransactionTests: RealmTestCase {
    private struct Oops: Error {}

    func testWriteCommitsAndReturnsTheBlocksValue() throws {
        let realm = try Realm(configuration: itemConfig())
        let versionBefore = realm.version
        let name = try realm.write { () -> String in
            try realm.create("Item", value: ["id": 1, "name": "a"])
            return "done"
        }
        XCTAssertEqual(name, "done")
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.version, versionBefore + 1, "each commit is a new version")
        // Another instance (another connection) sees the commit.
        let other = try Realm(configuration: itemConfig())
        XCTAssertEqual(try other.object(ofType: "Item", forPrimaryKey: 1)?["name"], "a")
    }

    /// A second instance of a file cannot begin a write on the thread whose first instance is in a
    /// write: it would wait on SQLite's lock for the only thread that can release it (a hang found
    /// by realm-fuzz binding). It is refused at once; once the first write ends it works, and an
    /// instance on another thread still waits its turn (ConcurrencyTests).
    func testASecondInstanceOnTheWritersThreadIsRefusedNotDeadlocked() throws {
        let first = try Realm(configuration: itemConfig())
        let second = try Realm(configuration: itemConfig())
        try first.beginWrite()
        XCTAssertThrowsError(try second.beginWrite()) { error in
            XCTAssertEqual((error as? RealmError)?.code, .wrongTransactionState)
            XCTAssertTrue("\(error)".contains("would wait for it forever"), "\(error)")
        }
        XCTAssertFalse(second.isInWriteTransaction)
        try first.create("Item", value: ["id": 1])
        try first.commitWrite()
        try second.write { try second.create("Item", value: ["id": 2]) }
        try first.beginWrite()
        first.cancelWrite()
        try second.write { try second.create("Item", value: ["id": 3]) }
        XCTAssertEqual(try first.objects("Item").countObjects(), 3)
    }

    func testAThrownErrorRollsBackEverything() throws {
        let realm = try Realm(configuration: itemConfig())
        let (item, person) = try realm.write { () -> (DynamicObject, DynamicObject) in
            let person = try realm.create("Person", value: ["name": "p"])
            let item = try realm.create("Item", value: ["id": 1, "name": "a", "owner": .object(person)])
            try person.dynamicList("items").append(.object(item))
            return (item, person)
        }
        let versionBefore = realm.version
        XCTAssertThrowsError(
            try realm.write {
                try item.setValue("changed", forKey: "name")
                try item.setValue(nil, forKey: "owner")
                try realm.create("Item", value: ["id": 2])
                try person.dynamicList("items").removeAll()
                try realm.delete(person)
                throw Oops()
            }
        ) { error in
            XCTAssertTrue(error is Oops, "the block's own error is rethrown")
        }
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.version, versionBefore)
        XCTAssertEqual(try item["name"], "a")
        XCTAssertTrue(try item["owner"].objectValue?.isSameObject(as: person) ?? false)
        XCTAssertFalse(person.isInvalidated)
        XCTAssertEqual(try person.dynamicList("items").count, 1)
        XCTAssertNil(try realm.object(ofType: "Item", forPrimaryKey: 2))
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1)
    }

    func testBeginCommitAndCancel() throws {
        let realm = try Realm(configuration: itemConfig())
        try realm.beginWrite()
        XCTAssertTrue(realm.isInWriteTransaction)
        try realm.create("Item", value: ["id": 1])
        try realm.commitWrite()
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1)

        try realm.beginWrite()
        let created = try realm.create("Item", value: ["id": 2])
        try realm.object(ofType: "Item", forPrimaryKey: 1)!.setValue("x", forKey: "name")
        XCTAssertEqual(try realm.objects("Item").countObjects(), 2, "a write sees its own changes")
        realm.cancelWrite()
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1)
        XCTAssertEqual(try realm.object(ofType: "Item", forPrimaryKey: 1)?["name"], "")
        XCTAssertTrue(created.isInvalidated, "an object created in a cancelled write is invalidated")
        // Cancelling with nothing open is harmless; committing is an error.
        realm.cancelWrite()
        assertRealmError(try realm.commitWrite(), "Can't commit a non-existing write transaction")
    }

    func testWritesDoNotNest() throws {
        let realm = try Realm(configuration: itemConfig())
        let message = "The Realm is already in a write transaction"
        try realm.write {
            try realm.create("Item", value: ["id": 1])
            assertRealmError(try realm.write {}, message)
            assertRealmError(try realm.beginWrite(), message)
            XCTAssertTrue(realm.isInWriteTransaction, "the failed nested write leaves the outer one open")
        }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1, "the outer write still commits")
        // A nested write whose error escapes cancels the outer write too.
        XCTAssertThrowsError(
            try realm.write {
                try realm.create("Item", value: ["id": 2])
                try realm.write { try realm.create("Item", value: ["id": 3]) }
            })
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1)
    }

    func testModifyingManagedObjectsOutsideAWriteFails() throws {
        let realm = try Realm(configuration: itemConfig())
        let (item, person) = try realm.write {
            (try realm.create("Item", value: ["id": 1, "name": "a"]), try realm.create("Person", value: ["name": "p"]))
        }
        // The dynamic setter reports realm-core's wording, as RealmSwift's dynamic API does.
        let message = "Cannot modify managed objects outside of a write transaction."
        assertRealmError(try item.setValue("b", forKey: "name"), message)
        assertRealmError(try realm.create("Item", value: ["id": 2]), message)
        assertRealmError(try realm.add(DynamicObject(className: "Item", value: ["id": 3])), message)
        assertRealmError(try realm.delete(item), message)
        assertRealmError(try realm.delete(try realm.objects("Item")), message)
        assertRealmError(try realm.deleteAll(), message)
        assertRealmError(try person.dynamicList("items").insert(.object(item), at: 0), message)
        XCTAssertEqual(try item["name"], "a")
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1)
        // Unmanaged objects change freely.
        let free = DynamicObject(className: "Item", value: ["id": 4])
        try free.setValue("anything", forKey: "name")
        XCTAssertEqual(try free["name"], "anything")
    }

    func testCommitIsDurableInTheFile() throws {
        let realm = try Realm(configuration: itemConfig())
        try realm.write { try realm.create("Item", value: ["id": 1, "name": "durable"]) }
        // A plain SQLite connection, as another process would open, reads the committed row.
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(fileURL("items").path, &db, SQLITE_OPEN_READONLY, nil), SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        XCTAssertEqual(
            sqlite3_prepare_v2(db, "SELECT name FROM class_Item WHERE id = 1", -1, &statement, nil), SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        XCTAssertEqual(sqlite3_step(statement), SQLITE_ROW)
        XCTAssertEqual(String(cString: sqlite3_column_text(statement, 0)), "durable")
    }

    func testWriteOnAFrozenRealm() throws {
        let realm = try Realm(configuration: itemConfig())
        let frozen = try realm.freeze()
        assertRealmError(try frozen.write {}, "Can't perform transactions on a frozen Realm")
        assertRealmError(try frozen.beginWrite(), "Can't perform transactions on a frozen Realm")
    }

    func testAFailedWriteInsideTheBlockCanBeRecovered() throws {
        let realm = try Realm(configuration: itemConfig())
        try realm.write {
            try realm.create("Item", value: ["id": 1])
            // A failing operation inside the block, caught there, does not end the transaction.
            XCTAssertThrowsError(try realm.create("Item", value: ["id": 1]))
            try realm.create("Item", value: ["id": 2])
        }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 2)
    }

    func testTheBlockMayCommitOrCancelItself() throws {
        let realm = try Realm(configuration: itemConfig())
        try realm.write {
            try realm.create("Item", value: ["id": 1])
            realm.cancelWrite()
        }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 0)
        try realm.write {
            try realm.create("Item", value: ["id": 2])
            try realm.commitWrite()
        }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1)
    }
}

final class CancelledKeyTests: RealmTestCase {
    func testAnObjectCreatedInACancelledWriteStaysInvalidated() throws {
        let realm = try Realm(configuration: doggoConfig())
        try realm.beginWrite()
        let ghost = try realm.create("Dog", value: ["name": "Ghost"])
        realm.cancelWrite()
        XCTAssertTrue(ghost.isInvalidated)
        let next = try realm.write { try realm.create("Dog", value: ["name": "Real"]) }
        XCTAssertNotEqual(next.objectKey, ghost.objectKey, "keys are never given out twice")
        XCTAssertTrue(ghost.isInvalidated, "the cancelled object must not come back as the new one")
        XCTAssertEqual(try next["name"], "Real")
    }
}
