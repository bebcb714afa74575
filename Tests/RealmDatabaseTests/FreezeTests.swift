import Foundation
import XCTest

@testable import RealmDatabase

/// Frozen realms, results, lists and objects: pinned at their version, read-only, thawable; and
/// the bound on pinned versions.
final class FreezeTests: RealmTestCase {
    func testFrozenRealmStaysAtItsVersion() throws {
        let realm = try Realm(configuration: doggoConfig())
        try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
        let frozen = try realm.freeze()
        XCTAssertTrue(frozen.isFrozen)
        XCTAssertFalse(realm.isFrozen)
        XCTAssertEqual(frozen.version, realm.version)
        let frozenVersion = frozen.version
        try realm.write {
            try realm.create("Dog", value: ["name": "Fido"])
            try realm.objects("Dog").filter("name == $0", "Rex")[0].setValue("Rex II", forKey: "name")
        }
        XCTAssertEqual(frozen.version, frozenVersion)
        XCTAssertEqual(try frozen.objects("Dog").countObjects(), 1)
        XCTAssertEqual(try frozen.objects("Dog").first?["name"], "Rex")
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 2)
        XCTAssertTrue(try frozen.objects("Dog").isFrozen)
        // Freezing again at the same version gives the same snapshot; a frozen realm freezes to itself.
        XCTAssertTrue(try frozen.freeze() === frozen)
        let later = try realm.freeze()
        XCTAssertFalse(later === frozen)
        XCTAssertEqual(try later.objects("Dog").countObjects(), 2)
        XCTAssertTrue(try realm.freeze() === later)
    }

    func testFrozenResultsAndObjectsStayAtTheirVersion() throws {
        let realm = try Realm(configuration: doggoConfig())
        let rex = try realm.write { try realm.create("Dog", value: ["name": "Rex", "weight": 10]) }
        let results = try realm.objects("Dog").sorted(byKeyPath: "name")
        let frozenResults = try results.freeze()
        let frozenRex = try rex.freeze()
        XCTAssertTrue(frozenResults.isFrozen)
        XCTAssertTrue(frozenRex.isFrozen)
        XCTAssertTrue(frozenRex.isSameObject(as: rex))
        try realm.write {
            try rex.setValue(20, forKey: "weight")
            try realm.create("Dog", value: ["name": "Abe"])
        }
        XCTAssertEqual(try frozenRex["weight"], 10)
        XCTAssertEqual(try rex["weight"], 20)
        XCTAssertEqual(try frozenResults.countObjects(), 1)
        XCTAssertEqual(try frozenResults[0]["name"], "Rex")
        XCTAssertEqual(try results.countObjects(), 2)
        XCTAssertEqual(try results[0]["name"], "Abe")
        // A frozen object outlives its live counterpart's deletion.
        try realm.write { try realm.delete(rex) }
        XCTAssertFalse(frozenRex.isInvalidated)
        XCTAssertEqual(try frozenRex["name"], "Rex")
        XCTAssertNil(try frozenRex.thaw(), "thawing a deleted object gives nil")
    }

    func testFrozenListStaysAtItsVersion() throws {
        let realm = try Realm(configuration: doggoConfig())
        let person = try realm.write {
            try realm.create("Person", value: ["firstName": "Dale", "dogs": [["name": "A"]]])
        }
        let frozenList = try person.dynamicList("dogs").freeze()
        try person.dynamicList("dogs").append(["name": "B"])
        XCTAssertEqual(frozenList.count, 1)
        XCTAssertTrue(frozenList.isFrozen)
        let thawed = try XCTUnwrap(try frozenList.thaw())
        XCTAssertFalse(thawed.isFrozen)
        XCTAssertEqual(thawed.count, 2)
        try realm.write { try realm.delete(person) }
        XCTAssertNil(try frozenList.thaw(), "the list of a deleted owner thaws to nil")
        XCTAssertEqual(frozenList.count, 1)
    }

    func testWritingThroughFrozenDataFails() throws {
        let realm = try Realm(configuration: doggoConfig())
        let (dog, person) = try realm.write {
            (try realm.create("Dog", value: ["name": "Rex"]), try realm.create("Person", value: ["firstName": "Dale"]))
        }
        let frozen = try realm.freeze()
        let frozenDog = try dog.freeze()
        let frozenPerson = try person.freeze()
        assertRealmError(try frozen.write {}, "Can't perform transactions on a frozen Realm")
        assertRealmError(try frozen.beginWrite(), "Can't perform transactions on a frozen Realm")
        assertRealmError(
            try frozenDog.setValue("Max", forKey: "name"),
            "Attempting to modify a frozen object - call thaw on the Object instance first.")
        assertRealmError(
            try frozenDog.setValue("Max", forKey: "name", mode: .implicit),
            "Attempting to modify a frozen object - call thaw on the Object instance first.")
        assertRealmError(
            try frozenPerson.dynamicList("dogs").append(.object(frozenDog)),
            "Attempting to modify a frozen collection - call thaw on the collection first.")
        assertRealmError(
            try frozen.objects("Dog").append(["name": "X"]),
            "Attempting to modify a frozen collection - call thaw on the collection first.")
        // Even inside a write on the live realm, frozen objects stay read-only.
        try realm.write {
            assertRealmError(
                try frozenDog.setValue("Max", forKey: "name"),
                "Attempting to modify a frozen object - call thaw on the Object instance first.")
            assertRealmError(try frozen.delete(frozenDog), code: .frozen)
        }
        XCTAssertEqual(try dog["name"], "Rex")
        // Frozen data sends no notifications.
        assertRealmError(
            try frozen.observe { _, _ in }, "Frozen Realms do not change and do not have change notifications.")
        assertRealmError(
            try frozenDog.observe { _ in }, "Frozen Realms do not change and do not have change notifications.")
        // Realm's wording for frozen results too (Realm/Tests/ResultsTests.m, issue 13).
        assertRealmError(
            try frozen.objects("Dog").observe { _ in },
            "Frozen Realms do not change and do not have change notifications.")
        XCTAssertFalse(frozen.refresh())
    }

    func testThawGivesTheLiveCounterpart() throws {
        let realm = try Realm(configuration: doggoConfig())
        let dog = try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
        let frozenDog = try dog.freeze()
        let frozenResults = try realm.objects("Dog").freeze()
        try realm.write { try dog.setValue("Max", forKey: "name") }

        let thawedRealm = try XCTUnwrap(frozenDog.realm).thaw()
        XCTAssertTrue(thawedRealm === realm, "the realm it was frozen from, while it is open")
        XCTAssertTrue(try realm.thaw() === realm, "a live realm thaws to itself")
        let thawedDog = try XCTUnwrap(try frozenDog.thaw())
        XCTAssertFalse(thawedDog.isFrozen)
        XCTAssertEqual(try thawedDog["name"], "Max", "thawed data is at the latest version")
        try realm.write { try thawedDog.setValue("Writable", forKey: "name") }
        XCTAssertEqual(try dog["name"], "Writable")
        let thawedResults = try frozenResults.thaw()
        XCTAssertFalse(thawedResults.isFrozen)
        try realm.write { try realm.create("Dog", value: ["name": "Fido"]) }
        XCTAssertEqual(try thawedResults.countObjects(), 2, "thawed results are live")
        XCTAssertEqual(try frozenResults.countObjects(), 1)
    }

    func testThawAfterTheLiveRealmIsGoneOpensANewOne() throws {
        var frozenDog: DynamicObject!
        do {
            let realm = try Realm(configuration: doggoConfig())
            let dog = try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
            frozenDog = try dog.freeze()
        }
        let thawed = try XCTUnwrap(try frozenDog.thaw())
        XCTAssertFalse(thawed.isFrozen)
        try XCTUnwrap(thawed.realm).write { try thawed.setValue("Max", forKey: "name") }
        XCTAssertEqual(try frozenDog["name"], "Rex")
        XCTAssertEqual(try thawed["name"], "Max")
    }

    func testFrozenDataIsReadableFromAnotherThread() throws {
        let realm = try Realm(configuration: doggoConfig())
        try realm.write {
            for i in 0..<5 { try realm.create("Dog", value: ["name": .string("dog\(i)"), "weight": .int(Int64(i))]) }
        }
        let frozen = UncheckedSendable(try realm.objects("Dog").freeze())
        try realm.write { try realm.deleteAll() }
        let result = UncheckedSendable(Box<Int64>())
        let done = DispatchSemaphore(value: 0)
        Thread {
            result.value.value = (try? frozen.value.sum(ofProperty: "weight"))?.intValue
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(result.value.value, 10)
    }

    func testFrozenInMemoryRealm() throws {
        var config = Realm.Configuration(inMemoryIdentifier: "freeze-\(UUID().uuidString)")
        config.schema = Self.doggoSchema()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
        let frozen = try realm.freeze()
        try realm.write { try realm.create("Dog", value: ["name": "Fido"]) }
        XCTAssertEqual(try frozen.objects("Dog").countObjects(), 1)
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 2)
        assertRealmError(try frozen.write {}, "Can't perform transactions on a frozen Realm")
        XCTAssertEqual(try frozen.objects("Dog").thaw().countObjects(), 2)
    }

    func testFreezeNeedsACommittedState() throws {
        let realm = try Realm(configuration: doggoConfig())
        try realm.write {
            XCTAssertThrowsError(try realm.freeze())
        }
        assertRealmError(try DynamicObject(className: "Dog").freeze(), "Unmanaged objects cannot be frozen.")
    }

    // MARK: maximumNumberOfActiveVersions

    func testWritesFailWhileTooManyVersionsArePinned() throws {
        var config = doggoConfig()
        config.maximumNumberOfActiveVersions = 3
        let realm = try Realm(configuration: config)
        try realm.write { try realm.create("Dog", value: ["name": "v1"]) }
        var first: Realm? = try realm.freeze()
        try realm.write { try realm.create("Dog", value: ["name": "v2"]) }
        let second = try realm.freeze()
        // Two frozen versions and the live one are three: writing is still allowed...
        try realm.write { try realm.create("Dog", value: ["name": "v3"]) }
        // ...and freezing never fails (freezing the live version adds no version)...
        let third = try realm.freeze()
        XCTAssertEqual(try third.objects("Dog").countObjects(), 3)
        try realm.write { try realm.create("Dog", value: ["name": "v4"]) }
        // ...but now three frozen versions and the live one are four: a write is refused, as
        // Realm does, and the realm is left as it was.
        XCTAssertThrowsError(try realm.write { try realm.create("Dog", value: ["name": "v5"]) }) { error in
            guard let error = error as? RealmError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .maximumActiveVersions)
            XCTAssertEqual(error.message, "Number of active versions (4) in the Realm exceeded the limit of 3")
        }
        XCTAssertFalse(realm.isInWriteTransaction)
        XCTAssertThrowsError(try realm.objects("Dog").append(["name": "implicit"]))
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 4)
        // Freezing again at a version already pinned costs nothing.
        XCTAssertTrue(try second.freeze() === second)
        // Releasing a frozen version makes room again.
        XCTAssertEqual(try first?.objects("Dog").countObjects(), 1)
        first = nil
        try realm.write { try realm.create("Dog", value: ["name": "v5"]) }
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 5)
        XCTAssertEqual(try second.objects("Dog").countObjects(), 2)
    }

    func testPinnedVersionsAreCountedPerFileAcrossInstances() throws {
        var config = doggoConfig()
        config.maximumNumberOfActiveVersions = 2
        let a = try Realm(configuration: config)
        let b = try Realm(configuration: config)
        try a.write { try a.create("Dog", value: ["name": "x"]) }
        let frozenA = try a.freeze()
        try a.write { try a.create("Dog", value: ["name": "y"]) }
        let frozenB = try b.freeze()
        // a's frozen version and b's (the live one): two, at the limit.
        try a.write { try a.create("Dog", value: ["name": "z"]) }
        // Now a's frozen version, b's and the live one: three, over the limit, for both.
        assertRealmError(try b.write {}, code: .maximumActiveVersions)
        assertRealmError(try a.write {}, code: .maximumActiveVersions)
        XCTAssertEqual(try frozenA.objects("Dog").countObjects(), 1)
        XCTAssertEqual(try frozenB.objects("Dog").countObjects(), 2)
    }
}
