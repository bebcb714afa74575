import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

/// Objects and writes behave as Realm's: each test names the realm-swift test it follows.
final class LuaObjectSemanticsTests: LuaTestCase {
    /// A second realm with the shapes DoggoDB's schema lacks: a decimal128, embedded objects in a
    /// link, a list and a map, objects without a primary key, sets and maps of objects.
    var shapesLua: String {
        """
        local c = Realm.Configuration.defaultConfiguration
        c.inMemoryIdentifier = "shapes-\(UUID().uuidString)"
        c.schema = {
          { name = "Owner", primaryKey = "_id", properties = {
              _id = "int", amount = "decimal128", optName = "string?", pet = "Pet?", pets = "Pet[]",
              petSet = "Pet<>", petMap = "Pet?{}", kid = "Kid?", kids = "Kid[]", kidMap = "Kid?{}" } },
          { name = "Pet", properties = { name = "string", age = "int", next = "Pet?" } },
          { name = "Kid", embedded = true, properties = { value = "int" } },
        }
        shapes = Realm(c)
        """
    }

    // MARK: Writes outside a transaction

    /// RealmTests.testAddOutsideWriteTransaction / ObjectCreationTests (create outside a write
    /// throws "Cannot modify managed objects outside of a write transaction."), RealmTests.testDelete*
    /// and testDeleteAll outside a write, testCancelWrite (cancelling with no write throws).
    func testRealmVerbsNeedAWrite() throws {
        let outside = "Cannot modify managed objects outside of a write transaction."
        try run("realm = Realm(); realm:write(function() realm:create('Dog', { name = 'Rex' }) end)")
        for verb in [
            "realm:add(Object('Dog', { name = 'Maui' }))", "realm:create('Dog', { name = 'Maui' })",
            "realm:delete(realm:objects('Dog')[1])", "realm:delete(realm:objects('Dog'))", "realm:deleteAll()",
        ] {
            let r = try run("local ok, e = pcall(function() \(verb) end); return ok, e.code, e.message")
            XCTAssertEqual(r.map(\.description), ["false", "\"WrongTransactionState\"", "\"\(outside)\""], verb)
        }
        let cancel = try run("local ok, e = pcall(function() realm:cancelWrite() end); return ok, e.code, e.message")
        XCTAssertEqual(
            cancel.map { $0.stringValue ?? $0.description },
            ["false", "WrongTransactionState", "Can't cancel a non-existing write transaction"])
        XCTAssertEqual(
            try run("return #realm:objects('Dog'), realm.isInWriteTransaction").map(\.description),
            [
                "1", "false",
            ])
    }

    /// ObjectCreationTests.testCreateWithNestedObjects (a failed add or create leaves nothing:
    /// neither the object nor the nested objects created before the failure).
    func testFailedAddLeavesNothingBehind() throws {
        let r = try run(
            """
            realm = Realm()
            realm:write(function()
              realm:create('DogToy', { _id = ObjectId('000000000000000000000001'), name = 'a' })
            end)
            realm:beginWrite()
            local person = Object('Person', { firstName = 'P', dogs = { Object('Dog', { name = 'D' }) } })
            local dog = Object('Dog', { name = 'X', favoriteToy = Object('DogToy', {
              _id = ObjectId('000000000000000000000001'), name = 'dup' }) })
            realm:add(person)
            local ok = pcall(function() realm:add(dog) end)
            local inWrite, dogs, toys = realm.isInWriteTransaction, #realm:objects('Dog'), #realm:objects('DogToy')
            realm:commitWrite()
            return ok, inWrite, dogs, toys, dog.realm == nil, dog.name, #realm:objects('Dog'), person.dogs[1].name
            """)
        XCTAssertEqual(r.map(\.description), ["false", "true", "1", "1", "true", "\"X\"", "1", "\"D\""])
    }

