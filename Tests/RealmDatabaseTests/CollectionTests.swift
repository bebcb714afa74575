import Foundation
import XCTest

@testable import RealmDatabase

/// Lists, sets and maps of primitives and of links, and their mutations.
final class CollectionTests: RealmTestCase {
    private var realm: Realm!
    private var object: DynamicObject!

    override func setUpWithError() throws {
        try super.setUpWithError()
        realm = try Realm(configuration: allTypesConfig())
        object = try realm.write { try realm.create("AllTypes", value: ["pk": 1]) }
    }

    override func tearDownWithError() throws {
        object = nil
        realm = nil
        try super.tearDownWithError()
    }

    private func targets(_ ids: String...) throws -> [DynamicObject] {
        try realm.write { try ids.map { try realm.create("Target", value: ["id": .string($0)], update: .modified) } }
    }

    // MARK: Lists

    func testListOfPrimitivesMutations() throws {
        let list = try object.dynamicList("list_int")
        XCTAssertTrue(list.isEmpty)
        try realm.write {
            try list.append(1)
            try list.append(contentsOf: [2, 3, 2])
            XCTAssertEqual(try list.values(), [1, 2, 3, 2])
            try list.insert(0, at: 0)
            try list.insert(9, at: 5)  // at the end
            XCTAssertEqual(try list.values(), [0, 1, 2, 3, 2, 9])
            try list.replace(index: 1, with: 7)
            XCTAssertEqual(try list.values(), [0, 7, 2, 3, 2, 9])
            try list.move(from: 0, to: 5)
            XCTAssertEqual(try list.values(), [7, 2, 3, 2, 9, 0])
            try list.move(from: 4, to: 1)
            XCTAssertEqual(try list.values(), [7, 9, 2, 3, 2, 0])
            try list.remove(at: 2)
            XCTAssertEqual(try list.values(), [7, 9, 3, 2, 0])
        }
        XCTAssertEqual(list.count, 5)
        XCTAssertEqual(try list[1], 9)
        XCTAssertEqual(try list.index(of: 2), 3)
        XCTAssertNil(try list.index(of: 42))
        XCTAssertEqual(Array(list), [7, 9, 3, 2, 0])
        assertRealmError(try list[5], "Index 5 is out of bounds (must be less than 5).")
        try realm.write {
            assertRealmError(try list.remove(at: 5), code: .indexOutOfRange)
            assertRealmError(try list.insert(1, at: 7), code: .indexOutOfRange)
            assertRealmError(try list.move(from: 0, to: 5), code: .indexOutOfRange)
            try list.removeAll()
        }
        XCTAssertEqual(list.count, 0)
        // The object's value reads the same content.
        try realm.write { try list.append(contentsOf: [4, 5]) }
        XCTAssertEqual(try object["list_int"], [4, 5])
    }

    func testListMutationsOtherThanAppendAndRemoveNeedAWrite() throws {
        let list = try object.dynamicList("list_string")
        try list.append("a")  // implicit
        let message = "Cannot modify managed objects outside of a write transaction."
        assertRealmError(try list.insert("b", at: 0), message)
        assertRealmError(try list.replace(index: 0, with: "b"), message)
        assertRealmError(try list.move(from: 0, to: 0), message)
        assertRealmError(try list.removeAll(), message)
        XCTAssertEqual(try list.values(), ["a"])
    }

    func testListOfOptionalsAndMixed() throws {
        let optional = try object.dynamicList("optList_string")
        let mixed = try object.dynamicList("mixedList")
        try realm.write {
            try optional.append(contentsOf: ["a", nil, "b"])
            try mixed.append(contentsOf: [1, "two", nil, .double(3)])
            assertRealmError(try object.dynamicList("list_string").append(nil), code: .invalidValue)
        }
        XCTAssertEqual(try optional.values(), ["a", nil, "b"])
        XCTAssertEqual(try optional.index(of: nil), 1)
        XCTAssertEqual(try mixed.values(), [1, "two", nil, .double(3)])
    }

    func testSettingAWholeListReplacesIt() throws {
        try realm.write {
            try object.setValue([1, 2, 3], forKey: "list_int")
            try object.setValue([4], forKey: "list_int")
        }
        XCTAssertEqual(try object["list_int"], [4])
        try realm.write { try object.setValue(nil, forKey: "list_int") }
        XCTAssertEqual(try object["list_int"], [])
    }

    /// Setting a whole list that fails partway (a bad element after a good one) inside a write
    /// leaves the list as it was and records no change: before, the old elements were gone, the
    /// first new one was in, and observers and the change record never heard of it.
    func testAFailedWholeListSetLeavesTheListAsItWas() throws {
        try realm.write { try object.setValue([1, 2, 3], forKey: "list_int") }
        var notified = 0
        let token = try object.observe { _ in notified += 1 }
        try realm.beginWrite()
        XCTAssertThrowsError(try object.setValue([7, "not an int"], forKey: "list_int"))
        XCTAssertEqual(try object["list_int"], [1, 2, 3])
        try realm.commitWrite()
        XCTAssertEqual(try object["list_int"], [1, 2, 3])
        XCTAssertEqual(notified, 0, "a failed set is no change")
        token.invalidate()
    }

