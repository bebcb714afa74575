import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// Set and map edits are recorded from what the row engine captured as they were made (each
/// element or key touched, as it was before the write), compared at commit with what the
/// collection holds: no mirror of their content is kept (docs/SYNC.md "Sets and maps").
final class SetAndMapEditTests: XCTestCase {
    private var folder: ClientTestFolder!
    private var client: SyncClient!

    static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "id", type: .string, isPrimaryKey: true),
                    Property(name: "scores", type: .int, collection: .set),
                    Property(name: "attrs", type: .string, collection: .map),
                    Property(name: "pals", type: .object, objectClassName: "Person", collection: .set),
                    Property(
                        name: "contacts", type: .object, objectClassName: "Person", isOptional: true, collection: .map),
                    Property(name: "bag", type: .mixed, isOptional: true, collection: .set),
                    Property(
                        name: "places", type: .object, objectClassName: "Place", isOptional: true, collection: .map),
                ], primaryKey: "id"),
            ObjectSchema(
                className: "Place",
                properties: [
                    Property(name: "city", type: .string),
                    Property(name: "annex", type: .object, objectClassName: "Place", isOptional: true),
                ], isEmbedded: true),
        ])
    }

    private var configuration: Realm.Configuration {
        Realm.Configuration(fileURL: folder.url.appendingPathComponent("a.realm"), schema: Self.schema)
    }

    override func setUpWithError() throws {
        folder = try ClientTestFolder()
        client = try SyncClient(configuration: configuration, user: "u", wallClock: ManualWallClock.clientStart())
    }

    override func tearDown() {
        client = nil
        folder = nil
    }

    private func create(_ values: [String: RealmValue]) throws {
        try client.realm.write { _ = try client.realm.create("Person", value: .dictionary(values)) }
    }

    private func person(_ id: String) throws -> DynamicObject {
        try XCTUnwrap(try client.realm.object(ofType: "Person", forPrimaryKey: .string(id)), "no person \(id)")
    }

    private func p(_ id: String) -> ObjectRef { ObjectRef("Person", .string(id)) }

    func testEditsUndoneInTheSameWriteSendNothing() throws {
        try create(["id": "a", "scores": [1, 2], "attrs": ["k": "v"]])
        let before = try client.storedHistory().count
        try client.realm.write {
            let a = try person("a")
            try a.dynamicMutableSet("scores").insert(.int(3))
            try a.dynamicMutableSet("scores").remove(.int(3))
            try a.dynamicMutableSet("scores").remove(.int(1))
            try a.dynamicMutableSet("scores").insert(.int(1))
            try a.dynamicMap("attrs").setValue(.string("other"), forKey: "k")
            try a.dynamicMap("attrs").setValue(.string("v"), forKey: "k")
            try a.dynamicMap("attrs").setValue(.string("new"), forKey: "n")
            try a.dynamicMap("attrs").removeValue(forKey: "n")
        }
        let recorded = try client.lastInstructions()
        XCTAssertEqual(try client.storedHistory().count, before, "\(recorded)")
    }

    func testReplacingAWholeSetOrMapSendsOnlyWhatChanged() throws {
        try create(["id": "a", "scores": [1, 2], "attrs": ["k": "v", "j": "w"]])
        try client.realm.write {
            let a = try person("a")
            try a.setValue([2, 3], forKey: "scores")
            try a.setValue(["k": "v", "l": "x"], forKey: "attrs")
        }
        XCTAssertEqual(
            try client.lastInstructions(),
            [
                .mapRemove(p("a"), field: "attrs", key: "j"),
                .mapPut(p("a"), field: "attrs", key: "l", value: .string("x")),
                .setRemove(p("a"), field: "scores", value: .int(1)), .setAdd(p("a"), field: "scores", value: .int(3)),
            ])
        try client.realm.write {
            try person("a").dynamicMutableSet("scores").removeAll()
            try person("a").dynamicMap("attrs").removeAll()
        }
        XCTAssertEqual(
            try client.lastInstructions(),
            [
                .mapRemove(p("a"), field: "attrs", key: "k"), .mapRemove(p("a"), field: "attrs", key: "l"),
                .setRemove(p("a"), field: "scores", value: .int(2)),
                .setRemove(p("a"), field: "scores", value: .int(3)),
            ])
    }

    /// A deletion removes its object from sets (of links and of mixed values) and nulls it in maps;
    /// the removed link names the deleted object by its primary key (its row is gone at commit).
    func testDeletingALinkedObjectRemovesItFromSetsAndNullsItInMaps() throws {
        try create(["id": "b"])
        try client.realm.write {
            let b = try person("b")
            _ = try client.realm.create(
                "Person",
                value: ["id": "a", "pals": [.object(b)], "contacts": ["x": .object(b)], "bag": [.object(b), 7]])
        }
        try client.realm.write { try client.realm.delete(try person("b")) }
        XCTAssertEqual(
            try client.lastInstructions(),
            [
                .erase(p("b")),
                .setRemove(p("a"), field: "bag", value: .link(p("b"))),
                .mapPut(p("a"), field: "contacts", key: "x", value: .null),
                .setRemove(p("a"), field: "pals", value: .link(p("b"))),
            ])
    }

    /// A write inside an embedded object a map holds (or one below it) puts the entry whole.
    func testAWriteInsideAnEmbeddedMapValuePutsTheEntryWhole() throws {
        try create([
            "id": "a", "places": ["home": ["city": "Oslo", "annex": ["city": "Lier"]], "work": ["city": "Rome"]],
        ])
        func place(_ city: String, annex: String?) -> SyncValue {
            .embedded([
                SyncField(
                    "annex",
                    annex.map { .embedded([SyncField("annex", .null), SyncField("city", .string($0))]) } ?? .null),
                SyncField("city", .string(city)),
            ])
        }
        try client.realm.write {
            guard case .object(let home)? = try person("a").dynamicMap("places").value(forKey: "home") else {
                return XCTFail("no home")
            }
            try home.setValue(.string("Bergen"), forKey: "city")
        }
        XCTAssertEqual(
            try client.lastInstructions(),
            [.mapPut(p("a"), field: "places", key: "home", value: place("Bergen", annex: "Lier"))])
        try client.realm.write {
            guard case .object(let home)? = try person("a").dynamicMap("places").value(forKey: "home"),
                case .object(let annex) = try home.value(forKey: "annex")
            else { return XCTFail("no annex") }
            try annex.setValue(.string("Asker"), forKey: "city")
        }
        XCTAssertEqual(
            try client.lastInstructions(),
            [.mapPut(p("a"), field: "places", key: "home", value: place("Bergen", annex: "Asker"))])
    }

    /// A step that fails (a whole set with a value of the wrong type) leaves none of its edits.
    func testAFailedStepLeavesNoEdits() throws {
        try create(["id": "a", "scores": [1]])
        try client.realm.write {
            let a = try person("a")
            XCTAssertThrowsError(try a.setValue([4, "not a number"], forKey: "scores"))
            try a.dynamicMutableSet("scores").insert(.int(5))
        }
        XCTAssertEqual(try client.lastInstructions(), [.setAdd(p("a"), field: "scores", value: .int(5))])
        XCTAssertEqual(try person("a").dynamicMutableSet("scores").values(), [1, 5])
    }

    /// A file from before edits were captured keeps a mirror of its sets and maps: it is dropped
    /// when the client opens the file, and the next edits are recorded as usual.
    func testTheOldMirrorOfSetsAndMapsIsDroppedAtOpen() throws {
        try create(["id": "a", "scores": [1]])
        try client.realm.write {
            try client.realm.executeSQL(
                "CREATE TABLE _sync_collection (tbl TEXT NOT NULL, owner INTEGER NOT NULL, content BLOB NOT NULL, "
                    + "PRIMARY KEY (tbl, owner)) WITHOUT ROWID")
            try client.realm.executeSQL("INSERT INTO _sync_collection VALUES ('x', 1, x'00')")
        }
        client = nil
        client = try SyncClient(configuration: configuration, user: "u", wallClock: ManualWallClock.clientStart())
        XCTAssertEqual(
            try client.realm.querySQL("SELECT count(*) FROM sqlite_master WHERE name = '_sync_collection'"),
            [[.integer(0)]])
        try client.realm.write { try person("a").dynamicMutableSet("scores").insert(.int(2)) }
        XCTAssertEqual(try client.lastInstructions(), [.setAdd(p("a"), field: "scores", value: .int(2))])
    }
}