    /// The same, for objects the failed add had already made managed: they are unmanaged again,
    /// with their values (and can be added afterwards).
    func testFailedAddUnmanagesWhatItReached() throws {
        let r = try run(
            """
            realm = Realm()
            local dup = ObjectId('000000000000000000000001')
            realm:write(function() realm:create('DogToy', { _id = dup, name = 'a' }) end)
            local toy = Object('DogToy', { name = 'fresh' })
            local good = Object('Dog', { name = 'ok', favoriteToy = toy })
            local person = Object('Person', { firstName = 'Q', dogs = { good,
              Object('Dog', { name = 'bad', favoriteToy = Object('DogToy', { _id = dup, name = 'dup' }) }) } })
            local ok = pcall(function() realm:write(function() realm:add(person) end) end)
            local before = { tostring(toy.realm == nil), tostring(good.realm == nil), good.favoriteToy.name }
            realm:write(function() realm:add(good) end)
            return ok, table.concat(before, ","), good.realm ~= nil, #realm:objects('DogToy'), #realm:objects('Person')
            """)
        XCTAssertEqual(r.map(\.description), ["false", "\"true,true,fresh\"", "true", "2", "0"])
    }

    // MARK: Deleting sets and maps

    /// RealmTests.testDeleteCollection (realm.delete of a collection deletes its objects): for a
    /// MutableSet and a Map of objects, as ObjectStore's delete of any collection.
    func testDeleteSetAndMapDeleteTheirObjects() throws {
        let r = try run(
            shapesLua + """
                shapes:write(function()
                  local o = shapes:create('Owner', { _id = 1, petSet = { { name = 'a' }, { name = 'b' } },
                                                    petMap = { x = { name = 'c' }, y = { name = 'd' } } })
                  shapes:create('Pet', { name = 'kept' })
                  shapes:delete(o.petSet)
                  shapes:delete(o.petMap)
                end)
                local pets = shapes:objects('Pet')
                return #pets, pets[1].name
                """)
        XCTAssertEqual(r.map(\.description), ["1", "\"kept\""])
    }

    // MARK: Unmanaged objects carry their schema

    /// ObjectCreationTests.testInitStandaloneWithNoArguments (every property reads its default),
    /// testInitWithInvalidValue style (a wrong type fails when the object is built) and
    /// ListTests/MapTests on unmanaged collections (append, remove, count before add).
    func testUnmanagedObjectHasItsSchema() throws {
        let r = try run(
            """
            local d = Object("Dog", {})
            d.tags:append("a"); d.tags:append("b"); d.tags:remove(1)
            d.nicknames:insert("n"); d.nicknames:insert("n")
            d.attributes.color = "red"
            return d.name, d.age, d.weight, d.breed, d.favoriteToy, #d.tags, d.tags[1], #d.nicknames,
              d.attributes.color, d.realm == nil
            """)
        XCTAssertEqual(
            r.map(\.description), ["\"\"", "0", "0.0", "nil", "nil", "1", "\"b\"", "1", "\"red\"", "true"])
        let wrong = failure("Object('Dog', { age = 'old' })")
        XCTAssertTrue(wrong.contains("Invalid value 'old' of type 'string' for 'int' property 'Dog.age'."), wrong)
        let later = failure("local d = Object('Dog', {}); d.age = 'old'")
        XCTAssertTrue(later.contains("for 'int' property 'Dog.age'"), later)
        let added = try run(
            """
            realm = Realm()
            local d = Object("Dog", { name = "Rex" })
            d.tags:append("x")
            realm:write(function() realm:add(d) end)
            return #realm:objects("Dog")[1].tags, realm:objects("Dog")[1].tags[1]
            """)
        XCTAssertEqual(added.map(\.description), ["1", "\"x\""])

        // The verbs of another kind of collection name the collection, instead of acting on nothing.
        let map = failure("Object('Dog', {}).attributes:append('x')")
        XCTAssertTrue(map.contains("'Dog.attributes' is a map: its values are read and set by key."), map)
        let keys = failure("Object('Dog', {}).tags:keys()")
        XCTAssertTrue(keys.contains("'Dog.tags' is no map: it has no keys."), keys)
        let set = failure("Object('Dog', { nicknames = { 'n' } }).nicknames[1] = 'm'")
        XCTAssertTrue(set.contains("The set 'Dog.nicknames' has no positions to assign"), set)
        let got = try run("local d = Object('Dog', {}); d.attributes.count = 'c'; return d.attributes:get('count')")
        XCTAssertEqual(got.first?.stringValue, "c")
    }

