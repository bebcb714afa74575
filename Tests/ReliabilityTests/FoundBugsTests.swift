import Foundation
import RealmDatabase
import RealmHost
import RealmLua
import XCTest

/// Regression tests for the bugs the reliability work found, at the level of the module that had
/// them (each is also covered end to end by the crash, hostile-script, isolation, fuzz or load tests).
final class FoundBugsTests: ReliabilityTestCase {
    /// Found by `realm-fuzz schema-lua`: schemas whose derived storage names collide passed
    /// validation, and creating the file then failed with an SQLite error.
    func testSchemasWhoseStorageNamesCollideAreRefused() throws {
        let colliding: [(String, Schema)] = [
            (
                "type column",
                Schema([
                    ObjectSchema(
                        className: "C",
                        properties: [Property(name: "x", type: .mixed), Property(name: "x__t", type: .int)])
                ])
            ),
            (
                "column case",
                Schema([
                    ObjectSchema(
                        className: "C",
                        properties: [Property(name: "name", type: .string), Property(name: "Name", type: .string)])
                ])
            ),
            (
                "table case",
                Schema([ObjectSchema(className: "Dog", properties: []), ObjectSchema(className: "dog", properties: [])])
            ),
            (
                "list tables",
                Schema([
                    ObjectSchema(className: "A", properties: [Property(name: "b_c", type: .int, collection: .list)]),
                    ObjectSchema(className: "A_b", properties: [Property(name: "c", type: .int, collection: .list)]),
                ])
            ),
            (
                "indexes",
                Schema([
                    ObjectSchema(className: "A", properties: [Property(name: "b_c", type: .int, isIndexed: true)]),
                    ObjectSchema(className: "A_b", properties: [Property(name: "c", type: .int, isIndexed: true)]),
                ])
            ),
        ]
        for (what, schema) in colliding {
            XCTAssertThrowsError(try schema.validate(), what) { error in
                XCTAssertEqual((error as? RealmError)?.code, .schemaValidation, "\(what): \(error)")
            }
            XCTAssertThrowsError(
                try Realm(
                    configuration: Realm.Configuration(
                        fileURL: folder.appendingPathComponent("\(what).realm"), schema: schema)), what)
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(what).realm").path),
                "\(what): a refused schema left a file")
        }
        // Near misses are fine.
        let fine = Schema([
            ObjectSchema(
                className: "A",
                properties: [
                    Property(name: "x", type: .mixed), Property(name: "x_t", type: .int),
                    Property(name: "b", type: .int, collection: .list),
                ]),
            ObjectSchema(
                className: "B",
                properties: [
                    Property(name: "b", type: .int, collection: .list),
                    Property(name: "a", type: .object, objectClassName: "A", collection: .list),
                ]),
        ])
        XCTAssertNoThrow(try fine.validate())
        let realm = try Realm(
            configuration: Realm.Configuration(fileURL: folder.appendingPathComponent("fine.realm"), schema: fine))
        try realm.write { _ = try realm.create("A", value: ["x": 1, "x_t": 2, "b": [1, 2]]) }
        XCTAssertEqual(try realm.objects("A").countObjects(), 1)
    }

    /// Found by `realm-fuzz schema-lua` (a SIGSEGV): a link property with a default value made
    /// every new object create a linked object, without end for a class linking to itself.
    func testALinkCannotHaveADefaultValue() throws {
        var link = Property(name: "next", type: .object, objectClassName: "Loop")
        link.defaultValue = .dictionary([:])
        let schema = Schema([ObjectSchema(className: "Loop", properties: [link])])
        XCTAssertThrowsError(try schema.validate()) {
            XCTAssertTrue("\($0)".contains("a link cannot have a default value"), "\($0)")
        }
        // From Lua, as the fuzzer found it: an error, not a crash of the host.
        let runtime = try RealmLuaRuntime(
            userName: "u", folder: folder,
            defaultConfiguration: Realm.Configuration(fileURL: folder.appendingPathComponent("u.realm")))
        XCTAssertThrowsError(
            try runtime.execute(
                """
                local r = Realm(Realm.Configuration{ inMemoryIdentifier = "loop", schema = {
                  { name = "Loop", properties = { next = { type = "Loop", default = {} } } } } })
                r:create("Loop", {})
                """, chunkName: "=loop")
        ) { XCTAssertTrue("\($0)".contains("a link cannot have a default value"), "\($0)") }
    }

    /// Found by HostileScriptTests: `realm:delete(results)` deleted objects of *this* realm with
    /// the keys of results from another file or a frozen version.
    func testDeletingResultsOfAnotherRealmIsRefused() throws {
        let schema = Schema([ObjectSchema(className: "Note", properties: [Property(name: "n", type: .int)])])
        let a = try Realm(
            configuration: Realm.Configuration(fileURL: folder.appendingPathComponent("a.realm"), schema: schema))
        let b = try Realm(
            configuration: Realm.Configuration(fileURL: folder.appendingPathComponent("b.realm"), schema: schema))
        try a.write { for i in 1...3 { _ = try a.create("Note", value: ["n": .int(Int64(i))]) } }
        try b.write { for i in 1...3 { _ = try b.create("Note", value: ["n": .int(Int64(i))]) } }
        let frozen = try a.freeze()
        XCTAssertThrowsError(try a.write { try a.delete(try b.objects("Note")) })
        XCTAssertThrowsError(try a.write { try a.delete(try frozen.objects("Note")) })
        XCTAssertEqual(try a.objects("Note").countObjects(), 3)
        XCTAssertEqual(try b.objects("Note").countObjects(), 3)
        // Live results of the same file, from this or another instance, still work.
        let a2 = try Realm(
            configuration: Realm.Configuration(fileURL: folder.appendingPathComponent("a.realm"), schema: schema))
        try a.write { try a.delete(try a2.objects("Note").filter("n == 1")) }
        XCTAssertEqual(try a.objects("Note").countObjects(), 2)
    }

    /// Found by LoadTests: every RealmLuaRuntime was kept alive by a reference cycle (a closure
    /// of the subscription bindings), with its Lua state and every realm it had open.
    func testALuaRuntimeIsFreedWithItsRealms() throws {
        weak var weakRuntime: RealmLuaRuntime?
        weak var weakRealm: Realm?
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: folder.appendingPathComponent("r.realm")))
            let runtime = try RealmLuaRuntime(userName: "r", folder: folder, defaultConfiguration: realm.configuration)
            try runtime.bind(realm)
            _ = try runtime.execute("local s = realm.subscriptions; return #s", chunkName: "=t")
            weakRuntime = runtime
            weakRealm = realm
        }
        XCTAssertNil(weakRuntime)
        XCTAssertNil(weakRealm)
    }
}
