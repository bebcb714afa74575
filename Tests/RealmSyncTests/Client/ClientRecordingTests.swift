import Foundation
import RealmDatabase
import RealmTestSupport
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

final class ClientRecordingTests: XCTestCase {
    private var folder: ClientTestFolder!
    private var client: SyncClient!

    override func setUpWithError() throws {
        folder = try ClientTestFolder()
        client = try SyncClient(
            configuration: folder.configuration("a"), user: "u", wallClock: ManualWallClock.clientStart())
    }

    override func tearDown() {
        client = nil
        folder = nil
    }

    private func addPerson(_ id: String, name: String = "n") throws {
        try client.realm.write {
            _ = try client.realm.create("Person", value: ["id": .string(id), "name": .string(name)])
        }
    }

    func testACommitRecordsExactlyOneChangesetWithTheNextVersion() throws {
        try addPerson("a")
        try client.realm.write { try client.person("a").setValue(.int(3), forKey: "age") }
        let history = try client.storedHistory()
        XCTAssertEqual(history.map(\.clientVersion), [1, 2])
        XCTAssertLessThan(history[0].clock, history[1].clock)
        XCTAssertEqual(history[1].instructions, [.set(ref("a"), path: ["age"], value: .int(3))])
    }

    /// Seed 1 of the simulation: removing the element with the largest row id and inserting into
    /// another object's list in one commit reuses the row id; the removal must still be recorded.
    func testARemovalIsRecordedWhenAnotherListReusesItsRowID() throws {
        try addPerson("a")
        try addPerson("b")
        try client.realm.write { try client.person("b").dynamicList("tags").append("old") }
        // The list of "a" (the smaller object key, diffed first) takes the row id "b" frees.
        try client.realm.write {
            try client.person("b").dynamicList("tags").remove(at: 0)
            try client.person("a").dynamicList("tags").append("new")
        }
        let recorded = try client.lastInstructions()
        XCTAssertTrue(recorded.contains(.listClear(ref("b"), field: "tags")), "\(recorded)")
        try client.realm.write { try client.person("a").dynamicList("tags").remove(at: 0) }
        XCTAssertEqual(try client.lastInstructions(), [.listClear(ref("a"), field: "tags")])
    }

    func testAnotherInstanceOfTheSyncedConfigurationRecordsToo() throws {
        let other = try Realm(configuration: client.realm.configuration)
        try other.write { _ = try other.create("Person", value: ["id": "o"]) }
        try addPerson("a")
        let history = try client.storedHistory()
        XCTAssertEqual(history.map(\.clientVersion), [1, 2])
        XCTAssertEqual(history.first?.instructions.map(\.object), [ref("o")])
    }

    func testASyncedRealmRefusesMigrationsAndClassesWithoutKeys() throws {
        var configuration = folder.configuration("m")
        configuration.migrationBlock = { _, _ in }
        XCTAssertThrowsError(
            try SyncClient(configuration: configuration, user: "u", wallClock: ManualWallClock.clientStart())
        ) {
            XCTAssertEqual(($0 as? SyncError)?.code, .invalidSchemaChange)
        }
        XCTAssertThrowsError(
            try SyncClient(
                configuration: folder.configuration("n"), user: "u", wallClock: ManualWallClock.clientStart(),
                classes: ["Note"])
        ) { XCTAssertTrue("\($0)".contains("'Note'"), "\($0)") }
    }

    func testACommitOfOnlyLocalClassesRecordsNothing() throws {
        try client.realm.write { _ = try client.realm.create("Note", value: ["text": "x"]) }
        XCTAssertEqual(try client.storedHistory(), [])
    }

    func testACancelledWriteRecordsNothing() throws {
        try client.realm.beginWrite()
        _ = try client.realm.create("Person", value: ["id": "a"])
        client.realm.cancelWrite()
        XCTAssertEqual(try client.storedHistory(), [])
        XCTAssertFalse(client.hasUnacknowledgedChanges)
    }

    func testAFailingRecorderRollsTheCommitBackAndReportsItsError() throws {
        final class Refusing: CommitRecorder {
            struct Refused: Error {}
            func willCommit(_ realm: Realm, changes: ChangeSet) throws {
                if changes.classes["Note"] != nil { throw Refused() }
            }
        }
        var configuration = folder.configuration("plain")
        configuration.commitRecorder = Refusing()
        let realm = try Realm(configuration: configuration)
        XCTAssertThrowsError(try realm.write { _ = try realm.create("Note", value: ["text": "x"]) }) { error in
            XCTAssertTrue("\(error)".contains("Refused"), "\(error)")
        }
        XCTAssertEqual(try realm.objects("Note").countObjects(), 0)
        XCTAssertFalse(realm.isInWriteTransaction)
    }

    func testALocalRealmHasNoSyncTables() throws {
        let realm = try Realm(configuration: folder.configuration("local"))
        try realm.write { _ = try realm.create("Person", value: ["id": "a"]) }
        let tables = try realm.querySQL("SELECT name FROM sqlite_master WHERE name LIKE '\\_sync\\_%' ESCAPE '\\'")
        XCTAssertEqual(tables.count, 0)
        XCTAssertNil(realm.configuration.commitRecorder)
    }

