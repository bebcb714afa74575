import Foundation
import XCTest

@testable import RealmDatabase

/// The finer points of migrations where Realm's own tests pin the behaviour down.
final class MigrationSemanticsTests: RealmTestCase {
    private func config(_ schema: Schema, version: UInt64, block: MigrationBlock? = nil) -> Realm.Configuration {
        var config = Realm.Configuration(fileURL: fileURL("semantics"))
        config.schema = schema
        config.schemaVersion = version
        config.migrationBlock = block
        return config
    }

    private static func objectSchema(_ properties: [Property]) -> Schema {
        Schema([ObjectSchema(className: "Obj", properties: properties)])
    }

    private func seedObj(_ properties: [Property], _ values: [RealmValue]) throws {
        let realm = try Realm(configuration: config(Self.objectSchema(properties), version: 1))
        try realm.write { for value in values { try realm.create("Obj", value: value) } }
    }

    // MARK: Rename chains

    /// realm-core migrations.cpp "chained rename" (`value → a → b → new` keeps the value).
    func testRenameChainKeepsTheValues() throws {
        try seedObj([Property(name: "value", type: .int)], [["value": 10]])
        let realm = try Realm(
            configuration: config(Self.objectSchema([Property(name: "new", type: .int)]), version: 2) { m, _ in
                try m.renameProperty(onType: "Obj", from: "value", to: "a")
                try m.renameProperty(onType: "Obj", from: "a", to: "b")
                try m.renameProperty(onType: "Obj", from: "b", to: "new")
                // A name left behind by the chain is no longer the property's.
                assertRealmError(
                    try m.renameProperty(onType: "Obj", from: "a", to: "new"),
                    "Cannot rename property 'Obj.a' because it does not exist.")
            })
        XCTAssertEqual(try realm.objects("Obj").first?["new"], 10)
        XCTAssertNil(realm.schema["Obj"]?["a"])
        XCTAssertNil(realm.schema["Obj"]?["b"])
    }

    /// realm-core migrations.cpp "property does not exist in new schema": a rename to a name the new
    /// schema lacks that no later rename finishes fails the migration, and the file is left as it was.
    func testRenameChainLeftUnfinishedFailsTheMigration() throws {
        try seedObj([Property(name: "value", type: .int)], [["value": 10]])
        assertRealmError(
            try Realm(
                configuration: config(Self.objectSchema([Property(name: "new", type: .int)]), version: 2) { m, _ in
                    try m.renameProperty(onType: "Obj", from: "value", to: "nonexistent")
                }), "Renamed property 'Obj.nonexistent' does not exist.")
        let old = try Realm(configuration: config(Self.objectSchema([Property(name: "value", type: .int)]), version: 1))
        XCTAssertEqual(try old.objects("Obj").first?["value"], 10)
    }

    // MARK: Optional to required

    /// realm-core migrations.cpp "values for nullable properties are discarded when converting to
    /// required", for a list too (its column is dropped and re-added: the list is empty afterwards).
    func testOptionalMadeRequiredDropsListValuesToo() throws {
        try seedObj(
            [Property(name: "ints", type: .int, isOptional: true, collection: .list)], [["ints": [1, .null, 3]]])
        let realm = try Realm(
            configuration: config(
                Self.objectSchema([Property(name: "ints", type: .int, collection: .list)]), version: 2))
        XCTAssertEqual(try realm.objects("Obj").first?["ints"], [])
    }

    // MARK: Embedded conversion

    private static func parentChild(embedded: Bool) -> Schema {
        Schema([
            ObjectSchema(className: "Child", properties: [Property(name: "intCol", type: .int)], isEmbedded: embedded),
            ObjectSchema(
                className: "Parent",
                properties: [
                    Property(name: "pk", type: .int, isPrimaryKey: true),
                    Property(name: "object", type: .object, objectClassName: "Child", isOptional: true),
                ], primaryKey: "pk"),
        ])
    }

    /// Realm `testChangeToEmbeddedWithMultipleBacklinksHandledAutomatically`, and realm-core's
    /// `Table::set_embedded`: a shared child is copied per parent, an orphan is deleted.
    func testConvertingToEmbeddedCopiesSharedObjectsAndDeletesOrphans() throws {
        let v1 = try Realm(configuration: config(Self.parentChild(embedded: false), version: 1))
        try v1.write {
            let child = try v1.create("Child", value: ["intCol": 42])
            try v1.create("Parent", value: ["pk": 1, "object": .object(child)])
            try v1.create("Parent", value: ["pk": 2, "object": .object(child)])
            try v1.create("Child", value: ["intCol": 99])
        }
        let realm = try Realm(configuration: config(Self.parentChild(embedded: true), version: 2))
        let first = try XCTUnwrap(try realm.object(ofType: "Parent", forPrimaryKey: 1)?["object"].objectValue)
        let second = try XCTUnwrap(try realm.object(ofType: "Parent", forPrimaryKey: 2)?["object"].objectValue)
        XCTAssertEqual(try first["intCol"], 42)
        XCTAssertEqual(try second["intCol"], 42)
        XCTAssertNotEqual(first.objectKey, second.objectKey, "each parent owns its own child")
        XCTAssertEqual(try realm.connection.scalarInt("SELECT count(*) FROM \"class_Child\""), 2, "the orphan is gone")
    }

    /// realm-core `Table::set_embedded`: a mixed value linking to an object of the class refuses the
    /// conversion (a mixed value cannot hold an embedded object); the file is left as it was.
    func testConvertingToEmbeddedRefusesALinkFromAMixedValue() throws {
        func schema(embedded: Bool) -> Schema {
            var s = Self.parentChild(embedded: embedded)
            s.objectSchemas[1].properties.append(Property(name: "any", type: .mixed))
            return s
        }
        let v1 = try Realm(configuration: config(schema(embedded: false), version: 1))
        try v1.write {
            let child = try v1.create("Child", value: ["intCol": 1])
            try v1.create("Parent", value: ["pk": 1, "object": .object(child), "any": .object(child)])
        }
        assertRealmError(
            try Realm(configuration: config(schema(embedded: true), version: 2)),
            "Cannot convert 'Child' to embedded: there is an incoming link from the Mixed property 'Parent.any', "
                + "which does not support linking to embedded objects.")
        XCTAssertEqual(try Realm.storedSchemaVersion(at: fileURL("semantics")), 1)
    }
}