    // MARK: add makes the object itself managed

    /// ObjectCreationTests.testAddObjectCycle (obj1 and obj2 both get the realm), testAddEmbedded
    /// (the embedded objects reached become managed) and RealmTests.testAddObject (the object given
    /// is the managed one afterwards).
    func testAddMakesTheObjectItselfManaged() throws {
        let r = try run(
            shapesLua + """
                local a = Object('Pet', { name = 'a' })
                local b = Object('Pet', { name = 'b', next = a })
                a.next = b
                local kid = Object('Kid', { value = 1 })
                local o = Object('Owner', { _id = 1, pet = a, kid = kid })
                o.pets:append(b)
                shapes:write(function() shapes:add(o) end)
                return o.realm ~= nil, a.realm ~= nil, b.realm ~= nil, kid.realm ~= nil, #shapes:objects('Pet'),
                  a.next.name, b.next.name, o.pets[1] == b, kid.value
                """)
        XCTAssertEqual(r.map(\.description), ["true", "true", "true", "true", "2", "\"b\"", "\"a\"", "true", "1"])
    }

    // MARK: Updates

    /// ObjectCreationTests.testCreateOrUpdateModifiedNil and testAddOrUpdateNil (an optional set
    /// back to nil reads nil; a Lua table cannot hold nil, an Object carries every property),
    /// testUpdateWithNestedObjects (nested objects without a primary key are created under
    /// .modified and .all).
    func testUpdateSetsNilAndCreatesNestedObjects() throws {
        let r = try run(
            """
            realm = Realm()
            local id = ObjectId('000000000000000000000001')
            local dogId = UUID('00000000-0000-0000-0000-000000000001')
            realm:write(function()
              realm:create('Company', { _id = id, companyName = 'c', employees = { { name = 'e1' } } })
              realm:create('Dog', { _id = dogId, name = 'd', breed = 'lab' })
            end)
            local breeds = {}
            for _, policy in ipairs{ 'modified', 'all' } do
              realm:write(function()
                realm:create('Company', { _id = id, employees = { { name = 'e-' .. policy } } }, policy)
                realm:create('Dog', Object('Dog', { _id = dogId, name = 'd' }), policy)
              end)
              breeds[#breeds + 1] = tostring(realm:object('Dog', dogId).breed)
              realm:write(function() realm:create('Dog', { _id = dogId, breed = 'lab' }, policy) end)
              realm:write(function() realm:add(Object('Dog', { _id = dogId, name = 'd' }), policy) end)
              breeds[#breeds + 1] = tostring(realm:object('Dog', dogId).breed)
            end
            local c = realm:objects('Company')[1]
            return c.employees[1].name, #c.employees, table.concat(breeds, ',')
            """)
        XCTAssertEqual(r.map(\.description), ["\"e-all\"", "1", "\"nil,nil,nil,nil\""])
    }

