import Foundation
import XCTest

@testable import RealmDatabase

/// Every public write verb is observed exactly once at the capture point (`ChangeTracker`), with
/// the right class, key and property: a verb that bypassed it would lose its notifications.
final class ChangeCaptureTests: RealmTestCase {
    private var realm: Realm!
    private var captured: [CapturedChange] = []

    static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Owner",
                properties: [
                    Property(name: "id", type: .int, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                    Property(name: "tags", type: .string, collection: .list),
                    Property(name: "items", type: .object, objectClassName: "Item", collection: .list),
                    Property(name: "numbers", type: .int, collection: .set),
                    Property(name: "attributes", type: .string, collection: .map),
                    Property(name: "pet", type: .object, objectClassName: "Pet", isOptional: true),
                    Property(name: "pets", type: .object, objectClassName: "Pet", collection: .list),
                ]),
            ObjectSchema(
                className: "Item",
                properties: [
                    Property(name: "id", type: .int, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                ]),
            ObjectSchema(className: "Pet", properties: [Property(name: "name", type: .string)], isEmbedded: true),
        ])
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        var config = Realm.Configuration(fileURL: fileURL("capture"))
        config.schema = Self.schema
        realm = try Realm(configuration: config)
        try realm.write {
            try realm.create("Owner", value: ["id": 1, "name": "a"])
            try realm.create("Item", value: ["id": 10, "name": "x"])
            try realm.create("Item", value: ["id": 11, "name": "y"])
        }
        realm.changeTracker.observer = { [unowned self] in captured.append($0) }
    }

    override func tearDownWithError() throws {
        realm = nil
        try super.tearDownWithError()
    }

    private func owner() throws -> DynamicObject {
        try XCTUnwrap(try realm.object(ofType: "Owner", forPrimaryKey: 1))
    }

    private func key(_ className: String, _ pk: Int) throws -> Int64 {
        try XCTUnwrap(try realm.object(ofType: className, forPrimaryKey: .int(Int64(pk)))?.objectKey)
    }

    /// Runs `verb` and asserts it was captured as exactly `expected`.
    private func assertCaptured(
        _ expected: [CapturedChange], _ verb: () throws -> Void,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        captured = []
        try verb()
        XCTAssertEqual(captured, expected, file: file, line: line)
    }

    private func modified(_ className: String, _ key: Int64, _ property: String) -> CapturedChange {
        CapturedChange(className: className, key: key, kind: .modification(property: property))
    }

    func testObjectVerbs() throws {
        let ownerKey = try key("Owner", 1)
        let next = ownerKey + 1  // each class's keys are given out in order
        try assertCaptured([CapturedChange(className: "Owner", key: next, kind: .insertion)]) {
            try realm.write { _ = try realm.create("Owner", value: ["id": 2, "name": "b"]) }
        }
        try assertCaptured([CapturedChange(className: "Owner", key: next + 1, kind: .insertion)]) {
            try realm.write { try realm.add(DynamicObject(className: "Owner", value: ["id": 3])) }
        }
        try assertCaptured([modified("Owner", ownerKey, "name")]) {
            try realm.write {
                try realm.add(
                    DynamicObject(className: "Owner", value: ["id": 1, "name": "c"]),
                    update: .modified)
            }
        }
        try assertCaptured([]) {  // `.modified` with an equal value writes nothing
            try realm.write { _ = try realm.create("Owner", value: ["id": 1, "name": "c"], update: .modified) }
        }
        try assertCaptured([modified("Owner", ownerKey, "name")]) {  // `.all` writes equal values too
            try realm.write { _ = try realm.create("Owner", value: ["id": 1, "name": "c"], update: .all) }
        }
        try assertCaptured([modified("Owner", ownerKey, "name")]) {
            try realm.write { try owner().setValue("d", forKey: "name") }
        }
        try assertCaptured([modified("Owner", ownerKey, "name")]) {
            try owner().setValue("e", forKey: "name", mode: .implicit)
        }
    }

    func testDeleteVerbs() throws {
        let item10 = try key("Item", 10)
        let item11 = try key("Item", 11)
        let ownerKey = try key("Owner", 1)
        try realm.write {
            let items = try owner().dynamicList("items")
            try items.append(try XCTUnwrap(try realm.object(ofType: "Item", forPrimaryKey: 10)))
        }
        // Deleting an object held by a list: the deletion, and the owner's list modified once.
        try assertCaptured([
            modified("Owner", ownerKey, "items"),
            CapturedChange(
                className: "Item", key: item10,
                kind: .deletion),
        ]) {
            try realm.write { try realm.delete(try XCTUnwrap(try realm.object(ofType: "Item", forPrimaryKey: 10))) }
        }
        try assertCaptured([CapturedChange(className: "Item", key: item11, kind: .deletion)]) {
            try realm.write { try realm.delete(try realm.objects("Item")) }
        }
        try realm.write { try realm.create("Item", value: ["id": 12]) }
        let item12 = try key("Item", 12)
        let item = try XCTUnwrap(try realm.object(ofType: "Item", forPrimaryKey: 12))
        try realm.write { try owner().dynamicList("items").append(item) }
        try assertCaptured([
            modified("Owner", ownerKey, "items"),
            CapturedChange(
                className: "Item", key: item12,
                kind: .deletion),
        ]) {
            try realm.write { try realm.delete(try owner().dynamicList("items")) }
        }
        try assertCaptured([CapturedChange(className: "Owner", key: ownerKey, kind: .deletion)]) {
            try realm.write { try realm.deleteAll() }
        }
    }

    func testListVerbs() throws {
        let ownerKey = try key("Owner", 1)
        let tags = try owner().dynamicList("tags")
        let once = [modified("Owner", ownerKey, "tags")]
        try assertCaptured(once) { try tags.append("a") }
        try assertCaptured(once) { try tags.append(contentsOf: ["b", "c"]) }
        try assertCaptured(once) { try tags.insert("z", at: 0, writeMode: .implicit) }
        try assertCaptured(once) { try tags.move(from: 0, to: 2, writeMode: .implicit) }
        try assertCaptured(once) { try tags.replace(index: 0, with: "y", writeMode: .implicit) }
        try assertCaptured(once) { try tags.set("w", at: 4, writeMode: .implicit) }
        try assertCaptured(once) { try tags.remove(at: 0) }
        try assertCaptured(once) { try realm.write { try tags.insert("q", at: 0) } }
        try assertCaptured(once) { try tags.removeAll(writeMode: .implicit) }
        try assertCaptured(once) { try realm.write { try owner().setValue(["p", "q"], forKey: "tags") } }
        XCTAssertEqual(try tags.values(), ["p", "q"])
    }

    func testSetAndMapVerbs() throws {
        let ownerKey = try key("Owner", 1)
        let numbers = try owner().dynamicMutableSet("numbers")
        let numbersOnce = [modified("Owner", ownerKey, "numbers")]
        try assertCaptured(numbersOnce) { try numbers.insert(1) }
        try assertCaptured(numbersOnce) { try numbers.insert(2) }
        try assertCaptured(numbersOnce) { try numbers.remove(1) }
        try assertCaptured(numbersOnce) { try numbers.removeAll(writeMode: .implicit) }
        let attributes = try owner().dynamicMap("attributes")
        let attributesOnce = [modified("Owner", ownerKey, "attributes")]
        try assertCaptured(attributesOnce) { try attributes.setValue("v", forKey: "k") }
        try assertCaptured(attributesOnce) { try attributes.setValue("w", forKey: "l") }
        try assertCaptured(attributesOnce) { try attributes.removeValue(forKey: "k") }
        try assertCaptured(attributesOnce) { try attributes.removeAll(writeMode: .implicit) }
    }

    func testEmbeddedObjectsAndResultsVerbs() throws {
        let ownerKey = try key("Owner", 1)
        let petKey: Int64 = 1  // the first Pet
        let nextItemKey = try key("Item", 11) + 1
        try assertCaptured([
            CapturedChange(className: "Pet", key: petKey, kind: .insertion),
            modified("Owner", ownerKey, "pet"),
        ]) {
            try realm.write { try owner().setValue(["name": "Rex"], forKey: "pet") }
        }
        // Replacing an embedded object deletes the one it replaces.
        try assertCaptured([
            CapturedChange(className: "Pet", key: petKey + 1, kind: .insertion),
            modified("Owner", ownerKey, "pet"),
            CapturedChange(className: "Pet", key: petKey, kind: .deletion),
        ]) {
            try realm.write { try owner().setValue(["name": "Max"], forKey: "pet") }
        }
        let items = try realm.objects("Item")
        var appended: DynamicObject?
        try assertCaptured([CapturedChange(className: "Item", key: nextItemKey, kind: .insertion)]) {
            appended = try items.append(["id": 20])
        }
        try assertCaptured([CapturedChange(className: "Item", key: nextItemKey, kind: .deletion)]) {
            try items.remove(try XCTUnwrap(appended))
        }
    }

    /// `.modified` on a list of embedded objects updates it element by element: a kept element that
    /// changed is its own modification, an appended one an insertion, a removed one a deletion, and
    /// the owner's list is modified once, only when it grew or shrank.
    func testEmbeddedListUpdatedUnderModified() throws {
        let ownerKey = try key("Owner", 1)
        func update(_ names: [RealmValue]) throws {
            let pets = RealmValue.list(names.map { ["name": $0] })
            try realm.write { _ = try realm.create("Owner", value: ["id": 1, "pets": pets], update: .modified) }
        }
        try realm.write { try owner().setValue([["name": "a"], ["name": "b"]], forKey: "pets") }
        let pet = try owner().dynamicList("pets").values().compactMap { $0.objectValue?.objectKey }
        XCTAssertEqual(pet.count, 2)
        try assertCaptured([modified("Pet", pet[0], "name")]) { try update(["c", "b"]) }
        try assertCaptured([]) { try update(["c", "b"]) }
        let appended = pet[1] + 1  // each class's keys are given out in order
        try assertCaptured([
            CapturedChange(className: "Pet", key: appended, kind: .insertion), modified("Owner", ownerKey, "pets"),
        ]) { try update(["c", "b", "d"]) }
        try assertCaptured([
            modified("Pet", pet[0], "name"), CapturedChange(className: "Pet", key: pet[1], kind: .deletion),
            CapturedChange(className: "Pet", key: appended, kind: .deletion), modified("Owner", ownerKey, "pets"),
        ]) { try update(["e"]) }
    }

    func testMigrationVerbs() throws {
        realm = nil
        var config = Realm.Configuration(fileURL: fileURL("capture"))
        config.schema = Self.schema
        config.schemaVersion = 1
        var seen: [CapturedChange] = []
        config.migrationBlock = { migration, _ in
            migration.realm.changeTracker.observer = { seen.append($0) }
            try migration.enumerateObjects(ofType: "Item") { _, new in
                try new?.setValue("renamed", forKey: "name")
            }
            _ = try migration.create("Item", value: ["id": 30])
            try migration.enumerateObjects(ofType: "Owner") { _, new in
                if let new { try migration.delete(new) }
            }
        }
        let migrated = try Realm(configuration: config)
        let itemModifications = seen.filter { $0.className == "Item" && $0.kind == .modification(property: "name") }
        XCTAssertEqual(itemModifications.count, 2, "each enumerated object's set is captured once")
        XCTAssertEqual(seen.filter { $0.className == "Item" && $0.kind == .insertion }.count, 1)
        XCTAssertEqual(seen.filter { $0.className == "Owner" && $0.kind == .deletion }.count, 1)
        XCTAssertEqual(try migrated.objects("Item").countObjects(), 3)
    }
}

