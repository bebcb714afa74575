import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

final class LuaCollectionsAndValuesTests: LuaTestCase {
    func testSetsAndMaps() throws {
        let r = try run(
            """
            realm = Realm()
            local dog = realm:write(function()
              return realm:create("Dog", { name = "Rex", nicknames = { "r", "rexy" },
                                           attributes = { color = "brown", age = 3 } })
            end)
            dog.nicknames:insert("r")            -- already there
            dog.nicknames:insert("king")
            dog.nicknames:remove("rexy")
            dog.attributes.size = 1.5
            dog.attributes.color = nil           -- removes the key
            local keys = {}
            for k, v in pairs(dog.attributes) do keys[#keys + 1] = k .. "=" .. tostring(v) end
            return #dog.nicknames, dog.nicknames:contains("king"), dog.nicknames:contains("rexy"),
                   table.concat(keys, ","), #dog.attributes
            """)
        XCTAssertEqual(r.map(\.description), ["2", "true", "false", "\"age=3,size=1.5\"", "2"])
    }

    func testListMutations() throws {
        let r = try run(
            """
            realm = Realm()
            local dog = realm:write(function()
              return realm:create("Dog", { name = "Rex", tags = { "a", "b", "c" } })
            end)
            dog.tags:insert("z", 1)
            dog.tags:move(1, 4)
            dog.tags:remove(2)
            dog.tags[1] = "A"
            local out = {}
            for i, t in ipairs(dog.tags) do out[i] = t end
            dog.tags:removeAll()
            return table.concat(out, ","), #dog.tags
            """)
        XCTAssertEqual(r.map(\.description), ["\"A,c,z\"", "0"])
    }

    func testMixedValuesKeepTheirTypes() throws {
        let r = try run(
            """
            realm = Realm()
            local toy, dog
            realm:write(function()
              toy = realm:create("DogToy", { name = "Wubba" })
              dog = realm:create("Dog", { name = "Rex", attributes = {
                i = 1, d = 1.5, s = "x", b = true, date = Date(5, 0), oid = ObjectId("000000000000000000000001"),
                toy = toy, dec = Decimal128("2.5") } })
            end)
            local a = dog.attributes
            return math.type(a.i), math.type(a.d), a.s, a.b, a.date.seconds, tostring(a.oid), a.toy.name,
                   tostring(a.dec)
            """)
        XCTAssertEqual(
            r.map(\.description),
            ["\"integer\"", "\"float\"", "\"x\"", "true", "5", "\"000000000000000000000001\"", "\"Wubba\"", "\"2.5\""])
    }

    func testUpdatePolicies() throws {
        let r = try run(
            """
            realm = Realm()
            local id = ObjectId("000000000000000000000007")
            realm:beginWrite()
            realm:create("DogToy", { _id = id, name = "Ball" })
            local ok, err = pcall(function() realm:create("DogToy", { _id = id, name = "Bone" }) end)
            realm:create("DogToy", { _id = id, name = "Bone" }, "modified")
            local unmanaged = Object("DogToy", { _id = id, name = "Rope" })
            realm:add(unmanaged, "all")
            local bad = pcall(function() realm:create("DogToy", {}, "sometimes") end)
            realm:commitWrite()
            return ok, tostring(err), #realm:objects("DogToy"), realm:object("DogToy", id).name, bad
            """)
        XCTAssertEqual(r[0].boolValue, false)
        XCTAssertTrue(
            r[1].stringValue?.contains(
                "Attempting to create an object of type 'DogToy' with an existing primary key value") == true,
            r[1].description)
        XCTAssertEqual(r[2].integerValue, 1)
        XCTAssertEqual(r[3].stringValue, "Rope")
        XCTAssertEqual(r[4].boolValue, false)
    }

