import CSQLite
import Foundation
import XCTest

@testable import RealmDatabase

/// Migrations: the Migration API, when the block runs, and the all-or-nothing transaction around it.
final class MigrationTests: RealmTestCase {
    private struct Abort: Error {}

    private func config(_ schema: Schema, version: UInt64, block: MigrationBlock? = nil) -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: fileURL("migrate"))
        config.schema = schema
        config.schemaVersion = version
        config.migrationBlock = block
        return config
    }

    /// Version 1: Person(name, age, nickname?) with 3 people; Pet(name) with 2 pets.
    private static var v1: Schema {
        Schema([
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "id", type: .int, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                    Property(name: "age", type: .int),
                    Property(name: "nickname", type: .string, isOptional: true),
                    Property(name: "tags", type: .string, collection: .list),
                ]),
            ObjectSchema(className: "Pet", properties: [Property(name: "name", type: .string)]),
        ])
    }

    private func seedV1() throws {
        let realm = try Realm(configuration: config(Self.v1, version: 1))
        try realm.write {
            try realm.create(
                "Person", value: ["id": 1, "name": "Ada Lovelace", "age": 36, "nickname": "Countess", "tags": ["math"]])
            try realm.create("Person", value: ["id": 2, "name": "Alan Turing", "age": 41, "tags": ["logic", "code"]])
            try realm.create("Person", value: ["id": 3, "name": "Grace Hopper", "age": 85])
            try realm.create("Pet", value: ["name": "Rex"])
            try realm.create("Pet", value: ["name": "Tom"])
        }
    }

    /// Version 2: Person's `name` split into `firstName`/`lastName`, `age` renamed to `years`,
    /// `nickname` dropped, `email` added; Pet removed; Tag added.
    private static var v2: Schema {
        Schema([
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "id", type: .int, isPrimaryKey: true),
                    Property(name: "firstName", type: .string),
                    Property(name: "lastName", type: .string),
                    Property(name: "years", type: .int),
                    Property(name: "email", type: .string, defaultValue: "none"),
                    Property(name: "tags", type: .string, collection: .list),
                ]),
            ObjectSchema(className: "Tag", properties: [Property(name: "label", type: .string)]),
        ])
    }

    // MARK: The Migration API

    func testEnumerateObjectsGivesOldAndNewObjects() throws {
        try seedV1()
        var calls = 0
        var seen = [Int64]()
        let realm = try Realm(
            configuration: config(Self.v2, version: 2) { migration, oldVersion in
                calls += 1
                XCTAssertEqual(oldVersion, 1)
                XCTAssertEqual(migration.oldSchema.classNames.sorted(), ["Person", "Pet"])
                XCTAssertEqual(migration.newSchema.classNames.sorted(), ["Person", "Tag"])
                XCTAssertNotNil(migration.oldSchema["Person"]?["nickname"])
                XCTAssertNil(migration.newSchema["Person"]?["nickname"])
                try migration.enumerateObjects(ofType: "Person") { old, new in
                    let old = try XCTUnwrap(old)
                    let new = try XCTUnwrap(new)
                    seen.append(try old["id"].intValue!)
                    // The old object reads the old schema, removed properties included.
                    XCTAssertNotNil(try old["age"].intValue)
                    _ = try old["nickname"]
                    XCTAssertThrowsError(try old["firstName"])
                    // The new object has the added properties, with defaults until set.
                    XCTAssertEqual(try new["email"], "none")
                    XCTAssertEqual(try new["firstName"], "")
                    XCTAssertThrowsError(try new["name"])
                    let parts = try old["name"].stringValue!.split(separator: " ").map(String.init)
                    try new.setValue(.string(parts[0]), forKey: "firstName")
                    try new.setValue(.string(parts[1]), forKey: "lastName")
                    try new.setValue(try old["age"], forKey: "years")
                    // The old object is read-only.
                    XCTAssertThrowsError(try old.setValue("x", forKey: "name"))
                }
                // A class removed from the schema is enumerated with no new object.
                var pets = [String]()
                try migration.enumerateObjects(ofType: "Pet") { old, new in
                    XCTAssertNil(new)
                    pets.append(try old!["name"].stringValue!)
                }
                XCTAssertEqual(pets.sorted(), ["Rex", "Tom"])
                // A class new in this version has no objects yet to enumerate.
                try migration.enumerateObjects(ofType: "Tag") { _, _ in XCTFail("nothing to enumerate") }
                assertRealmError(
                    try migration.enumerateObjects(ofType: "Nope") { _, _ in }, code: .migration, containing: ["Nope"])
            })
        XCTAssertEqual(calls, 1, "the block runs once")
        XCTAssertEqual(seen.sorted(), [1, 2, 3])
        XCTAssertEqual(realm.schemaVersion, 2)
        let ada = try XCTUnwrap(try realm.object(ofType: "Person", forPrimaryKey: 1))
        XCTAssertEqual(try ada["firstName"], "Ada")
        XCTAssertEqual(try ada["lastName"], "Lovelace")
        XCTAssertEqual(try ada["years"], 36)
        XCTAssertEqual(try ada["email"], "none")
        XCTAssertEqual(try ada["tags"], ["math"], "untouched properties keep their values")
        XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 2)?["tags"], ["logic", "code"])
        XCTAssertNil(realm.schema["Pet"])
        // The block does not run again.
        _ = try Realm(configuration: config(Self.v2, version: 2) { _, _ in XCTFail("migrated twice") })
    }

    func testRenamePropertyKeepsTheValues() throws {
        try seedV1()
        let realm = try Realm(
            configuration: config(Self.v2, version: 2) { migration, _ in
                try migration.renameProperty(onType: "Person", from: "age", to: "years")
                try migration.enumerateObjects(ofType: "Person") { old, new in
                    XCTAssertEqual(
                        try new!["years"], try old!["age"], "after the rename the new name holds the old data")
                }
            })
        XCTAssertEqual(try realm.objects("Person").sorted(byKeyPath: "id").map { try $0["years"] }, [36, 41, 85])
        // The index-free rename leaves no stray column.
        var columns = [String]()
        try realm.connection.forEachRow("SELECT name FROM pragma_table_info('class_Person')", cache: false) {
            columns.append($0.string(at: 0))
        }
        XCTAssertFalse(columns.contains("age"))
        XCTAssertFalse(columns.contains("nickname"))
    }

    func testRenamePropertyErrors() throws {
        try seedV1()
        func attempt(_ body: @escaping (Migration) throws -> Void) -> RealmError? {
            do {
                _ = try Realm(configuration: config(Self.v2, version: 2) { migration, _ in try body(migration) })
                return nil
            } catch { return error as? RealmError }
        }
        XCTAssertEqual(
            attempt { try $0.renameProperty(onType: "Nope", from: "a", to: "b") }?.message,
            "Cannot rename properties for type 'Nope' because it does not exist.")
        XCTAssertEqual(
            attempt { try $0.renameProperty(onType: "Pet", from: "name", to: "title") }?.message,
            "Cannot rename properties for type 'Pet' because it has been removed from the Realm.")
        XCTAssertEqual(
            attempt { try $0.renameProperty(onType: "Person", from: "tags", to: "years") }?.message,
            "Cannot rename property 'Person.tags' to 'years' because the source property still exists.")
        XCTAssertEqual(
            attempt { try $0.renameProperty(onType: "Person", from: "shoeSize", to: "years") }?.message,
            "Cannot rename property 'Person.shoeSize' because it does not exist.")
        XCTAssertEqual(
            attempt { try $0.renameProperty(onType: "Person", from: "name", to: "years") }?.message,
            "Cannot rename property 'Person.name' to 'years' because it would change from type 'string' to 'int'.")
        XCTAssertEqual(
            attempt { try $0.renameProperty(onType: "Person", from: "nickname", to: "email") }?.message,
            "Cannot rename property 'Person.nickname' to 'email' because it would change from optional to required.")
        // Every failed attempt left the file at version 1.
        let old = try Realm(configuration: config(Self.v1, version: 1))
        XCTAssertEqual(old.schemaVersion, 1)
        XCTAssertEqual(try old.objects("Person").countObjects(), 3)
    }

    func testCreateDeleteAndDeleteData() throws {
        try seedV1()
        let realm = try Realm(
            configuration: config(Self.v2, version: 2) { migration, _ in
                let tag = try migration.create("Tag", value: ["label": "created"])
                XCTAssertEqual(try tag["label"], "created")
                try migration.create("Tag", value: ["dropped"])
                // Objects created in the migration are enumerated for a class new in this version.
                var labels = [String]()
                try migration.enumerateObjects(ofType: "Tag") { old, new in
                    XCTAssertNil(old)
                    labels.append(try new!["label"].stringValue!)
                }
                XCTAssertEqual(labels, ["created", "dropped"])
                try migration.enumerateObjects(ofType: "Tag") { _, new in
                    if try new!["label"] == "dropped" { try migration.delete(new!) }
                }
                // Delete one person, then the enumeration skips it.
                try migration.enumerateObjects(ofType: "Person") { old, new in
                    if try old!["id"] == 2 { try migration.delete(new!) }
                }
                var remaining = 0
                try migration.enumerateObjects(ofType: "Person") { _, _ in remaining += 1 }
                XCTAssertEqual(remaining, 2)
                XCTAssertTrue(try migration.deleteData(forType: "Pet"))
                XCTAssertFalse(try migration.deleteData(forType: "Pet"), "already gone")
                XCTAssertFalse(try migration.deleteData(forType: "Unknown"))
                assertRealmError(
                    try migration.create("Pet", value: ["name": "x"]), code: .migration, containing: ["Pet"])
            })
        XCTAssertEqual(try realm.objects("Tag").map { try $0["label"] }, ["created"])
        XCTAssertEqual(try realm.objects("Person").countObjects(), 2)
        XCTAssertNil(try realm.object(ofType: "Person", forPrimaryKey: 2))
        // deleteData on a class gone from the schema drops its table.
        let tables = try realm.connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'class_Pet'")
        XCTAssertEqual(tables, 0)
    }

    func testDeleteDataKeepsAClassStillInTheSchema() throws {
        try seedV1()
        var schema = Self.v1
        schema.objectSchemas[1].properties.append(Property(name: "age", type: .int))
        let realm = try Realm(
            configuration: config(schema, version: 2) { migration, _ in
                XCTAssertTrue(try migration.deleteData(forType: "Pet"))
                try migration.create("Pet", value: ["name": "New", "age": 1])
            })
        XCTAssertEqual(try realm.objects("Pet").map { try $0["name"] }, ["New"])
    }

    func testPrimaryKeysMayCollideDuringTheBlockButNotAfter() throws {
        try seedV1()
        // Swapping two keys passes through a duplicate.
        let realm = try Realm(
            configuration: config(Self.v1, version: 2) { migration, _ in
                try migration.enumerateObjects(ofType: "Person") { old, new in
                    switch try old!["id"] {
                    case 1: try new!.setValue(2, forKey: "id")
                    case 2: try new!.setValue(1, forKey: "id")
                    default: break
                    }
                }
            })
        XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 1)?["name"], "Alan Turing")
        XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 2)?["name"], "Ada Lovelace")
    }

    func testDuplicatePrimaryKeysAfterTheBlockFailTheMigration() throws {
        try seedV1()
        let before = fileState(fileURL("migrate"))
        assertRealmError(
            try Realm(
                configuration: config(Self.v1, version: 2) { migration, _ in
                    try migration.enumerateObjects(ofType: "Person") { _, new in try new!.setValue(7, forKey: "id") }
                }), "Primary key property 'Person.id' has duplicate values after migration.")
        XCTAssertEqual(fileState(fileURL("migrate")).bytes, before.bytes)
    }

    func testMakingAPrimaryKeyChecksUniqueness() throws {
        try seedV1()
        // Pet's names are distinct: making `name` its primary key needs only the version bump.
        var petKey = Self.v1
        petKey.objectSchemas[1] = ObjectSchema(
            className: "Pet", properties: [Property(name: "name", type: .string, isPrimaryKey: true)])
        do {
            let realm = try Realm(configuration: config(petKey, version: 2))
            XCTAssertEqual(try realm.object(ofType: "Pet", forPrimaryKey: "Rex")?["name"], "Rex")
        }
        // Person's key moves to `age`; the block makes two ages equal: refused, and rolled back.
        var ageKey = petKey
        ageKey.objectSchemas[0].properties = ageKey.objectSchemas[0].properties.map { p in
            var p = p
            p.isPrimaryKey = p.name == "age"
            return p
        }
        assertRealmError(
            try Realm(
                configuration: config(ageKey, version: 3) { migration, _ in
                    try migration.enumerateObjects(ofType: "Person") { _, new in try new!.setValue(1, forKey: "age") }
                }), "Primary key property 'Person.age' has duplicate values after migration.")
        let realm = try Realm(configuration: config(petKey, version: 2))
        XCTAssertEqual(realm.schemaVersion, 2)
        XCTAssertEqual(try realm.objects("Person").sorted(byKeyPath: "id").map { try $0["age"] }, [36, 41, 85])
    }

    // MARK: All or nothing

    func testAThrownErrorRollsBackEverything() throws {
        try seedV1()
        let before = fileState(fileURL("migrate"))
        var ran = 0
        XCTAssertThrowsError(
            try Realm(
                configuration: config(Self.v2, version: 2) { migration, _ in
                    ran += 1
                    try migration.renameProperty(onType: "Person", from: "age", to: "years")
                    try migration.enumerateObjects(ofType: "Person") { _, new in
                        try new!.setValue("changed", forKey: "firstName")
                    }
                    try migration.create("Tag", value: ["label": "x"])
                    XCTAssertTrue(try migration.deleteData(forType: "Pet"))
                    throw Abort()
                })
        ) { error in
            XCTAssertTrue(error is Abort, "the block's error comes out of the open")
        }
        XCTAssertEqual(ran, 1)
        // The file is as it was: same bytes, old version, old schema, old data.
        XCTAssertEqual(fileState(fileURL("migrate")).bytes, before.bytes)
        let old = try Realm(configuration: config(Self.v1, version: 1))
        XCTAssertEqual(old.schemaVersion, 1)
        XCTAssertEqual(try old.object(ofType: "Person", forPrimaryKey: 1)?["name"], "Ada Lovelace")
        XCTAssertEqual(try old.object(ofType: "Person", forPrimaryKey: 1)?["age"], 36)
        XCTAssertEqual(try old.objects("Pet").countObjects(), 2)
        let stored = try Realm(configuration: Realm.Configuration(fileURL: fileURL("migrate")))
        XCTAssertEqual(stored.schema.classNames.sorted(), ["Person", "Pet"])
        XCTAssertNotNil(stored.schema["Person"]?["age"])
        // And the migration can run again, to completion.
        let realm = try Realm(
            configuration: config(Self.v2, version: 2) { migration, _ in
                try migration.renameProperty(onType: "Person", from: "age", to: "years")
            })
        XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 3)?["years"], 85)
    }

    func testTheMigrationIsOneTransactionWithTheSchemaChange() throws {
        try seedV1()
        // Another instance, opened on the file during the block, still sees version 1 whole.
        var observed: (version: UInt64, hasYears: Bool, people: Int)?
        _ = try Realm(
            configuration: config(Self.v2, version: 2) { migration, _ in
                try migration.enumerateObjects(ofType: "Person") { _, new in try new!.setValue("x", forKey: "firstName")
                }
                var raw: OpaquePointer?
                let path = self.fileURL("migrate").path
                guard sqlite3_open_v2(path, &raw, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return }
                defer { sqlite3_close_v2(raw) }
                func scalar(_ sql: String) -> String? {
                    var statement: OpaquePointer?
                    guard sqlite3_prepare_v2(raw, sql, -1, &statement, nil) == SQLITE_OK else { return nil }
                    defer { sqlite3_finalize(statement) }
                    guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
                        return nil
                    }
                    return String(cString: text)
                }
                observed = (
                    UInt64(scalar("SELECT value FROM _realm_meta WHERE key = 'schemaVersion'") ?? "") ?? 99,
                    scalar("SELECT count(*) FROM pragma_table_info('class_Person') WHERE name = 'years'") == "1",
                    Int(scalar("SELECT count(*) FROM class_Person WHERE firstName = 'x'") ?? "") ?? -1
                )
            })
        XCTAssertEqual(observed?.version, 1)
        XCTAssertEqual(observed?.hasYears, false, "the added column is not visible before the commit")
        XCTAssertEqual(observed?.people, -1, "nor the values the block wrote (the column does not exist outside)")
    }

    func testMigrationChainOverSeveralVersions() throws {
        try seedV1()
        var v3 = Self.v2
        v3.objectSchemas[0].properties.append(Property(name: "fullName", type: .string))
        let block: MigrationBlock = { migration, oldVersion in
            if oldVersion < 2 {
                try migration.renameProperty(onType: "Person", from: "age", to: "years")
                try migration.enumerateObjects(ofType: "Person") { old, new in
                    let parts = try old!["name"].stringValue!.split(separator: " ").map(String.init)
                    try new!.setValue(.string(parts[0]), forKey: "firstName")
                    try new!.setValue(.string(parts[1]), forKey: "lastName")
                }
            }
            if oldVersion < 3 {
                try migration.enumerateObjects(ofType: "Person") { old, new in
                    // From version 1 the names are still in `name`; from 2 in first/last.
                    let full =
                        oldVersion < 2
                        ? try old!["name"].stringValue!
                        : "\(try old!["firstName"].stringValue!) \(try old!["lastName"].stringValue!)"
                    try new!.setValue(.string(full), forKey: "fullName")
                }
            }
        }
        let realm = try Realm(configuration: config(v3, version: 3, block: block))
        let grace = try XCTUnwrap(try realm.object(ofType: "Person", forPrimaryKey: 3))
        XCTAssertEqual(try grace["fullName"], "Grace Hopper")
        XCTAssertEqual(try grace["lastName"], "Hopper")
        XCTAssertEqual(try grace["years"], 85)
        XCTAssertEqual(realm.schemaVersion, 3)
    }

    func testTypeChangeNeedsTheBlockToFillValues() throws {
        try seedV1()
        var schema = Self.v1
        schema.objectSchemas[0].properties[2] = Property(name: "age", type: .string)
        let realm = try Realm(
            configuration: config(schema, version: 2) { migration, _ in
                try migration.enumerateObjects(ofType: "Person") { old, new in
                    XCTAssertNotNil(try old!["age"].intValue, "the old object still reads an int")
                    try new!.setValue(.string("\(try old!["age"].intValue!) years"), forKey: "age")
                }
            })
        XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 1)?["age"], "36 years")
    }

    /// realm-core migrations.cpp "values for nullable properties are discarded when converting to
    /// required": the column is dropped and re-added, so a value held before is lost too.
    func testOptionalMadeRequiredTakesTheDefault() throws {
        try seedV1()
        var schema = Self.v1
        schema.objectSchemas[0].properties[3] = Property(name: "nickname", type: .string)
        let realm = try Realm(configuration: config(schema, version: 2))
        XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 1)?["nickname"], "")
        XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 2)?["nickname"], "")
    }

    func testRenamedAndRetypedCollectionsCanChangeAgainLater() throws {
        try seedV1()
        func schema(_ tags: Property, _ extra: [Property] = []) -> Schema {
            var schema = Self.v1
            schema.objectSchemas[0].properties.removeAll { $0.name == "tags" }
            schema.objectSchemas[0].properties += [tags] + extra
            return schema
        }
        // v2: the list `tags` is renamed `labels`.
        do {
            let realm = try Realm(
                configuration: config(schema(Property(name: "labels", type: .string, collection: .list)), version: 2) {
                    migration, _ in
                    try migration.renameProperty(onType: "Person", from: "tags", to: "labels")
                })
            XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 2)?["labels"], ["logic", "code"])
        }
        // v3: a new list takes the old name `tags`.
        do {
            let realm = try Realm(
                configuration: config(
                    schema(
                        Property(name: "labels", type: .string, collection: .list),
                        [Property(name: "tags", type: .int, collection: .list)]), version: 3))
            XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 2)?["tags"], [])
            XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 2)?["labels"], ["logic", "code"])
        }
        // v4 and v5: `labels` changes element type twice, the block converting each time.
        let lengths = schema(
            Property(name: "labels", type: .int, collection: .list),
            [Property(name: "tags", type: .int, collection: .list)])
        do {
            let realm = try Realm(
                configuration: config(lengths, version: 4) { migration, _ in
                    try migration.enumerateObjects(ofType: "Person") { old, new in
                        let words = try old!["labels"].listValue!.map { RealmValue.int(Int64($0.stringValue!.count)) }
                        try new!.setValue(.list(words), forKey: "labels")
                    }
                })
            XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 2)?["labels"], [5, 4])
        }
        let back = schema(
            Property(name: "labels", type: .string, collection: .list),
            [Property(name: "tags", type: .int, collection: .list)])
        let realm = try Realm(
            configuration: config(back, version: 5) { migration, _ in
                try migration.enumerateObjects(ofType: "Person") { old, new in
                    try new!.setValue(
                        .list(try old!["labels"].listValue!.map { .string("\($0.intValue!)") }), forKey: "labels")
                }
            })
        XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 2)?["labels"], ["5", "4"])
        try realm.write { try realm.object(ofType: "Person", forPrimaryKey: 2)!.dynamicList("labels").append("x") }
        XCTAssertEqual(try realm.object(ofType: "Person", forPrimaryKey: 2)?["labels"], ["5", "4", "x"])
    }

    func testLinkListChangingItsTargetClassTwice() throws {
        func schema(_ target: String) -> Schema {
            var schema = Self.v1
            schema.objectSchemas[0].properties.append(
                Property(name: "friends", type: .object, objectClassName: target, collection: .list))
            schema.objectSchemas.append(
                ObjectSchema(className: "Tag", properties: [Property(name: "label", type: .string)]))
            return schema
        }
        do {
            let realm = try Realm(configuration: config(schema("Pet"), version: 1))
            try realm.write {
                try realm.create("Person", value: ["id": 1, "name": "Ada", "friends": [["name": "Rex"]]])
            }
        }
        for (version, target) in [(2, "Tag"), (3, "Pet")] as [(UInt64, String)] {
            let realm = try Realm(
                configuration: config(schema(target), version: version) { migration, _ in
                    try migration.enumerateObjects(ofType: "Person") { old, new in
                        let names = try old!["friends"].listValue!.map {
                            try $0.objectValue![target == "Tag" ? "name" : "label"]
                        }
                        let friends = try names.map {
                            RealmValue.object(
                                try migration.create(target, value: target == "Tag" ? ["label": $0] : ["name": $0]))
                        }
                        try new!.setValue(.list(friends), forKey: "friends")
                    }
                })
            let friends = try XCTUnwrap(try realm.object(ofType: "Person", forPrimaryKey: 1)?["friends"].listValue)
            XCTAssertEqual(friends.count, 1)
            XCTAssertEqual(friends.first?.objectValue?.className, target)
        }
    }

    func testRenameAnIndexedProperty() throws {
        var indexed = Self.v1
        indexed.objectSchemas[0].properties[1].isIndexed = true
        do {
            let realm = try Realm(configuration: config(indexed, version: 1))
            try realm.write { try realm.create("Person", value: ["id": 1, "name": "Ada"]) }
        }
        var renamed = indexed
        renamed.objectSchemas[0].properties[1].name = "fullName"
        let realm = try Realm(
            configuration: config(renamed, version: 2) { migration, _ in
                try migration.renameProperty(onType: "Person", from: "name", to: "fullName")
            })
        XCTAssertEqual(try realm.objects("Person").filter("fullName == $0", "Ada").countObjects(), 1)
        var indexes = [String]()
        try realm.connection.forEachRow(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'class_Person'", cache: false
        ) { indexes.append($0.string(at: 0)) }
        XCTAssertTrue(indexes.contains("idx_Person_fullName"), "\(indexes)")
        XCTAssertFalse(indexes.contains("idx_Person_name"), "\(indexes)")
    }

    func testSeedMigrationAddingFavoriteTreatWithoutABlock() throws {
        do {
            let realm = try Realm(configuration: doggoConfig(version: 1))
            try realm.write { try realm.create("Dog", value: ["name": "Maui"]) }
        }
        let realm = try Realm(configuration: doggoConfig(version: 2))
        XCTAssertEqual(try realm.objects("Dog").first?["favoriteTreat"], "")
        XCTAssertEqual(try realm.objects("Dog").first?["name"], "Maui")
    }
}
