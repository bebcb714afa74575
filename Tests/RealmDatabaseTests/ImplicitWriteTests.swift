import Foundation
import XCTest

@testable import RealmDatabase

/// The implicit-write verbs (SwiftUI's `$results.append`, `$list.append`, `$object.prop = v`):
/// outside a write each commits a transaction of its own; inside one they join it.
final class ImplicitWriteTests: RealmTestCase {
    private var realm: Realm!
    /// A second instance on the same file: it sees only what was committed.
    private var observer: Realm!

    override func setUpWithError() throws {
        try super.setUpWithError()
        realm = try Realm(configuration: doggoConfig())
        observer = try Realm(configuration: doggoConfig())
    }

    override func tearDownWithError() throws {
        realm = nil
        observer = nil
        try super.tearDownWithError()
    }

    private func committedDogs() throws -> Int { try observer.objects("Dog").countObjects() }

    // MARK: Results

    func testResultsAppendCommitsOnItsOwn() throws {
        let dogs = try realm.objects("Dog")
        let version = realm.version
        let bandido = try dogs.append(["name": "Bandido"])
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.version, version + 1)
        XCTAssertEqual(try committedDogs(), 1)
        XCTAssertTrue(bandido.isManaged)
        XCTAssertEqual(try bandido["name"], "Bandido")
        // An unmanaged object is added (and becomes managed).
        let maui = DynamicObject(className: "Dog", value: ["name": "Maui"])
        try dogs.append(maui)
        XCTAssertTrue(maui.realm === realm)
        XCTAssertEqual(try committedDogs(), 2)
        XCTAssertEqual(realm.version, version + 2, "one transaction per verb")
    }

    func testResultsAppendUsesTheErrorPolicy() throws {
        let dogs = try realm.objects("Dog")
        let id = RealmValue.uuid(UUID())
        try dogs.append(["_id": id, "name": "A"])
        let version = realm.version
        assertRealmError(try dogs.append(["_id": id, "name": "B"]), code: .primaryKeyExists)
        XCTAssertEqual(realm.version, version, "the failed implicit write is rolled back")
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(try realm.object(ofType: "Dog", forPrimaryKey: id)?["name"], "A")
    }

    func testResultsRemoveDeletesOnItsOwn() throws {
        let dogs = try realm.objects("Dog")
        let a = try dogs.append(["name": "A"])
        let b = try dogs.append(["name": "B"])
        let c = try dogs.append(["name": "C"])
        try dogs.remove(b)
        XCTAssertTrue(b.isInvalidated)
        XCTAssertEqual(try committedDogs(), 2)
        // An object the results don't contain is left alone, silently.
        let onlyA = try dogs.filter("name == $0", "A")
        try onlyA.remove(c)
        XCTAssertFalse(c.isInvalidated)
        // A frozen object is thawed first.
        try dogs.remove(try c.freeze())
        XCTAssertTrue(c.isInvalidated)
        // By offsets, as SwiftUI's onDelete.
        try dogs.append(["name": "D"])
        try dogs.append(["name": "E"])
        try dogs.remove(atOffsets: [0, 2])
        XCTAssertTrue(a.isInvalidated)
        XCTAssertEqual(try observer.objects("Dog").map { try $0["name"] }, ["D"])
        assertRealmError(try dogs.remove(at: 5), code: .indexOutOfRange)
        XCTAssertEqual(try committedDogs(), 1)
    }

    func testResultsOfAListAppendToTheListToo() throws {
        let person = try realm.write { try realm.create("Person", value: ["firstName": "Dale"]) }
        let dogs = try person.dynamicList("dogs").asResults()
        try dogs.append(["name": "Diane"])
        XCTAssertEqual(try person.dynamicList("dogs").count, 1)
        XCTAssertEqual(try observer.objects("Person").first?.dynamicList("dogs").count, 1)
    }

    // MARK: Lists, sets and maps

    func testListAppendAndRemoveCommitOnTheirOwn() throws {
        let person = try realm.write { try realm.create("Person", value: ["firstName": "Dale"]) }
        let dogs = try person.dynamicList("dogs")
        let version = realm.version
        try dogs.append(.object(DynamicObject(className: "Dog", value: ["name": "Diane"])))
        try dogs.append(["name": "Audrey"])
        XCTAssertEqual(realm.version, version + 2)
        XCTAssertEqual(try committedDogs(), 2)
        let observed = try XCTUnwrap(try observer.objects("Person").first).dynamicList("dogs")
        XCTAssertEqual(observed.count, 2)
        try dogs.remove(at: 0)
        XCTAssertEqual(observed.count, 1)
        XCTAssertEqual(try committedDogs(), 2, "removing from a list keeps the object")
        let audrey = try XCTUnwrap(try dogs[0].objectValue)
        try dogs.remove(audrey)
        XCTAssertEqual(observed.count, 0)
        XCTAssertFalse(realm.isInWriteTransaction)
    }

    func testSetAndMapMutationsAreImplicitToo() throws {
        let typed = try Realm(configuration: allTypesConfig())
        let other = try Realm(configuration: allTypesConfig())
        let object = try typed.write { try typed.create("AllTypes", value: ["pk": 1]) }
        try object.dynamicMutableSet("set_int").insert(5)
        try object.dynamicMap("map_string").setValue("v", forKey: "k")
        let seen = try XCTUnwrap(try other.object(ofType: "AllTypes", forPrimaryKey: 1))
        XCTAssertEqual(try seen["set_int"], [5])
        XCTAssertEqual(try seen["map_string"], ["k": "v"])
        try object.dynamicMutableSet("set_int").remove(5)
        try object.dynamicMap("map_string").removeValue(forKey: "k")
        XCTAssertEqual(try seen["set_int"], [])
        XCTAssertEqual(try seen["map_string"], [:])
    }

    // MARK: Setting a property

    func testImplicitSetterCommitsOnItsOwn() throws {
        let dog = try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
        let version = realm.version
        try dog.setValue("Max", forKey: "name", mode: .implicit)
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertEqual(realm.version, version + 1)
        XCTAssertEqual(try observer.objects("Dog").first?["name"], "Max")
        // A failing implicit set leaves nothing behind.
        assertRealmError(try dog.setValue(5, forKey: "name", mode: .implicit), code: .invalidValue)
        XCTAssertEqual(realm.version, version + 1)
        XCTAssertFalse(realm.isInWriteTransaction)
        // Without `.implicit` the setter needs a write.
        assertRealmError(
            try dog.setValue("Fido", forKey: "name"), "Cannot modify managed objects outside of a write transaction.")
    }

    // MARK: Inside a write they join it

    func testInsideAWriteTheVerbsJoinIt() throws {
        let dogs = try realm.objects("Dog")
        let person = try realm.write { try realm.create("Person", value: ["firstName": "Dale"]) }
        let existing = try dogs.append(["name": "Existing"])
        let version = realm.version
        try realm.beginWrite()
        try dogs.append(["name": "A"])
        try person.dynamicList("dogs").append(["name": "B"])
        try existing.setValue("Renamed", forKey: "name", mode: .implicit)
        try dogs.remove(existing)
        XCTAssertTrue(realm.isInWriteTransaction, "the verbs did not commit the open write")
        XCTAssertEqual(try committedDogs(), 1, "nothing is visible to others before the commit")
        XCTAssertEqual(try dogs.countObjects(), 2, "the writer sees its own changes")
        realm.cancelWrite()
        XCTAssertEqual(realm.version, version)
        XCTAssertEqual(try dogs.countObjects(), 1)
        XCTAssertEqual(try existing["name"], "Existing")
        XCTAssertEqual(try person.dynamicList("dogs").count, 0)

        try realm.write {
            try dogs.append(["name": "C"])
            try existing.setValue("Kept", forKey: "name", mode: .implicit)
        }
        XCTAssertEqual(realm.version, version + 1, "one commit for the whole write")
        XCTAssertEqual(try committedDogs(), 2)
        XCTAssertEqual(try observer.objects("Dog").filter("name == $0", "Kept").countObjects(), 1)
    }

    // MARK: Frozen data

    func testImplicitVerbsOnFrozenDataFail() throws {
        let dog = try realm.objects("Dog").append(["name": "Rex"])
        let person = try realm.write {
            try realm.create("Person", value: ["firstName": "Dale", "dogs": [.object(dog)]])
        }
        let frozenDogs = try realm.objects("Dog").freeze()
        let frozenDog = try dog.freeze()
        let frozenList = try person.dynamicList("dogs").freeze()
        assertRealmError(
            try frozenDogs.append(["name": "X"]),
            "Attempting to modify a frozen collection - call thaw on the collection first.")
        assertRealmError(
            try frozenDogs.remove(dog), "Attempting to modify a frozen collection - call thaw on the collection first.")
        assertRealmError(
            try frozenDog.setValue("X", forKey: "name", mode: .implicit),
            "Attempting to modify a frozen object - call thaw on the Object instance first.")
        assertRealmError(
            try frozenList.append(["name": "X"]),
            "Attempting to modify a frozen collection - call thaw on the collection first.")
        XCTAssertEqual(try committedDogs(), 1)
        XCTAssertEqual(try dog["name"], "Rex")
    }
}