    func testResultsRemoveAndDeleteForms() throws {
        let r = try run(
            """
            realm = Realm()
            local dogs = realm:objects("Dog")
            for i = 1, 5 do dogs:append{ name = "d" .. i, age = i } end
            dogs:remove(1)                         -- by index
            dogs:remove(dogs:where("name == 'd2'")[1])  -- by object
            realm:write(function() realm:delete(dogs:where("age == 3")) end)  -- results
            local left = {}
            for _, d in pairs(dogs) do left[#left + 1] = d.name end
            realm:write(function() realm:deleteAll() end)
            return table.concat(left, ","), #dogs
            """)
        XCTAssertEqual(r.map(\.description), ["\"d4,d5\"", "0"])
    }

    func testConfigurationFieldsAndSchema() throws {
        let r = try run(
            """
            local c = Realm.Configuration.defaultConfiguration
            c.inMemoryIdentifier = "scratch"
            local realm = Realm(c)
            realm:objects("Dog"):append{ name = "Mem" }
            local same = Realm(c)
            local classes = {}
            for _, cls in ipairs(realm.schema) do classes[#classes + 1] = cls.name end
            local errors = {}
            for _, f in ipairs{ function() c.schemaVersion = -1 end, function() c.readOnly = "yes" end,
                                function() c.nope = 1 end } do
              local ok, e = pcall(f); errors[#errors + 1] = tostring(e)
            end
            return #same:objects("Dog"), c.fileURL, table.concat(classes, ","), table.concat(errors, " | ")
            """)
        XCTAssertEqual(r[0].integerValue, 1)
        XCTAssertTrue(r[1].isNil)
        XCTAssertEqual(r[2].stringValue, "Dog,DogToy,Person,Address,Company,Employee")
        let errors = r[3].stringValue ?? ""
        XCTAssertTrue(errors.contains("schemaVersion must be a non-negative integer"), errors)
        XCTAssertTrue(errors.contains("readOnly must be a boolean"), errors)
        XCTAssertTrue(errors.contains("has no field 'nope'"), errors)
    }

    func testBadSchemaNamesTheClassAndProperty() throws {
        let message = failure(
            "local c = Realm.Configuration.defaultConfiguration; "
                + "c.schema = { { name = 'Cat', properties = { age = 'integer' } } }"
        )
        XCTAssertTrue(message.contains("Cat") && message.contains("age"), message)
    }

    func testDatabaseErrorsComeThroughWithTheirMessage() throws {
        XCTAssertTrue(failure("Realm():objects('Cat')").contains("Object type 'Cat' is not managed by the Realm."))
        XCTAssertTrue(
            failure("Realm():objects('Dog'):append{ age = 'old' }").contains(
                "Invalid value 'old' of type 'string' for 'int' property 'Dog.age'."))
        XCTAssertTrue(
            failure("local r = Realm(); r:write(function() r:write(function() end) end)").contains(
                "The Realm is already in a write transaction"))
    }

    func testObjectPairsAndToTable() throws {
        let r = try run(
            """
            local dog = Realm():objects("Dog"):append{ name = "Rex", age = 4, tags = { "x" } }
            local names = {}
            for k in pairs(dog) do names[#names + 1] = k end
            local t = dog:toTable()
            return #names, t.name, t.age, t.tags[1], tostring(dog):sub(1, 4)
            """)
        XCTAssertEqual(r.map(\.description), ["10", "\"Rex\"", "4", "\"x\"", "\"Dog{\""])
    }

    func testObjectObserverSeesOldAndNewValues() throws {
        let r = try run(
            """
            realm = Realm()
            local dog = realm:objects("Dog"):append{ name = "Rex", age = 1 }
            local seen = {}
            local token = dog:observe(function(c)
              if c.kind == "change" then
                for _, p in ipairs(c.properties) do
                  seen[#seen + 1] = p.name .. ":" .. tostring(p.oldValue) .. "->" .. tostring(p.newValue)
                end
              else seen[#seen + 1] = c.kind end
            end)
            dog.age = 2
            realm:write(function() realm:delete(dog) end)
            return table.concat(seen, ",")
            """)
        // No old value for a local change, as Realm (issue 13: `testModifyObservedObjectLocally`).
        XCTAssertEqual(r.first?.stringValue, "age:nil->2,deleted")
    }
}