    /// ObjectCreationTests.testAddAndUpdateChangedEmbedded (.modified updates the embedded object in
    /// place: the old handle stays valid and reads the new value) and testAddAndUpdateEmbedded
    /// (.all replaces it: the old handle is invalidated).
    func testEmbeddedUpdatedInPlaceUnderModifiedReplacedUnderAll() throws {
        let r = try run(
            shapesLua + """
                local kid
                shapes:write(function()
                  kid = shapes:create('Owner', { _id = 1, kid = { value = 1 } }).kid
                  shapes:create('Owner', { _id = 1, kid = { value = 2 } }, 'modified')
                end)
                local validAfterModified, valueAfterModified = not kid.isInvalidated, kid.value
                shapes:write(function() shapes:create('Owner', { _id = 1, kid = { value = 3 } }, 'all') end)
                return validAfterModified, valueAfterModified, kid.isInvalidated, shapes:object('Owner', 1).kid.value
                """)
        XCTAssertEqual(r.map(\.description), ["true", "2", "true", "3"])
    }

    /// ObjectCreationTests.testAddAndUpdateChangedEmbedded / testAddAndUpdateEmbedded for a list of
    /// embedded objects (realm-core's `List::assign`): under .modified the element at each index
    /// both lists have is updated in place (its handle stays valid and reads the new value), a
    /// longer list appends and a shorter one removes the surplus; .all replaces every element.
    func testEmbeddedListUpdatedElementByElementUnderModifiedReplacedUnderAll() throws {
        let r = try run(
            shapesLua + """
                local first, second
                local function kids() return shapes:object('Owner', 1).kids end
                shapes:write(function()
                  local o = shapes:create('Owner', { _id = 1, kids = { { value = 1 }, { value = 2 } } })
                  first, second = o.kids[1], o.kids[2]
                  shapes:create('Owner', { _id = 1, kids = { { value = 10 }, { value = 20 }, { value = 30 } } },
                    'modified')
                end)
                local longer = table.concat({ tostring(first.isInvalidated), first.value, second.value,
                  #kids(), kids()[3].value }, ' ')
                shapes:write(function() shapes:create('Owner', { _id = 1, kids = { { value = 100 } } }, 'modified') end)
                local shorter = table.concat({ tostring(first.isInvalidated), first.value,
                  tostring(second.isInvalidated), #kids() }, ' ')
                shapes:write(function() shapes:create('Owner', { _id = 1, kids = { { value = 7 } } }, 'all') end)
                local all = table.concat({ tostring(first.isInvalidated), kids()[1].value, #kids() }, ' ')
                return longer, shorter, all
                """)
        XCTAssertEqual(
            r.map { $0.stringValue ?? $0.description },
            ["false 10 20 3 30", "false 100 true 1", "true 7 1"])
    }

    /// ObjectCreationTests.testAddAndUpdateChangedEmbedded (`add` with .modified: the unmanaged
    /// elements given become the elements they update) and testCreateWithNestedObjects (a failed
    /// update leaves the list, its elements and their handles exactly as they were).
    func testEmbeddedListUpdateAdoptsElementsAndFailsWhole() throws {
        let r = try run(
            shapesLua + """
                local kept, given
                shapes:write(function()
                  kept = shapes:create('Owner', { _id = 1, kids = { { value = 1 }, { value = 2 } } }).kids[1]
                end)
                given = Object('Kid', { value = 5 })
                shapes:write(function()
                  shapes:add(Object('Owner', { _id = 1, kids = { given } }), 'modified')
                end)
                local adopted = table.concat({ tostring(given.realm ~= nil), tostring(kept.isInvalidated), kept.value,
                  #shapes:object('Owner', 1).kids }, ' ')
                local ok, e
                shapes:write(function()
                  ok, e = pcall(function()
                    shapes:create('Owner', { _id = 1, kids = { { value = 9 }, { value = 'x' }, { value = 3 } } },
                      'modified')
                  end)
                end)
                local kids = shapes:object('Owner', 1).kids
                return adopted, ok, e.code, tostring(kept.isInvalidated) .. ' ' .. kept.value .. ' ' .. #kids
                """)
        XCTAssertEqual(
            r.map { $0.stringValue ?? $0.description },
            ["true false 5 1", "false", "InvalidArgument", "false 5 1"])
    }