    func testListOfLinks() throws {
        let (a, b) = try {
            let t = try targets("a", "b")
            return (t[0], t[1])
        }()
        let links = try object.dynamicList("links")
        try realm.write {
            try links.append(.object(a))
            try links.append(.object(b))
            try links.append(.object(a))  // duplicates allowed
            try links.append(["id": "c", "value": 3])  // a value creates the object
            try links.append(.object(DynamicObject(className: "Target", value: ["id": "d"])))  // unmanaged: added
            assertRealmError(try links.append(nil), code: .invalidValue)
            assertRealmError(
                try links.append(.object(DynamicObject(className: "AllTypes", value: ["pk": 9]))), code: .invalidValue,
                containing: ["Target"])
        }
        XCTAssertEqual(try links.values().map { try $0.objectValue?["id"] }, ["a", "b", "a", "c", "d"])
        XCTAssertEqual(try realm.objects("Target").countObjects(), 4)
        XCTAssertEqual(try links.index(of: .object(b)), 1)
        try links.remove(a)  // the first occurrence; implicit write
        XCTAssertEqual(try links.values().map { try $0.objectValue?["id"] }, ["b", "a", "c", "d"])
        XCTAssertFalse(a.isInvalidated, "removing from a list does not delete the object")
        try realm.write { try links.move(from: 0, to: 3) }
        XCTAssertEqual(try links.values().map { try $0.objectValue?["id"] }, ["a", "c", "d", "b"])
        // The list as results: in list order, filterable, sortable.
        let results = try links.asResults()
        XCTAssertEqual(try results.map { try $0["id"] }, ["a", "c", "d", "b"])
        XCTAssertEqual(try links.filter("id == $0", "c").countObjects(), 1)
        XCTAssertEqual(try links.sorted(byKeyPath: "id", ascending: false).map { try $0["id"] }, ["d", "c", "b", "a"])
        // Deleting a target removes it from the list.
        try realm.write { try realm.delete(try realm.object(ofType: "Target", forPrimaryKey: "c")!) }
        XCTAssertEqual(try links.values().map { try $0.objectValue?["id"] }, ["a", "d", "b"])
    }

    func testListOfEmbeddedObjects() throws {
        let addresses = try object.dynamicList("addresses")
        try realm.write {
            try addresses.append(["street": "A"])
            try addresses.append(.object(DynamicObject(className: "Address", value: ["street": "B"])))
            try addresses.insert(["street": "Z"], at: 0)
        }
        XCTAssertEqual(try addresses.values().map { try $0.objectValue?["street"] }, ["Z", "A", "B"])
        let z = try XCTUnwrap(try addresses[0].objectValue)
        try realm.write { try addresses.replace(index: 0, with: ["street": "Y"]) }
        XCTAssertTrue(z.isInvalidated, "a replaced embedded object is deleted")
        try realm.write { try addresses.removeAll() }
        XCTAssertEqual(try realm.connection.scalarInt("SELECT count(*) FROM class_Address"), 0)
    }

    // MARK: Sets

    func testSetOfPrimitives() throws {
        let set = try object.dynamicMutableSet("set_string")
        try set.insert("a")  // implicit writes
        try set.insert("b")
        try set.insert("a")
        XCTAssertEqual(set.count, 2)
        XCTAssertTrue(try set.contains("a"))
        XCTAssertFalse(try set.contains("c"))
        XCTAssertFalse(try set.contains(5), "a value of another type is simply not there")
        try set.remove("a")
        try set.remove("absent")
        XCTAssertEqual(try set.values(), ["b"])
        try realm.write {
            try object.setValue(["x", "y", "x"], forKey: "set_string")
        }
        XCTAssertEqual(Set(try set.values().compactMap(\.stringValue)), ["x", "y"])
        assertRealmError(try set.removeAll(), code: .wrongTransactionState)
        try realm.write { try set.removeAll() }
        XCTAssertTrue(set.isEmpty)
        let required = try object.dynamicMutableSet("set_int")
        try realm.write { assertRealmError(try required.insert(nil), code: .invalidValue) }
    }

    func testSetOfLinks() throws {
        let t = try targets("a", "b")
        let set = try object.dynamicMutableSet("linkSet")
        try set.insert(.object(t[0]))
        try set.insert(.object(t[1]))
        try set.insert(.object(t[0]))
        XCTAssertEqual(set.count, 2)
        XCTAssertTrue(try set.contains(.object(t[1])))
        XCTAssertEqual(Set(try set.asResults().map { try $0["id"].stringValue! }), ["a", "b"])
        try set.remove(.object(t[0]))
        XCTAssertFalse(try set.contains(.object(t[0])))
        try realm.write { try realm.delete(t[1]) }
        XCTAssertEqual(set.count, 0)
    }

