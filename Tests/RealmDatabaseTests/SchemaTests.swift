import Foundation
import XCTest

@testable import RealmDatabase

/// Schemas: validation, primary keys, indexes, defaults, embedded objects and backlinks, the schema
/// stored in the file, and what opening with a different schema does.
final class SchemaTests: RealmTestCase {
    private func config(_ schema: Schema, version: UInt64 = 0, name: String = "schema") -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: fileURL(name))
        config.schema = schema
        config.schemaVersion = version
        return config
    }

    private func dogSchema(_ properties: [Property], primaryKey: String? = nil) -> Schema {
        Schema([ObjectSchema(className: "Dog", properties: properties, primaryKey: primaryKey)])
    }

    // MARK: The stored schema

    func testSchemaIsStoredInTheFile() throws {
        let schema = Self.allTypesSchema()
        _ = try Realm(configuration: allTypesConfig(version: 5))
        // Opened without a schema, the realm uses the one stored in the file.
        let dynamic = try Realm(configuration: Realm.Configuration(fileURL: fileURL("alltypes")))
        XCTAssertEqual(dynamic.schemaVersion, 5)
        XCTAssertEqual(dynamic.schema.classNames, schema.classNames)
        for objectSchema in schema.objectSchemas {
            let stored = try XCTUnwrap(dynamic.schema[objectSchema.className])
            XCTAssertEqual(stored.isEmbedded, objectSchema.isEmbedded)
            XCTAssertEqual(stored.primaryKey, objectSchema.primaryKey)
            XCTAssertEqual(stored.properties.map(\.name), objectSchema.properties.map(\.name))
            for (a, b) in zip(stored.properties, objectSchema.properties) {
                XCTAssertEqual(a.typeString, b.typeString, "\(objectSchema.className).\(a.name)")
                XCTAssertEqual(a.isIndexed, b.isIndexed, "\(objectSchema.className).\(a.name)")
                XCTAssertEqual(a.linkOriginPropertyName, b.linkOriginPropertyName)
            }
        }
        // And it can read and write through that schema.
        try dynamic.write { try dynamic.create("Target", value: ["id": "t", "value": 3]) }
        XCTAssertEqual(try dynamic.object(ofType: "Target", forPrimaryKey: "t")?["value"], 3)
    }

    func testTheSameSchemaReopensWithoutWriting() throws {
        do {
            let realm = try Realm(configuration: allTypesConfig())
            try realm.write { try realm.create("AllTypes", value: ["pk": 1]) }
        }
        let before = fileState(fileURL("alltypes"))
        do {
            let realm = try Realm(configuration: allTypesConfig())
            XCTAssertEqual(try realm.objects("AllTypes").countObjects(), 1)
        }
        XCTAssertEqual(fileState(fileURL("alltypes")).bytes, before.bytes)
    }

    // MARK: Differences at the same version

    func testEveryDifferenceIsNamed() throws {
        let old = Schema([
            ObjectSchema(
                className: "Dog",
                properties: [
                    Property(name: "id", type: .int, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                    Property(name: "age", type: .int),
                    Property(name: "breed", type: .string),
                    Property(name: "nickname", type: .string, isOptional: true),
                ]),
            ObjectSchema(className: "Cat", properties: [Property(name: "name", type: .string)]),
            ObjectSchema(className: "Bird", properties: [Property(name: "tag", type: .string, isPrimaryKey: true)]),
        ])
        _ = try Realm(configuration: config(old, version: 1))
        let before = fileState(fileURL("schema"))
        let new = Schema([
            ObjectSchema(
                className: "Dog",
                properties: [
                    Property(name: "id", type: .int, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                    Property(name: "age", type: .string),
                    Property(name: "breed", type: .string, isOptional: true),
                    Property(name: "nickname", type: .string),
                    Property(name: "favoriteTreat", type: .string),
                ]),
            ObjectSchema(className: "Cat", properties: [Property(name: "name", type: .string, isPrimaryKey: true)]),
            ObjectSchema(className: "Bird", properties: [Property(name: "tag", type: .string)]),
        ])
        XCTAssertThrowsError(try Realm(configuration: config(new, version: 1))) { error in
            guard let error = error as? RealmError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .schemaMismatch)
            var lines = error.message.components(separatedBy: "\n")
            XCTAssertEqual(lines.removeFirst(), "Migration is required due to the following errors:")
            XCTAssertEqual(
                Set(lines),
                [
                    "- Property 'Dog.age' has been changed from 'int' to 'string'.",
                    "- Property 'Dog.breed' has been made optional.",
                    "- Property 'Dog.nickname' has been made required.",
                    "- Property 'Dog.favoriteTreat' has been added.",
                    "- Primary Key for class 'Cat' has been added.",
                    "- Primary Key for class 'Bird' has been removed.",
                ])
            XCTAssertEqual(lines.count, 6)
        }
        XCTAssertEqual(fileState(fileURL("schema")).bytes, before.bytes, "a refused open does not touch the file")
    }

    func testRemovedPropertyAndChangedPrimaryKeyAreNamed() throws {
        let old = dogSchema(
            [
                Property(name: "id", type: .int), Property(name: "name", type: .string),
                Property(name: "age", type: .int),
            ], primaryKey: "id")
        _ = try Realm(configuration: config(old))
        let new = dogSchema(
            [Property(name: "id", type: .int), Property(name: "name", type: .string)], primaryKey: "name")
        assertRealmError(
            try Realm(configuration: config(new)),
            "Migration is required due to the following errors:\n- Property 'Dog.age' has been removed.\n"
                + "- Primary Key for class 'Dog' has changed from 'id' to 'name'."
        )
    }

    func testAddedClassAndIndexChangesNeedNoVersionBump() throws {
        let old = dogSchema([Property(name: "name", type: .string), Property(name: "age", type: .int, isIndexed: true)])
        do {
            let realm = try Realm(configuration: config(old))
            try realm.write { try realm.create("Dog", value: ["name": "Rex", "age": 3]) }
        }
        var new = dogSchema([Property(name: "name", type: .string, isIndexed: true), Property(name: "age", type: .int)])
        new.objectSchemas.append(ObjectSchema(className: "Cat", properties: [Property(name: "name", type: .string)]))
        let realm = try Realm(configuration: config(new))
        XCTAssertEqual(realm.schemaVersion, 0)
        XCTAssertEqual(try realm.objects("Dog").first?["name"], "Rex")
        try realm.write { try realm.create("Cat", value: ["name": "Tom"]) }
        let indexes = try indexNames(realm, table: "class_Dog")
        XCTAssertTrue(indexes.contains("idx_Dog_name"), "\(indexes)")
        XCTAssertFalse(indexes.contains("idx_Dog_age"), "\(indexes)")
        // The stored schema follows.
        let dynamic = try Realm(configuration: Realm.Configuration(fileURL: fileURL("schema")))
        XCTAssertEqual(dynamic.schema["Dog"]?["name"]?.isIndexed, true)
        XCTAssertEqual(dynamic.schema["Dog"]?["age"]?.isIndexed, false)
        XCTAssertNotNil(dynamic.schema["Cat"])
    }

    func testRemovedClassNeedsNoVersionBumpAndKeepsItsData() throws {
        do {
            let realm = try Realm(configuration: doggoConfig())
            try realm.write { try realm.create("Company", value: ["companyName": "Acme"]) }
        }
        var without = doggoConfig()
        without.schema!.objectSchemas.removeAll { $0.className == "Company" }
        do {
            let realm = try Realm(configuration: without)
            XCTAssertNil(realm.schema["Company"])
            assertRealmError(try realm.objects("Company"), "Object type 'Company' is not managed by the Realm.")
        }
        let full = try Realm(configuration: doggoConfig())
        XCTAssertEqual(try full.objects("Company").first?["companyName"], "Acme")
    }

    func testALowerVersionFails() throws {
        _ = try Realm(configuration: doggoConfig(version: 2))
        let before = fileState(fileURL("doggo"))
        assertRealmError(
            try Realm(configuration: doggoConfig(version: 1)),
            "Provided schema version 1 is less than last set version 2.")
        XCTAssertEqual(fileState(fileURL("doggo")).bytes, before.bytes)
        // Even with deleteRealmIfMigrationNeeded, a lower version is refused, not deleted.
        var config = doggoConfig(version: 1)
        config.deleteRealmIfMigrationNeeded = true
        assertRealmError(try Realm(configuration: config), code: .invalidSchemaVersion)
    }

    func testAddedAndRemovedClassesAndPropertiesMigrateByThemselves() throws {
        let old = Schema([
            ObjectSchema(
                className: "Dog",
                properties: [Property(name: "name", type: .string), Property(name: "age", type: .int)]),
            ObjectSchema(className: "Cat", properties: [Property(name: "name", type: .string)]),
        ])
        do {
            let realm = try Realm(configuration: config(old, version: 1))
            try realm.write {
                try realm.create("Dog", value: ["name": "Rex", "age": 3])
                try realm.create("Cat", value: ["name": "Tom"])
            }
        }
        let new = Schema([
            ObjectSchema(
                className: "Dog",
                properties: [
                    Property(name: "name", type: .string),
                    Property(name: "treat", type: .string, defaultValue: "bone"),
                    Property(name: "tags", type: .string, collection: .list),
                    Property(name: "born", type: .date, isOptional: true),
                ]),
            ObjectSchema(className: "Bird", properties: [Property(name: "tag", type: .string)]),
        ])
        let realm = try Realm(configuration: config(new, version: 2))
        XCTAssertEqual(realm.schemaVersion, 2)
        let dog = try XCTUnwrap(try realm.objects("Dog").first)
        XCTAssertEqual(try dog["name"], "Rex")
        XCTAssertEqual(try dog["treat"], "bone", "an added property takes its default")
        XCTAssertEqual(try dog["tags"], [], "an added list starts empty")
        XCTAssertEqual(try dog["born"], .null)
        assertRealmError(try dog["age"], code: .invalidProperty, containing: ["age"])
        XCTAssertEqual(try realm.objects("Bird").countObjects(), 0)
        try realm.write { try realm.create("Bird", value: ["tag": "b"]) }
        // The removed column is gone from the table.
        XCTAssertFalse(try columnNames(realm, table: "class_Dog").contains("age"))
    }

    func testAddedUUIDAndObjectIdPropertiesGetAValuePerObject() throws {
        let old = dogSchema([Property(name: "name", type: .string)])
        do {
            let realm = try Realm(configuration: config(old, version: 1))
            try realm.write {
                try realm.create("Dog", value: ["name": "a"])
                try realm.create("Dog", value: ["name": "b"])
            }
        }
        let new = dogSchema([
            Property(name: "name", type: .string), Property(name: "uid", type: .uuid),
            Property(name: "oid", type: .objectId),
        ])
        let realm = try Realm(configuration: config(new, version: 2))
        let dogs = Array(try realm.objects("Dog"))
        XCTAssertEqual(dogs.count, 2)
        let uuids = try dogs.map { try $0["uid"] }
        let oids = try dogs.map { try $0["oid"] }
        XCTAssertFalse(uuids.contains(.null))
        XCTAssertFalse(oids.contains(.null))
        XCTAssertNotEqual(uuids[0], uuids[1])
        XCTAssertNotEqual(oids[0], oids[1])
    }

    // MARK: Validation

    func testInvalidSchemasAreRefusedBeforeAnyFileIsCreated() {
        let cases: [(Schema, [String])] = [
            (dogSchema([Property(name: "weight", type: .double, isPrimaryKey: true)]), ["Dog.weight", "primary key"]),
            (
                dogSchema([
                    Property(name: "a", type: .int, isPrimaryKey: true),
                    Property(name: "b", type: .string, isPrimaryKey: true),
                ]), ["Dog", "more than one primary key"]
            ),
            (dogSchema([Property(name: "toy", type: .object, objectClassName: "Toy")]), ["Dog.toy", "Toy"]),
            (dogSchema([Property(name: "name", type: .string), Property(name: "name", type: .int)]), ["Dog.name"]),
            (dogSchema([Property(name: "data", type: .data, isIndexed: true)]), ["Dog.data", "indexed"]),
            (
                dogSchema([
                    Property(
                        name: "owners", type: .linkingObjects, objectClassName: "Dog", linkOriginPropertyName: "nope")
                ]), ["Dog.owners"]
            ),
            // realm-core's Table::max_column_name_length is 63 bytes ("1abc" is a name Realm accepts).
            (dogSchema([Property(name: String(repeating: "p", count: 64), type: .int)]), ["Dog.ppp"]),
            (
                Schema([
                    ObjectSchema(className: "Dog", properties: [Property(name: "name", type: .string)]),
                    ObjectSchema(className: "Dog", properties: [Property(name: "age", type: .int)]),
                ]), ["Dog"]
            ),
            (
                Schema([
                    ObjectSchema(
                        className: "Addr", properties: [Property(name: "id", type: .int, isPrimaryKey: true)],
                        isEmbedded: true)
                ]), ["Addr"]
            ),
        ]
        for (schema, fragments) in cases {
            assertRealmError(try Realm(configuration: config(schema)), code: .schemaValidation, containing: fragments)
            XCTAssertFalse(FileManager.default.fileExists(atPath: fileURL("schema").path), "\(fragments)")
        }
    }

    // MARK: Primary keys

    func testPrimaryKeysOfEveryAllowedType() throws {
        let keys: [(PropertyType, RealmValue, RealmValue)] = [
            (.int, 1, 2),
            (.string, "a", "b"),
            (
                .objectId, .objectId(ObjectId(string: "000000000000000000000001")!),
                .objectId(ObjectId(string: "000000000000000000000002")!)
            ),
            (
                .uuid, .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!),
                .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000002")!)
            ),
        ]
        for (i, (type, a, b)) in keys.enumerated() {
            let schema = dogSchema([
                Property(name: "key", type: type, isPrimaryKey: true), Property(name: "name", type: .string),
            ])
            let realm = try Realm(configuration: config(schema, name: "pk\(i)"))
            try realm.write {
                try realm.create("Dog", value: ["key": a, "name": "A"])
                try realm.create("Dog", value: ["key": b, "name": "B"])
            }
            XCTAssertEqual(try realm.object(ofType: "Dog", forPrimaryKey: a)?["name"], "A", "\(type)")
            XCTAssertEqual(try realm.object(ofType: "Dog", forPrimaryKey: b)?["name"], "B", "\(type)")
            try realm.write {
                assertRealmError(
                    try realm.create("Dog", value: ["key": a, "name": "C"]), code: .primaryKeyExists,
                    containing: [
                        "Attempting to create an object of type 'Dog' with an existing primary key value '\(a)'"
                    ])
            }
            XCTAssertEqual(try realm.objects("Dog").countObjects(), 2)
        }
    }

    func testOptionalPrimaryKeyAllowsOneNil() throws {
        let schema = dogSchema([
            Property(name: "key", type: .string, isOptional: true, isPrimaryKey: true),
            Property(name: "name", type: .string),
        ])
        let realm = try Realm(configuration: config(schema))
        try realm.write { try realm.create("Dog", value: ["key": nil, "name": "nil"]) }
        XCTAssertEqual(try realm.object(ofType: "Dog", forPrimaryKey: nil)?["name"], "nil")
        try realm.write {
            assertRealmError(try realm.create("Dog", value: ["key": nil]), code: .primaryKeyExists)
        }
    }

    func testPrimaryKeyCannotChange() throws {
        let realm = try Realm(configuration: doggoConfig())
        let toy = try realm.write { try realm.create("DogToy", value: ["name": "Ball"]) }
        let id = try toy["_id"]
        try realm.write {
            assertRealmError(
                try toy.setValue(.objectId(.generate()), forKey: "_id"),
                "Primary key can't be changed after an object is inserted.")
            // Setting the same value is not a change.
            try toy.setValue(id, forKey: "_id")
        }
        XCTAssertEqual(try toy["_id"], id)
    }

    func testGeneratedPrimaryKeysAreDistinct() throws {
        let realm = try Realm(configuration: doggoConfig())
        try realm.write {
            for i in 0..<20 { try realm.create("Dog", value: ["name": .string("dog\(i)")]) }
        }
        let ids = try realm.objects("Dog").map { try $0["_id"] }
        XCTAssertEqual(Set(ids.map(\.description)).count, 20)
        XCTAssertFalse(ids.contains(.null))
    }

    func testObjectForPrimaryKeyOnAClassWithoutOne() throws {
        let realm = try Realm(configuration: doggoConfig())
        assertRealmError(
            try realm.object(ofType: "Employee", forPrimaryKey: "x"), "'Employee' does not have a primary key")
    }

    // MARK: Indexes

    func testIndexedPropertiesHaveAnIndexAndQueryTheSame() throws {
        let schema = dogSchema([
            Property(name: "id", type: .int, isPrimaryKey: true),
            Property(name: "name", type: .string, isIndexed: true),
            Property(name: "plain", type: .string),
        ])
        let realm = try Realm(configuration: config(schema))
        let indexes = try indexNames(realm, table: "class_Dog")
        XCTAssertTrue(indexes.contains("idx_Dog_name"), "\(indexes)")
        XCTAssertTrue(indexes.contains("idx_Dog_id"), "\(indexes)")
        XCTAssertFalse(indexes.contains("idx_Dog_plain"), "\(indexes)")
        try realm.write {
            for i in 0..<10 {
                try realm.create(
                    "Dog", value: ["id": .int(Int64(i)), "name": .string("n\(i % 3)"), "plain": .string("n\(i % 3)")])
            }
        }
        XCTAssertEqual(try realm.objects("Dog").filter("name == $0", "n1").countObjects(), 3)
        XCTAssertEqual(try realm.objects("Dog").filter("plain == $0", "n1").countObjects(), 3)
    }

    // MARK: Defaults

    func testDefaultsApplyOnlyWhenNoValueIsGiven() throws {
        let schema = dogSchema([
            Property(name: "name", type: .string, defaultValue: "unnamed"),
            Property(name: "age", type: .int, defaultValue: 1),
            Property(name: "nickname", type: .string, isOptional: true, defaultValue: "buddy"),
            Property(name: "plainInt", type: .int),
            Property(name: "plainString", type: .string),
            Property(name: "plainBool", type: .bool),
            Property(name: "plainDouble", type: .double),
            Property(name: "plainDate", type: .date),
            Property(name: "plainData", type: .data),
            Property(name: "plainDecimal", type: .decimal128),
            Property(name: "optional", type: .int, isOptional: true),
            Property(name: "tags", type: .string, collection: .list),
        ])
        let realm = try Realm(configuration: config(schema))
        let (a, b) = try realm.write {
            (
                try realm.create("Dog", value: [:]),
                try realm.create("Dog", value: ["name": "Rex", "age": 5, "nickname": nil])
            )
        }
        XCTAssertEqual(try a["name"], "unnamed")
        XCTAssertEqual(try a["age"], 1)
        XCTAssertEqual(try a["nickname"], "buddy")
        XCTAssertEqual(try a["plainInt"], 0)
        XCTAssertEqual(try a["plainString"], "")
        XCTAssertEqual(try a["plainBool"], false)
        XCTAssertEqual(try a["plainDouble"], .double(0))
        XCTAssertEqual(try a["plainDate"], .date(.epoch))
        XCTAssertEqual(try a["plainData"], .data(Data()))
        XCTAssertEqual(try a["plainDecimal"], .decimal128(Decimal128(Decimal(0))))
        XCTAssertEqual(try a["optional"], .null)
        XCTAssertEqual(try a["tags"], [])
        XCTAssertEqual(try b["name"], "Rex")
        XCTAssertEqual(try b["age"], 5)
        XCTAssertEqual(try b["nickname"], .null, "an explicit nil is a value, not a missing one")
        // An unmanaged object takes the defaults when added.
        let c = DynamicObject(className: "Dog", value: ["age": 9])
        try realm.write { try realm.add(c) }
        XCTAssertEqual(try c["name"], "unnamed")
        XCTAssertEqual(try c["age"], 9)
    }

    // MARK: Embedded objects and backlinks

    func testEmbeddedObjectsBelongToTheirParent() throws {
        let realm = try Realm(configuration: allTypesConfig())
        let parent = try realm.write {
            try realm.create(
                "AllTypes",
                value: [
                    "pk": 1,
                    "address": ["street": "Main", "geo": ["lat": 1.5, "lon": 2.5]],
                    "addresses": [["street": "A"], ["street": "B"]],
                    "addressMap": ["home": ["street": "H"]],
                ])
        }
        let address = try XCTUnwrap(try parent["address"].objectValue)
        XCTAssertEqual(try address["street"], "Main")
        XCTAssertEqual(try address["geo"].objectValue?["lat"], 1.5)
        XCTAssertEqual(try realm.objects("AllTypes").countObjects(), 1)
        assertRealmError(try realm.objects("Address"), code: .invalidClass, containing: ["Address"])
        try realm.write {
            assertRealmError(
                try realm.create("Address", value: ["street": "x"]), code: .invalidClass, containing: ["Address"])
        }
        XCTAssertEqual(try storedCount(realm, "class_Address"), 4)
        XCTAssertEqual(try storedCount(realm, "class_Geo"), 1)

        // Assigning a new embedded object replaces (and deletes) the old one.
        try realm.write { try parent.setValue(["street": "Second"], forKey: "address") }
        XCTAssertTrue(address.isInvalidated)
        XCTAssertEqual(try parent["address"].objectValue?["street"], "Second")
        XCTAssertEqual(try storedCount(realm, "class_Address"), 4)
        XCTAssertEqual(try storedCount(realm, "class_Geo"), 0, "the nested embedded object went with its parent")

        // Removing one from a list deletes it.
        try realm.write { try parent.dynamicList("addresses").remove(at: 0) }
        XCTAssertEqual(try storedCount(realm, "class_Address"), 3)

        // Deleting the owner cascades.
        try realm.write { try realm.delete(parent) }
        XCTAssertEqual(try storedCount(realm, "class_Address"), 0)
        XCTAssertEqual(try storedCount(realm, "class_Geo"), 0)
    }

    /// ObjectAccessorTests' embedded-link test ("Can't set link to existing managed embedded object"):
    /// a managed embedded object cannot get a second parent (issue 13: it used to be copied);
    /// `create` from a value holding it still copies it, and each parent owns its own.
    func testAssigningAManagedEmbeddedObjectRaisesAndCreateCopiesIt() throws {
        let realm = try Realm(configuration: allTypesConfig())
        let (a, b) = try realm.write {
            (
                try realm.create("AllTypes", value: ["pk": 1, "address": ["street": "Main"]]),
                try realm.create("AllTypes", value: ["pk": 2])
            )
        }
        XCTAssertThrowsError(try realm.write { try b.setValue(try a["address"], forKey: "address") }) { error in
            XCTAssertEqual("\(error)", "Can't set link to existing managed embedded object")
        }
        XCTAssertEqual(try b["address"], .null)
        let c = try realm.write { try realm.create("AllTypes", value: ["pk": 3, "address": try a["address"]]) }
        let aAddress = try XCTUnwrap(try a["address"].objectValue)
        let cAddress = try XCTUnwrap(try c["address"].objectValue)
        XCTAssertFalse(aAddress.isSameObject(as: cAddress), "each parent owns its own copy")
        try realm.write { try cAddress.setValue("Other", forKey: "street") }
        XCTAssertEqual(try aAddress["street"], "Main")
    }

    func testLinkingObjectsFollowTheLinks() throws {
        let realm = try Realm(configuration: allTypesConfig())
        let (target, a, b) = try realm.write {
            let target = try realm.create("Target", value: ["id": "t"])
            let a = try realm.create(
                "AllTypes", value: ["pk": 1, "link": .object(target), "links": [.object(target), .object(target)]])
            let b = try realm.create("AllTypes", value: ["pk": 2, "link": .object(target)])
            return (target, a, b)
        }
        let parents = try target.linkingObjects("parents")
        XCTAssertEqual(parents.count, 2)
        XCTAssertEqual(Set(try parents.map { try $0["pk"].intValue! }), [1, 2])
        XCTAssertEqual(try target.linkingObjects("listParents").count, 1)
        XCTAssertEqual(try target["parents"].listValue?.count, 2)

        try realm.write { try a.setValue(nil, forKey: "link") }
        XCTAssertEqual(parents.count, 1, "backlinks are live")
        XCTAssertTrue(try parents[0].isSameObject(as: b))
        try realm.write { try realm.delete(b) }
        XCTAssertEqual(parents.count, 0)
        try realm.write {
            assertRealmError(
                try target.setValue([], forKey: "parents"), code: .invalidProperty, containing: ["parents"])
        }
    }

    func testLinkingObjectsOfTheDoggoSchema() throws {
        let realm = try Realm(configuration: doggoConfig())
        let dog = try realm.write { () -> DynamicObject in
            let dog = try realm.create("Dog", value: ["name": "Rex"])
            try realm.create("Person", value: ["firstName": "A", "dogs": [.object(dog)]])
            try realm.create("Person", value: ["firstName": "B", "dogs": [.object(dog)]])
            return dog
        }
        XCTAssertEqual(Set(try dog.linkingObjects("owners").map { try $0["firstName"].stringValue! }), ["A", "B"])
    }

    // MARK: Helpers

    private func indexNames(_ realm: Realm, table: String) throws -> [String] {
        var names = [String]()
        try realm.connection.forEachRow(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", [.text(table)], cache: false
        ) {
            names.append($0.string(at: 0))
        }
        return names
    }

    private func columnNames(_ realm: Realm, table: String) throws -> [String] {
        var names = [String]()
        try realm.connection.forEachRow("SELECT name FROM pragma_table_info(?)", [.text(table)], cache: false) {
            names.append($0.string(at: 0))
        }
        return names
    }

    private func storedCount(_ realm: Realm, _ table: String) throws -> Int64 {
        try realm.connection.scalarInt("SELECT count(*) FROM \"\(table)\"") ?? -1
    }
}
