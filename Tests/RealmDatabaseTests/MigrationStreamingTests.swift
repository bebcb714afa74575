import Foundation
import XCTest

@testable import RealmDatabase

/// The streaming enumeration of a migration (issue 14): old values read in place from the
/// enumerating statement, objects reused when the block does not keep them, plain columns written
/// through one prepared UPDATE. Each test follows Realm's migration behaviour as RealmSwift's
/// MigrationTests check it (`testEnumerate`, `testDeleteObject…`, `testRenamePropertyInEnumerate`-like
/// cases): what the block sees and keeps must not depend on how the rows are walked.
final class MigrationStreamingTests: RealmTestCase {
    private static let count = 2_500

    private static func schema(extra: Bool) -> Schema {
        var properties = [Property(name: "name", type: .string), Property(name: "age", type: .int)]
        if extra { properties.append(Property(name: "treat", type: .string)) }
        return Schema([ObjectSchema(className: "Dog", properties: properties)])
    }

    private func config(version: UInt64, block: MigrationBlock? = nil) -> Realm.Configuration {
        var c = Realm.Configuration(fileURL: fileURL("stream"))
        c.schema = Self.schema(extra: version > 0)
        c.schemaVersion = version
        c.migrationBlock = block
        return c
    }

    private func seed() throws {
        let realm = try Realm(configuration: config(version: 0))
        try realm.write {
            for i in 0..<Self.count {
                try realm.create("Dog", value: ["name": .string("dog \(i)"), "age": .int(Int64(i))])
            }
        }
    }

    /// RealmSwift's testEnumerate…: objects the block keeps still denote their own row after the
    /// walk moved on (no reuse of a kept object), with the values written to them.
    func testKeptObjectsStayTheirOwnRow() throws {
        try seed()
        var keptOld = [DynamicObject]()
        var keptNew = [DynamicObject]()
        var keptAges = [(key: Int64, age: RealmValue)]()
        let realm = try Realm(
            configuration: config(version: 1) { migration, _ in
                try migration.enumerateObjects(ofType: "Dog") { old, new in
                    let (old, new) = (try XCTUnwrap(old), try XCTUnwrap(new))
                    let age = try old["age"]
                    try new.setValue(.string("bone \(age)"), forKey: "treat")
                    // Kept every 7th: the others may be reused for the next row.
                    if case .int(let n) = age, n % 7 == 0 {
                        keptOld.append(old)
                        keptNew.append(new)
                        keptAges.append((try XCTUnwrap(old.objectKey), age))
                    }
                }
                for ((old, new), kept) in zip(zip(keptOld, keptNew), keptAges) {
                    XCTAssertEqual(old.objectKey, kept.key)
                    XCTAssertEqual(new.objectKey, kept.key)
                    let age = try old["age"]
                    XCTAssertEqual(age, kept.age)
                    XCTAssertEqual(try old["name"], .string("dog \(age)"))
                    XCTAssertEqual(try new["treat"], .string("bone \(age)"))
                }
            })
        XCTAssertEqual(keptOld.count, (Self.count + 6) / 7)
        XCTAssertEqual(try realm.objects("Dog").filter("treat BEGINSWITH 'bone '").countObjects(), Self.count)
    }

    /// RealmSwift's testEnumerate… set-then-read: a write to `new` is visible to the next read of
    /// `new` in the same callback; a read of `old` before the write sees the stored value. After
    /// the write, `old` reads the new value of a property both schemas keep in one column: this
    /// implementation's behaviour before issue 14 (Realm's old object is a snapshot), pinned here
    /// so that reading `old` in place from the statement does not change it.
    func testWritesAreVisibleInTheSameCallback() throws {
        try seed()
        _ = try Realm(
            configuration: config(version: 1) { migration, _ in
                try migration.enumerateObjects(ofType: "Dog") { old, new in
                    let (old, new) = (try XCTUnwrap(old), try XCTUnwrap(new))
                    let before = try old["name"]
                    try new.setValue(.string("renamed"), forKey: "name")
                    try new.setValue(.string("t"), forKey: "treat")
                    XCTAssertEqual(try new["name"], .string("renamed"))
                    XCTAssertEqual(try new["treat"], .string("t"))
                    XCTAssertEqual(try old["name"], .string("renamed"))
                    XCTAssertNotEqual(before, .string("renamed"))
                }
            })
    }

    /// RealmSwift's testDeleteObjects in a migration: deleting the current object and one ahead
    /// during the walk; the walk visits every other object once, and a set on a deleted object
    /// fails as on any invalidated object.
    func testDeletingDuringTheWalk() throws {
        try seed()
        var visited = [Int64]()
        let realm = try Realm(
            configuration: config(version: 1) { migration, _ in
                try migration.enumerateObjects(ofType: "Dog") { _, new in
                    let new = try XCTUnwrap(new)
                    visited.append(try XCTUnwrap(new.objectKey))
                    if visited.count == 10 {
                        try migration.delete(new)
                        XCTAssertThrowsError(try new.setValue("x", forKey: "treat"))
                    }
                    if visited.count == 11 {
                        // Object 20 (a key ahead of the walk) is found again and deleted.
                        let ahead = DynamicObject(
                            realm: migration.realm, info: try migration.realm.classInfo("Dog"), key: 20)
                        try migration.delete(ahead)
                    }
                }
            })
        XCTAssertEqual(visited.count, Self.count - 1)
        XCTAssertFalse(visited.contains(20))
        XCTAssertEqual(Set(visited).count, visited.count)
        XCTAssertEqual(try realm.objects("Dog").countObjects(), Self.count - 2)
    }

    /// A rename in the middle of the walk (a schema change, which cannot run under a reading
    /// statement): the walk goes on after the last object visited, and `old` reads the renamed
    /// column's old values.
    func testRenameDuringTheWalk() throws {
        try seed()
        var schema = Self.schema(extra: true)
        schema.objectSchemas[0].properties[0] = Property(name: "title", type: .string)
        var c = config(version: 1)
        c.schema = schema
        var visited = 0
        c.migrationBlock = { migration, _ in
            try migration.enumerateObjects(ofType: "Dog") { old, new in
                visited += 1
                if visited == 1500 { try migration.renameProperty(onType: "Dog", from: "name", to: "title") }
                let (old, new) = (try XCTUnwrap(old), try XCTUnwrap(new))
                let age = try old["age"]
                XCTAssertEqual(try old["name"], .string("dog \(age)"))
                try new.setValue(.string("t"), forKey: "treat")
            }
        }
        let realm = try Realm(configuration: c)
        XCTAssertEqual(visited, Self.count)
        XCTAssertEqual(try realm.objects("Dog").filter("title == 'dog 2499' AND treat == 't'").countObjects(), 1)
    }
}