    func testCreateCarriesTheFieldsThenTheCollections() throws {
        try client.realm.write {
            _ = try client.realm.create(
                "Person",
                value: [
                    "id": "a", "name": "Ann", "age": 5, "tags": ["x"], "scores": [1], "attrs": ["k": "v"],
                    "address": ["city": "Oslo", "zip": "1"],
                ])
        }
        let a = ref("a")
        let instructions = try client.lastInstructions()
        guard case .create(a, let fields)? = instructions.first else { return XCTFail("\(instructions)") }
        XCTAssertEqual(fields.map(\.name), ["address", "age", "friend", "id", "name"])
        XCTAssertEqual(
            fields.first?.value, .embedded([SyncField("city", .string("Oslo")), SyncField("zip", .string("1"))]))
        XCTAssertEqual(instructions.count, 4)
        guard case .listInsert(a, "tags", let e, .first, .string("x")) = instructions[1] else {
            return XCTFail("\(instructions[1])")
        }
        XCTAssertEqual(e.clientFileID, 0)
        XCTAssertEqual(instructions[2], .setAdd(a, field: "scores", value: .int(1)))
        XCTAssertEqual(instructions[3], .mapPut(a, field: "attrs", key: "k", value: .string("v")))
    }

    func testUpdateOfAFieldAndALinkAreSets() throws {
        try addPerson("a")
        try addPerson("b")
        try client.realm.write {
            try client.person("a").setValue(.string("Al"), forKey: "name")
            try client.person("a").setValue(.object(try client.person("b")), forKey: "friend")
        }
        XCTAssertEqual(
            try client.lastInstructions(),
            [
                .set(ref("a"), path: ["friend"], value: .link(ref("b"))),
                .set(ref("a"), path: ["name"], value: .string("Al")),
            ])
    }

    func testDeleteIsAnEraseByPrimaryKey() throws {
        try addPerson("a")
        try client.realm.write { try client.realm.delete(try client.person("a")) }
        XCTAssertEqual(try client.lastInstructions(), [.erase(ref("a"))])
    }

    func testCreatesOfSeveralRunsOfKeysComeInKeyOrderWithoutTheObjectsDeletedInTheSameWrite() throws {
        try client.realm.write {
            for id in ["p", "q", "r", "s"] { _ = try client.realm.create("Person", value: ["id": .string(id)]) }
            try client.realm.delete(try client.person("q"))
        }
        XCTAssertEqual(try client.lastInstructions().map(\.object), [ref("p"), ref("r"), ref("s")])
    }

    func testDeleteAllErasesEverySyncedObjectByPrimaryKey() throws {
        for id in ["a", "b"] { try addPerson(id) }
        try client.realm.write { try client.realm.deleteAll() }
        XCTAssertEqual(try client.lastInstructions(), [.erase(ref("a")), .erase(ref("b"))])
    }

    func testDeletingEveryObjectOfAQueryErasesEachByPrimaryKey() throws {
        for id in ["a", "b", "c"] { try addPerson(id) }
        try client.realm.write { try client.realm.delete(client.realm.objects("Person")) }
        XCTAssertEqual(try client.lastInstructions(), [.erase(ref("a")), .erase(ref("b")), .erase(ref("c"))])
    }

    func testListEditsBecomeListInstructions() throws {
        try client.realm.write { _ = try client.realm.create("Person", value: ["id": "a", "tags": ["p", "q", "r"]]) }
        let ids = try client.lastInstructions().compactMap { i -> ElementID? in
            if case .listInsert(_, _, let e, _, _) = i { return e } else { return nil }
        }
        XCTAssertEqual(ids.count, 3)
        let a = ref("a")
        let tags = try client.person("a").dynamicList("tags")

        try client.realm.write { try tags.remove(at: 1) }
        XCTAssertEqual(try client.lastInstructions(), [.listErase(a, field: "tags", element: ids[1])])

        try client.realm.write { try tags.move(from: 1, to: 0) }
        guard case .listMove(a, "tags", ids[2], let moved)? = try client.lastInstructions().first,
            try client.lastInstructions().count == 1
        else { return XCTFail("\(try client.lastInstructions())") }
        XCTAssertLessThan(moved, .first)

        try client.realm.write { try tags.set(.string("z"), at: 1) }
        XCTAssertEqual(
            try client.lastInstructions(), [.listSet(a, field: "tags", element: ids[0], value: .string("z"))])

        try client.realm.write { try tags.insert(.string("m"), at: 1) }
        guard case .listInsert(a, "tags", _, let position, .string("m"))? = try client.lastInstructions().first else {
            return XCTFail("\(try client.lastInstructions())")
        }
        XCTAssertTrue(moved < position && position < .first, "\(moved) < \(position) < first")

        try client.realm.write { try tags.removeAll() }
        XCTAssertEqual(try client.lastInstructions(), [.listClear(a, field: "tags")])
    }