    func testMixedSetTellsTypesApart() throws {
        let set = try object.dynamicMutableSet("mixedSet")
        try realm.write {
            try set.insert(1)
            try set.insert(.double(1))
            try set.insert(true)
            try set.insert("1")
            try set.insert(1)
        }
        XCTAssertEqual(set.count, 4)
        try set.remove(.double(1))
        XCTAssertTrue(try set.contains(1))
        XCTAssertFalse(try set.contains(.double(1)))
    }

    // MARK: Maps

    func testMapOfPrimitives() throws {
        let map = try object.dynamicMap("map_int")
        try map.setValue(1, forKey: "one")  // implicit writes
        try map.setValue(2, forKey: "two")
        try map.setValue(3, forKey: "one")  // replaces
        XCTAssertEqual(map.count, 2)
        XCTAssertEqual(map.keys, ["one", "two"])
        XCTAssertEqual(try map.value(forKey: "one"), 3)
        XCTAssertNil(try map.value(forKey: "three"))
        XCTAssertEqual(try map.entries(), ["one": 3, "two": 2])
        XCTAssertEqual(Array(map).map(\.key), ["one", "two"])
        try map.removeValue(forKey: "one")
        try map.removeValue(forKey: "absent")
        XCTAssertEqual(try object["map_int"], ["two": 2])
        for bad in ["", "a.b", "$a"] {
            assertRealmError(try map.setValue(1, forKey: bad), code: .invalidValue, containing: ["Invalid key"])
        }
        try realm.write { assertRealmError(try map.setValue(nil, forKey: "x"), code: .invalidValue) }
        let optional = try object.dynamicMap("optMap_int")
        try optional.setValue(nil, forKey: "x")
        XCTAssertEqual(try optional.value(forKey: "x"), .null, "a key holding nil is present")
        XCTAssertEqual(optional.keys, ["x"])
        assertRealmError(try map.removeAll(), code: .wrongTransactionState)
        try realm.write { try map.removeAll() }
        XCTAssertEqual(map.count, 0)
    }

    func testMapOfLinks() throws {
        let t = try targets("a")
        let map = try object.dynamicMap("linkMap")
        try map.setValue(.object(t[0]), forKey: "first")
        try map.setValue(nil, forKey: "empty")
        try map.setValue(["id": "b"], forKey: "created")
        XCTAssertEqual(try map.value(forKey: "first")?.objectValue?["id"], "a")
        XCTAssertEqual(try map.value(forKey: "created")?.objectValue?["id"], "b")
        XCTAssertEqual(try map.value(forKey: "empty"), .null)
        // Deleting a target keeps the key with nil.
        try realm.write { try realm.delete(t[0]) }
        XCTAssertEqual(map.keys, ["created", "empty", "first"])
        XCTAssertEqual(try map.value(forKey: "first"), .null)
    }

    func testMapOfEmbeddedObjects() throws {
        let map = try object.dynamicMap("addressMap")
        try map.setValue(["street": "Home"], forKey: "home")
        let home = try XCTUnwrap(try map.value(forKey: "home")?.objectValue)
        try map.setValue(["street": "New"], forKey: "home")
        XCTAssertTrue(home.isInvalidated, "the replaced embedded object is deleted")
        try map.removeValue(forKey: "home")
        XCTAssertEqual(try realm.connection.scalarInt("SELECT count(*) FROM class_Address"), 0)
    }

    // MARK: Collections and their owner

    func testCollectionsOfADeletedOwnerAreInvalid() throws {
        let list = try object.dynamicList("list_int")
        try list.append(1)
        try realm.write { try realm.delete(object) }
        XCTAssertTrue(list.isInvalidated)
        XCTAssertEqual(list.count, 0)
        assertRealmError(try list.values(), "Object has been deleted or invalidated.")
        assertRealmError(try list.append(2), "Object has been deleted or invalidated.")
        XCTAssertEqual(
            try realm.connection.scalarInt("SELECT count(*) FROM list_AllTypes_list_int"), 0,
            "the rows went with the owner")
    }

    func testCollectionsAreLiveAcrossInstances() throws {
        let list = try object.dynamicList("list_string")
        let other = try Realm(configuration: allTypesConfig())
        let otherList = try XCTUnwrap(try other.object(ofType: "AllTypes", forPrimaryKey: 1)).dynamicList("list_string")
        try otherList.append("from other")
        XCTAssertEqual(try list.values(), ["from other"])
    }

    func testWrongCollectionKindIsAnError() throws {
        assertRealmError(try object.dynamicList("set_int"), "Property 'AllTypes.set_int' is not a list.")
        assertRealmError(try object.dynamicMutableSet("list_int"), "Property 'AllTypes.list_int' is not a set.")
        assertRealmError(try object.dynamicMap("int"), "Property 'AllTypes.int' is not a map.")
        assertRealmError(try object.dynamicList("list_int").filter("TRUEPREDICATE"), code: .invalidValue)
    }
}