    /// ObjectAccessorTests (testSetEmbeddedLink: "Can't set link to existing managed embedded
    /// object"), ListTests.testAppendEmbedded and MapTests (a managed embedded object added again).
    func testManagedEmbeddedObjectCannotBeLinkedTwice() throws {
        let messages = try run(
            shapesLua + """
                local o
                shapes:write(function() o = shapes:create('Owner', { _id = 1, kid = { value = 1 },
                  kids = { { value = 2 } } }) end)
                local function message(f)
                  local ok, e = pcall(function() shapes:write(f) end)
                  return ok and 'ok' or e.message
                end
                return message(function() o.kid = o.kids[1] end),
                  message(function() o.kids:append(o.kid) end),
                  message(function() o.kidMap.k = o.kid end),
                  o.kid.value, #o.kids
                """)
        XCTAssertEqual(
            messages.map { $0.stringValue ?? $0.description },
            [
                "Can't set link to existing managed embedded object",
                "Cannot add an existing managed embedded object to a List.",
                "Cannot add an existing managed embedded object to a Dictionary.", "1", "1",
            ])
    }

    /// RLMUtil.mm's RLMIsObjectValidForProperty / RLMObjcToDecimal128 (what ObjectCreationTests'
    /// decimal values go through): a number or a numeric string is taken for a decimal128.
    func testDecimal128TakesNumbersAndNumericStrings() throws {
        let r = try run(
            shapesLua + """
                shapes:write(function()
                  shapes:create('Owner', { _id = 1, amount = 5 })
                  shapes:create('Owner', { _id = 2, amount = 1.5 })
                  shapes:create('Owner', { _id = 3, amount = '123.456' })
                end)
                local ok, e = pcall(function() shapes:write(function()
                  shapes:create('Owner', { _id = 4, amount = 'abc' }) end) end)
                return tostring(shapes:object('Owner', 1).amount), tostring(shapes:object('Owner', 2).amount),
                  tostring(shapes:object('Owner', 3).amount), ok, e.code
                """)
        XCTAssertEqual(r.map(\.description), ["\"5\"", "\"1.5\"", "\"123.456\"", "false", "\"InvalidArgument\""])
    }

    // MARK: The implicit verbs thaw their arguments

    /// SwiftUI's ObservedResults.append / ObservedRealmObject (`thaw()` of the value before the
    /// write): appending a frozen object or linking one uses its live counterpart.
    func testImplicitVerbsThawFrozenArguments() throws {
        let r = try run(
            """
            realm = Realm()
            local p, d
            realm:write(function()
              p = realm:create('Person', { firstName = 'P' })
              d = realm:create('Dog', { name = 'D' })
            end)
            local frozenDog = d:freeze()
            p.dogs:append(frozenDog)
            realm:objects('Dog'):append(frozenDog)
            local toy
            realm:write(function() toy = realm:create('DogToy', { name = 't' }) end)
            d.favoriteToy = toy:freeze()
            return #p.dogs, #realm:objects('Dog'), d.favoriteToy.name
            """)
        XCTAssertEqual(r.map(\.description), ["1", "1", "\"t\""])
    }

    /// SwiftUI's ObservedResults.remove (thaws the object, then `realm.delete` it): an unmanaged
    /// object fails with realm.delete's "Can only delete an object from the Realm it belongs to.";
    /// a frozen one is removed.
    func testRemovingAnUnmanagedObjectFromResultsRaises() throws {
        let message = failure("realm = Realm(); realm:objects('Dog'):remove(Object('Dog', { name = 'x' }))")
        XCTAssertTrue(message.contains("Can only delete an object from the Realm it belongs to."), message)
        let r = try run(
            """
            local dogs = realm:objects('Dog')
            local d = dogs:append({ name = 'x' })
            dogs:remove(d:freeze())
            return #dogs
            """)
        XCTAssertEqual(r.first?.integerValue, 0)
    }
}