/// The storage fixes of the "seams" issue: the meta table, constraint errors, loud failures.
final class StorageSeamTests: RealmTestCase {
    private func itemConfig(_ version: UInt64) -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: fileURL("seams"))
        config.schema = ChangeCaptureTests.schema
        config.schemaVersion = version
        return config
    }

    func testSchemaVersionAbove2To63RoundTripsThroughReopen() throws {
        let version = (UInt64(1) << 63) + 5
        do {
            let realm = try Realm(configuration: itemConfig(version))
            XCTAssertEqual(try realm.fetchSchemaVersion(), version)
        }
        let reopened = try Realm(configuration: itemConfig(version))
        XCTAssertEqual(reopened.schemaVersion, version)
        XCTAssertEqual(try Realm.storedSchemaVersion(at: fileURL("seams")), version)
        // A lower configured version is refused: the stored one did not read back as 0.
        assertRealmError(try Realm(configuration: itemConfig(5)), code: .invalidSchemaVersion)
    }

    /// Constraints the library never declares but an edited file may hold: each is reported as
    /// what it is, and only the primary key's uniqueness as "existing primary key".
    func testConstraintFailuresAreNamedForWhatTheyAre() throws {
        let realm = try Realm(configuration: itemConfig(0))
        try realm.connection.execute("CREATE UNIQUE INDEX extra_unique ON class_Item(name)")
        try realm.write { try realm.create("Item", value: ["id": 1, "name": "a"]) }
        try realm.beginWrite()
        assertRealmError(
            try realm.create("Item", value: ["id": 1, "name": "b"]), code: .primaryKeyExists,
            containing: ["'Item'", "'1'"])
        assertRealmError(
            try realm.create("Item", value: ["id": 2, "name": "a"]), code: .uniqueConstraint,
            containing: ["'Item.name'"])
        realm.cancelWrite()
        try realm.connection.execute("DROP INDEX extra_unique")
        // NOT NULL and CHECK: a table rebuilt with those constraints.
        try realm.connection.execute(
            """
            CREATE TABLE checked (_key INTEGER PRIMARY KEY, name TEXT NOT NULL CHECK (length(name) < 3))
            """)
        let info = try realm.classInfo("Item")
        let notNull = SQLiteError(
            code: SQLiteResultCode.constraintNotNull.rawValue,
            message: "NOT NULL constraint failed: class_Item.name", sql: nil)
        XCTAssertEqual(
            ConstraintErrors.realmError(for: notNull, info: info, primaryKeyValue: 1)?.code,
            .notNullConstraint)
        let check = SQLiteError(
            code: SQLiteResultCode.constraintCheck.rawValue,
            message: "CHECK constraint failed: length(name) < 3", sql: nil)
        XCTAssertEqual(
            ConstraintErrors.realmError(for: check, info: info, primaryKeyValue: 1)?.code,
            .checkConstraint)
        // And SQLite reports those codes as named.
        XCTAssertThrowsError(try realm.connection.execute("INSERT INTO checked (name) VALUES (NULL)")) {
            XCTAssertEqual(($0 as? SQLiteError)?.resultCode, .constraintNotNull)
        }
        XCTAssertThrowsError(try realm.connection.execute("INSERT INTO checked (name) VALUES ('long')")) {
            XCTAssertEqual(($0 as? SQLiteError)?.resultCode, .constraintCheck)
        }
    }

    func testNonThrowingReadsReportErrorsInsteadOfAnsweringDeleted() throws {
        let realm = try Realm(configuration: itemConfig(0))
        let item = try realm.write { try realm.create("Item", value: ["id": 1, "name": "a"]) }
        let reports = ReportCollector()
        let previous = RealmDiagnostics.setHandler { reports.append($0) }
        defer { RealmDiagnostics.setHandler(previous) }
        XCTAssertFalse(item.isInvalidated)
        XCTAssertTrue(reports.all.isEmpty)
        realm.connection.close()
        XCTAssertThrowsError(try item.checkInvalidated())
        XCTAssertFalse(item.isInvalidated, "a closed connection does not read as deleted")
        XCTAssertEqual(reports.all.count, 1)
        XCTAssertTrue(reports.all.first?.operation.contains("Item object") == true)
        XCTAssertThrowsError(try realm.fetchVersion())
        _ = realm.version
        XCTAssertEqual(reports.all.count, 2, "version reports its error")
    }

    func testInTransactionRethrowsTheBodysErrorAndRollsBack() throws {
        let realm = try Realm(configuration: itemConfig(0))
        let connection = realm.connection
        struct BodyError: Error {}
        XCTAssertThrowsError(
            try connection.inTransaction(.immediate) {
                try connection.execute("CREATE TABLE scratch (x)")
                throw BodyError()
            }
        ) { XCTAssertTrue($0 is BodyError) }
        XCTAssertFalse(connection.isInTransaction)
        XCTAssertEqual(try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'scratch'"), 0)
        try realm.write {
            XCTAssertThrowsError(
                try connection.inSavepoint {
                    try connection.execute("CREATE TABLE scratch (x)")
                    throw BodyError()
                }
            ) { XCTAssertTrue($0 is BodyError) }
            XCTAssertTrue(connection.isInTransaction, "a savepoint leaves the enclosing transaction open")
        }
        XCTAssertEqual(try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'scratch'"), 0)
    }
}

private final class ReportCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [RealmDiagnostics.Report] = []
    func append(_ report: RealmDiagnostics.Report) { lock.withLock { reports.append(report) } }
    var all: [RealmDiagnostics.Report] { lock.withLock { reports } }
}