    func testSetAndMapEditsBecomeAddsRemovesPutsAndRemoves() throws {
        try client.realm.write {
            _ = try client.realm.create(
                "Person", value: ["id": "a", "scores": [1, 2], "attrs": ["k": "v", "j": "w"]])
        }
        let a = ref("a")
        try client.realm.write {
            let person = try client.person("a")
            try person.dynamicMutableSet("scores").remove(.int(1))
            try person.dynamicMutableSet("scores").insert(.int(3))
            try person.dynamicMap("attrs").removeValue(forKey: "j")
            try person.dynamicMap("attrs").setValue(.string("v2"), forKey: "k")
        }
        XCTAssertEqual(
            Set(try client.lastInstructions()),
            [
                .setRemove(a, field: "scores", value: .int(1)), .setAdd(a, field: "scores", value: .int(3)),
                .mapRemove(a, field: "attrs", key: "j"), .mapPut(a, field: "attrs", key: "k", value: .string("v2")),
            ])
    }

    func testAWriteInsideAnEmbeddedObjectIsASetWithItsPath() throws {
        try client.realm.write {
            _ = try client.realm.create("Person", value: ["id": "a", "address": ["city": "Oslo", "zip": "1"]])
        }
        try client.realm.write {
            guard case .object(let address) = try client.person("a").value(forKey: "address") else {
                return XCTFail("no address")
            }
            try address.setValue(.string("Bergen"), forKey: "city")
        }
        XCTAssertEqual(
            try client.lastInstructions(), [.set(ref("a"), path: ["address", "city"], value: .string("Bergen"))])
    }

    func testReplacingAnEmbeddedObjectSetsItWhole() throws {
        try client.realm.write {
            _ = try client.realm.create("Person", value: ["id": "a", "address": ["city": "Oslo", "zip": "1"]])
        }
        try client.realm.write {
            try client.person("a").setValue(["city": "Rome", "zip": "2"], forKey: "address")
        }
        XCTAssertEqual(
            try client.lastInstructions(),
            [
                .set(
                    ref("a"), path: ["address"],
                    value: .embedded([SyncField("city", .string("Rome")), SyncField("zip", .string("2"))]))
            ])
    }

    func testAWriteInsideAnEmbeddedListElementIsASetThroughTheElement() throws {
        try client.realm.write {
            _ = try client.realm.create("Person", value: ["id": "a", "addresses": [["city": "Oslo", "zip": "1"]]])
        }
        guard case .listInsert(_, "addresses", let e, _, _)? = try client.lastInstructions().last else {
            return XCTFail("\(try client.lastInstructions())")
        }
        try client.realm.write {
            guard case .object(let address) = try client.person("a").dynamicList("addresses")[0] else {
                return XCTFail("no address")
            }
            try address.setValue(.string("Bergen"), forKey: "city")
        }
        XCTAssertEqual(
            try client.lastInstructions(),
            [.set(ref("a"), path: ["addresses", ElementStep.name(e), "city"], value: .string("Bergen"))])
        // A new object in the element replaces it whole.
        try client.realm.write {
            try client.person("a").dynamicList("addresses").set(.dictionary(["city": "Rome", "zip": "2"]), at: 0)
        }
        XCTAssertEqual(
            try client.lastInstructions(),
            [
                .listSet(
                    ref("a"), field: "addresses", element: e,
                    value: .embedded([SyncField("city", .string("Rome")), SyncField("zip", .string("2"))]))
            ])
    }

    func testListOrderEqualsMirrorOrderAfterRandomEdits() throws {
        let seed = TestSeed.make("ClientRecordingTests.listOrder")
        var random = SplitMix64(seed: seed)
        try client.realm.write { _ = try client.realm.create("Person", value: ["id": "a"]) }
        let person = try client.person("a")
        let tags = try person.dynamicList("tags")
        var counter = 0
        for step in 0..<200 {
            try client.realm.write {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    let n = tags.count
                    counter += 1
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<4: try tags.insert(.string("v\(counter)"), at: Int.random(in: 0...n, using: &random))
                    case 4..<6 where n > 0: try tags.remove(at: Int.random(in: 0..<n, using: &random))
                    case 6..<8 where n > 1:
                        try tags.move(
                            from: Int.random(in: 0..<n, using: &random), to: Int.random(in: 0..<n, using: &random))
                    case 8 where n > 0: try tags.set(.string("s\(counter)"), at: Int.random(in: 0..<n, using: &random))
                    case 9 where n > 0 && step % 25 == 0: try tags.removeAll()
                    default: try tags.append(.string("a\(counter)"))
                    }
                }
            }
            let table = Realm.collectionTableName("Person", try XCTUnwrap(ClientTestSchema.schema["Person"]?["tags"]))
            let mirror = try ClientStore(realm: client.realm).listMirror(
                table: table, owner: try XCTUnwrap(person.objectKey))
            XCTAssertEqual(mirror.map(\.value), try tags.values().map(SyncValueConversion.syncValue), "seed \(seed)")
            XCTAssertEqual(
                Set(mirror.map(\.position)).count, mirror.count, "positions stay distinct, seed \(seed), step \(step)")
        }
    }
}
