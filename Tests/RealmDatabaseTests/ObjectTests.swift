import Foundation
import XCTest

@testable import RealmDatabase

/// The dynamic object API: subscripts, unmanaged objects, add and its update policies, create,
/// delete, deleteAll, lookup by primary key, and objects of other realms.
final class ObjectTests: RealmTestCase {
    // MARK: Unmanaged and managed objects

    func testUnmanagedObjectHoldsItsValues() throws {
        let dog = DynamicObject(className: "Dog", value: ["name": "Rex"])
        XCTAssertFalse(dog.isManaged)
        XCTAssertNil(dog.realm)
        XCTAssertNil(dog.objectKey)
        XCTAssertFalse(dog.isInvalidated)
        XCTAssertEqual(try dog["name"], "Rex")
        XCTAssertEqual(try dog["breed"], .null)
        try dog.setValue("Husky", forKey: "breed")
        XCTAssertEqual(try dog["breed"], "Husky")
        assertRealmError(try dog.freeze(), "Unmanaged objects cannot be frozen.")
        XCTAssertThrowsError(try dog.dynamicList("tags"))
    }

    func testAddMakesTheObjectManagedInPlace() throws {
        let realm = try Realm(configuration: doggoConfig())
        let dog = DynamicObject(className: "Dog", value: ["name": "Rex", "weight": 20])
        try realm.write { try realm.add(dog) }
        XCTAssertTrue(dog.isManaged)
        XCTAssertTrue(dog.realm === realm)
        XCTAssertEqual(dog.objectSchema?.className, "Dog")
        XCTAssertEqual(try dog["name"], "Rex")
        XCTAssertEqual(try dog["weight"], 20)
        XCTAssertEqual(try dog["breed"], "", "a property not given takes its default")
        // Writes now go to the realm.
        try realm.write { try dog.setValue("Max", forKey: "name") }
        XCTAssertEqual(try realm.objects("Dog").first?["name"], "Max")
        // Adding it again does nothing.
        try realm.write { try realm.add(dog) }
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 1)
    }

    func testAddAddsTheUnmanagedObjectsItLinksTo() throws {
        let realm = try Realm(configuration: doggoConfig())
        let toy = DynamicObject(className: "DogToy", value: ["name": "Ball"])
        let dog = DynamicObject(className: "Dog", value: ["name": "Rex", "favoriteToy": .object(toy)])
        let person = DynamicObject(className: "Person", value: ["firstName": "Dale", "dogs": [.object(dog)]])
        try realm.write { try realm.add(person) }
        XCTAssertTrue(toy.isManaged)
        XCTAssertTrue(dog.isManaged)
        XCTAssertEqual(try realm.objects("DogToy").countObjects(), 1)
        XCTAssertEqual(try person.dynamicList("dogs")[0].objectValue?["name"], "Rex")
        XCTAssertTrue(try dog["favoriteToy"].objectValue!.isSameObject(as: toy))
    }

    func testSubscriptErrorsNameClassAndProperty() throws {
        let realm = try Realm(configuration: doggoConfig())
        let dog = try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
        assertRealmError(try dog["color"], "Property 'color' does not exist on object type 'Dog'.")
        try realm.write {
            assertRealmError(
                try dog.setValue("red", forKey: "color"), "Property 'color' does not exist on object type 'Dog'.")
            assertRealmError(
                try realm.create("Dog", value: ["color": "red"]),
                "Property 'color' does not exist on object type 'Dog'.")
        }
    }

    func testIsSameObject() throws {
        let realm = try Realm(configuration: doggoConfig())
        let dog = try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
        let again = try XCTUnwrap(try realm.objects("Dog").first)
        XCTAssertTrue(dog.isSameObject(as: again))
        XCTAssertEqual(RealmValue.object(dog), .object(again))
        let other = try Realm(configuration: doggoConfig())
        XCTAssertTrue(dog.isSameObject(as: try XCTUnwrap(try other.objects("Dog").first)), "same file, class and key")
        let elsewhere = try Realm(configuration: doggoConfig("elsewhere"))
        let copy = try elsewhere.write { try elsewhere.create("Dog", value: .object(dog)) }
        XCTAssertFalse(dog.isSameObject(as: copy))
    }

    // MARK: Update policies

    func testAddWithErrorPolicyRefusesAnExistingPrimaryKey() throws {
        let realm = try Realm(configuration: itemConfig())
        try realm.write { try realm.create("Item", value: ["id": 1, "name": "a"]) }
        try realm.write {
            assertRealmError(
                try realm.add(DynamicObject(className: "Item", value: ["id": 1, "name": "b"])),
                "Attempting to create an object of type 'Item' with an existing primary key value '1'.")
        }
        XCTAssertEqual(try realm.object(ofType: "Item", forPrimaryKey: 1)?["name"], "a")
    }

    func testModifiedWritesOnlyChangedValues() throws {
        let realm = try Realm(configuration: itemConfig())
        let item = try realm.write {
            try realm.create("Item", value: ["id": 1, "name": "a", "score": 5, "weight": 1.5])
        }
        var changes = [[String]]()
        let token = try item.observe { change in
            if case .change(_, let properties) = change { changes.append(properties.map(\.name)) }
        }
        defer { token.invalidate() }
        let update = DynamicObject(className: "Item", value: ["id": 1, "name": "b", "score": 5, "weight": 1.5])
        try realm.write { try realm.add(update, update: .modified) }
        XCTAssertEqual(changes, [["name"]], "only the value that differs is written and reported")
        XCTAssertTrue(update.isManaged)
        XCTAssertTrue(update.isSameObject(as: item))
        XCTAssertEqual(try item["name"], "b")

        // Nothing differs: nothing is reported.
        try realm.write {
            try realm.add(
                DynamicObject(className: "Item", value: ["id": 1, "name": "b", "score": 5]), update: .modified)
        }
        XCTAssertEqual(changes.count, 1)

        // .all writes (and reports) every value given, equal or not.
        try realm.write {
            try realm.add(
                DynamicObject(className: "Item", value: ["id": 1, "name": "b", "score": 5, "weight": 1.5]), update: .all
            )
        }
        XCTAssertEqual(changes.last.map(Set.init), ["name", "score", "weight"])
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1)
    }

    func testUpdatePolicyNeedsAPrimaryKey() throws {
        let realm = try Realm(configuration: doggoConfig())
        try realm.write {
            assertRealmError(
                try realm.add(DynamicObject(className: "Employee", value: ["name": "x"]), update: .modified),
                "'Employee' does not have a primary key and can not be updated")
            assertRealmError(
                try realm.create("Employee", value: ["name": "x"], update: .all),
                "'Employee' does not have a primary key and can not be updated")
        }
    }

    func testUpdatePolicyReachesLinkedObjects() throws {
        let realm = try Realm(configuration: doggoConfig())
        let toyId = RealmValue.objectId(.generate())
        try realm.write { try realm.create("DogToy", value: ["_id": toyId, "name": "Ball"]) }
        try realm.write {
            try realm.create(
                "Dog", value: ["name": "Rex", "favoriteToy": ["_id": toyId, "name": "Bone"]], update: .modified)
        }
        XCTAssertEqual(try realm.objects("DogToy").countObjects(), 1)
        XCTAssertEqual(try realm.object(ofType: "DogToy", forPrimaryKey: toyId)?["name"], "Bone")
        try realm.write {
            assertRealmError(
                try realm.create("Dog", value: ["name": "Max", "favoriteToy": ["_id": toyId]]), code: .primaryKeyExists)
        }
    }

    // MARK: create

    func testCreateFromADictionaryAnArrayAndAnObject() throws {
        let realm = try Realm(configuration: itemConfig())
        try realm.write {
            let a = try realm.create("Item", value: ["id": 1, "name": "dict", "score": 3])
            XCTAssertEqual(try a["name"], "dict")
            XCTAssertEqual(try a["score"], 3)
            // In property order: id, name, score, weight, rating, owner.
            let b = try realm.create("Item", value: [2, "array", 4, 2.5])
            XCTAssertEqual(try b["name"], "array")
            XCTAssertEqual(try b["weight"], 2.5)
            XCTAssertEqual(try b["rating"], .null)
            let c = try realm.create(
                "Item", value: .object(DynamicObject(className: "Item", value: ["id": 3, "name": "object"])))
            XCTAssertEqual(try c["name"], "object")
            // From a managed object: a copy (a new primary key is needed, so copy via update on another key).
            var copied = try a.dictionaryValue()
            copied["id"] = 4
            XCTAssertEqual(try realm.create("Item", value: .dictionary(copied))["score"], 3)
            assertRealmError(
                try realm.create("Item", value: [5, "x", 1, 1.0, nil, nil, "extra"]), code: .invalidValue,
                containing: ["Item"])
            assertRealmError(try realm.create("Item", value: 5), code: .invalidValue, containing: ["Item"])
        }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 4)
    }

    func testCreateWithUpdateLeavesMissingKeysAlone() throws {
        let realm = try Realm(configuration: itemConfig())
        try realm.write { try realm.create("Item", value: ["id": 1, "name": "a", "score": 5, "rating": 4.5]) }
        let updated = try realm.write { try realm.create("Item", value: ["id": 1, "score": 6], update: .modified) }
        XCTAssertEqual(try updated["name"], "a")
        XCTAssertEqual(try updated["score"], 6)
        XCTAssertEqual(try updated["rating"], 4.5)
        try realm.write { try realm.create("Item", value: ["id": 1, "rating": nil], update: .all) }
        XCTAssertEqual(try updated["rating"], .null, "nil clears an optional")
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1)
    }

    func testCreateCopiesNestedValuesIn() throws {
        let realm = try Realm(configuration: doggoConfig())
        let company = try realm.write {
            try realm.create(
                "Company",
                value: [
                    "companyName": "MongoDB",
                    "employees": [
                        ["name": "Dachary", "dogs": [["name": "Maui", "favoriteToy": ["name": "Wubba"]]]],
                        ["name": "Chris"],
                    ],
                    "dogs": [["name": "Ben"]],
                ])
        }
        XCTAssertEqual(try realm.objects("Employee").countObjects(), 2)
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 2)
        XCTAssertEqual(try realm.objects("DogToy").countObjects(), 1)
        let employee = try XCTUnwrap(try company.dynamicList("employees")[0].objectValue)
        let maui = try XCTUnwrap(try employee.dynamicList("dogs")[0].objectValue)
        XCTAssertEqual(try maui["favoriteToy"].objectValue?["name"], "Wubba")
    }

    func testCreateCopiesAnObjectOfAnotherRealm() throws {
        let other = try Realm(configuration: doggoConfig("other"))
        let otherDog = try other.write {
            try other.create("Dog", value: ["name": "Maui", "favoriteToy": ["name": "Wubba"]])
        }
        let realm = try Realm(configuration: doggoConfig())
        let copy = try realm.write { try realm.create("Dog", value: .object(otherDog)) }
        XCTAssertTrue(copy.realm === realm)
        XCTAssertEqual(try copy["_id"], try otherDog["_id"])
        XCTAssertEqual(try copy["favoriteToy"].objectValue?["name"], "Wubba")
        XCTAssertTrue(try copy["favoriteToy"].objectValue?.realm === realm)
        XCTAssertEqual(try realm.objects("DogToy").countObjects(), 1)
        // The original is untouched and still belongs to its realm.
        XCTAssertTrue(otherDog.realm === other)
        try realm.write { try copy.setValue("Copy", forKey: "name") }
        XCTAssertEqual(try otherDog["name"], "Maui")
        // Copying again with .modified updates the copy instead of failing.
        try other.write { try otherDog.setValue("Maui II", forKey: "name") }
        try realm.write { try realm.create("Dog", value: .object(otherDog), update: .modified) }
        XCTAssertEqual(try copy["name"], "Maui II")
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 1)
    }

    func testCreateCopiesUnmanagedObjectsAndLeavesThemUnmanaged() throws {
        let realm = try Realm(configuration: doggoConfig())
        let toy = DynamicObject(className: "DogToy", value: ["name": "Wubba"])
        let dog = DynamicObject(className: "Dog", value: ["name": "Rex", "favoriteToy": .object(toy)])
        let created = try realm.write { try realm.create("Dog", value: .object(dog)) }
        // As RealmSwift's create: the values are copied in, the objects given stay unmanaged.
        XCTAssertFalse(dog.isManaged)
        XCTAssertFalse(toy.isManaged)
        XCTAssertTrue(created.isManaged)
        XCTAssertEqual(try created["favoriteToy"].objectValue?["name"], "Wubba")
        try toy.setValue("changed", forKey: "name")  // still a plain unmanaged object: no write needed
        XCTAssertEqual(try created["favoriteToy"].objectValue?["name"], "Wubba")
        // A nested unmanaged object in a dictionary value is copied too.
        let ball = DynamicObject(className: "DogToy", value: ["name": "Ball"])
        try realm.write { try realm.create("Dog", value: ["name": "Max", "favoriteToy": .object(ball)]) }
        XCTAssertFalse(ball.isManaged)
        XCTAssertEqual(try realm.objects("DogToy").countObjects(), 2)
        // Setting a link to an unmanaged object adds it: that object becomes managed.
        let rope = DynamicObject(className: "DogToy", value: ["name": "Rope"])
        try realm.write { try created.setValue(.object(rope), forKey: "favoriteToy") }
        XCTAssertTrue(rope.isManaged)
        XCTAssertTrue(try created["favoriteToy"].objectValue?.isSameObject(as: rope) ?? false)
    }

    func testAddingAnObjectOfAnotherRealmFails() throws {
        let other = try Realm(configuration: doggoConfig("other"))
        let toy = try other.write { try other.create("DogToy", value: ["name": "Wubba"]) }
        let realm = try Realm(configuration: doggoConfig())
        let message = "Object is already managed by another Realm. Use create instead to copy it into this Realm."
        try realm.write {
            assertRealmError(try realm.add(toy), message)
            // Also when it comes in through a link of an added object, or a list.
            assertRealmError(
                try realm.add(DynamicObject(className: "Dog", value: ["favoriteToy": .object(toy)])), message)
            let person = try realm.create("Person", value: ["firstName": "Dale"])
            let dog = try other.write { try other.create("Dog", value: ["name": "Rex"]) }
            assertRealmError(try person.dynamicList("dogs").append(.object(dog)), message)
        }
        XCTAssertEqual(try realm.objects("DogToy").countObjects(), 0)
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 0)
        XCTAssertTrue(toy.realm === other)
    }

    func testAddingAFrozenObjectOfTheSameFileFails() throws {
        let realm = try Realm(configuration: doggoConfig())
        let toy = try realm.write { try realm.create("DogToy", value: ["name": "Wubba"]) }
        let frozen = try toy.freeze()
        try realm.write {
            assertRealmError(
                try realm.add(frozen),
                "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
        }
    }

    // MARK: delete

    func testDeleteAnObject() throws {
        let realm = try Realm(configuration: doggoConfig())
        let (dog, toy, person) = try realm.write { () -> (DynamicObject, DynamicObject, DynamicObject) in
            let toy = try realm.create("DogToy", value: ["name": "Ball"])
            let dog = try realm.create("Dog", value: ["name": "Rex", "favoriteToy": .object(toy)])
            let person = try realm.create(
                "Person", value: ["firstName": "Dale", "dogs": [.object(dog), ["name": "Fido"], .object(dog)]])
            return (dog, toy, person)
        }
        try realm.write { try realm.delete(toy) }
        XCTAssertTrue(toy.isInvalidated)
        XCTAssertEqual(try dog["favoriteToy"], .null, "a link to a deleted object becomes nil")
        try realm.write { try realm.delete(dog) }
        XCTAssertTrue(dog.isInvalidated)
        XCTAssertEqual(try person.dynamicList("dogs").count, 1, "a deleted object leaves every list")
        XCTAssertEqual(try person.dynamicList("dogs")[0].objectValue?["name"], "Fido")
        assertRealmError(try dog["name"], "Object has been deleted or invalidated.")
        try realm.write {
            assertRealmError(try dog.setValue("x", forKey: "name"), "Object has been deleted or invalidated.")
            assertRealmError(try realm.delete(dog), "Object has been deleted or invalidated.")
            assertRealmError(try realm.add(dog), "Adding a deleted or invalidated object to a Realm is not permitted")
        }
        XCTAssertEqual(dog.description, "Dog (invalidated)")
    }

    func testDeleteResultsListsAndSequences() throws {
        let realm = try Realm(configuration: itemConfig())
        let person = try realm.write { () -> DynamicObject in
            for i in 0..<10 {
                try realm.create("Item", value: ["id": .int(Int64(i)), "name": i % 2 == 0 ? "even" : "odd"])
            }
            let person = try realm.create("Person", value: ["name": "p"])
            try person.dynamicList("items").append(.object(try realm.object(ofType: "Item", forPrimaryKey: 1)!))
            try person.dynamicList("items").append(.object(try realm.object(ofType: "Item", forPrimaryKey: 3)!))
            return person
        }
        try realm.write { try realm.delete(try realm.objects("Item").filter("name == $0", "even")) }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 5)
        let items = try person.dynamicList("items")
        try realm.write { try realm.delete(items) }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 3, "deleting a list deletes the objects in it")
        XCTAssertEqual(items.count, 0)
        XCTAssertFalse(person.isInvalidated, "the list's owner stays")
        let rest = Array(try realm.objects("Item"))
        try realm.write { try realm.delete(rest) }
        XCTAssertEqual(try realm.objects("Item").countObjects(), 0)
        XCTAssertTrue(rest.allSatisfy(\.isInvalidated))
    }

    func testDeleteAll() throws {
        let realm = try Realm(configuration: doggoConfig())
        let company = try realm.write {
            try realm.create(
                "Company", value: ["companyName": "A", "employees": [["name": "E", "dogs": [["name": "D"]]]]])
        }
        try realm.write { try realm.deleteAll() }
        for className in realm.schema.classNames {
            XCTAssertEqual(try realm.objects(className).countObjects(), 0, className)
        }
        XCTAssertTrue(company.isInvalidated)
        // The realm is usable afterwards, with fresh keys.
        let dog = try realm.write { try realm.create("Dog", value: ["name": "New"]) }
        XCTAssertEqual(try dog["name"], "New")
        XCTAssertEqual(try realm.objects("Dog").countObjects(), 1)
    }

    func testDeletedKeysAreNotReused() throws {
        let realm = try Realm(configuration: doggoConfig())
        let first = try realm.write { try realm.create("Dog", value: ["name": "First"]) }
        try realm.write { try realm.delete(first) }
        let second = try realm.write { try realm.create("Dog", value: ["name": "Second"]) }
        XCTAssertNotEqual(first.objectKey, second.objectKey)
        XCTAssertTrue(first.isInvalidated, "a deleted object does not come back as another one")
    }

    func testDeleteNeedsAWriteAndTheRightRealm() throws {
        let realm = try Realm(configuration: doggoConfig())
        let dog = try realm.write { try realm.create("Dog", value: ["name": "Rex"]) }
        assertRealmError(try realm.delete(dog), code: .wrongTransactionState)
        assertRealmError(try realm.deleteAll(), code: .wrongTransactionState)
        let other = try Realm(configuration: doggoConfig("other"))
        try other.write {
            assertRealmError(try other.delete(dog), code: .invalidValue, containing: ["Realm it belongs to"])
        }
        XCTAssertFalse(dog.isInvalidated)
    }

    // MARK: Lookup

    func testObjectForPrimaryKey() throws {
        let realm = try Realm(configuration: doggoConfig())
        let id = UUID()
        try realm.write { try realm.create("Dog", value: ["_id": .uuid(id), "name": "Rex"]) }
        XCTAssertEqual(try realm.object(ofType: "Dog", forPrimaryKey: .uuid(id))?["name"], "Rex")
        XCTAssertNil(try realm.object(ofType: "Dog", forPrimaryKey: .uuid(UUID())))
        assertRealmError(try realm.object(ofType: "Dog", forPrimaryKey: "not a uuid"), code: .invalidValue)
        assertRealmError(
            try realm.object(ofType: "Cat", forPrimaryKey: 1), "Object type 'Cat' is not managed by the Realm.")
    }

    func testDescription() throws {
        let realm = try Realm(configuration: itemConfig())
        let item = try realm.write { try realm.create("Item", value: ["id": 7]) }
        XCTAssertEqual(item.description, "Item(id = 7)")
        XCTAssertEqual(
            DynamicObject(className: "Item", value: ["name": "x"]).description, "Item (unmanaged) {name = x}")
    }
}
