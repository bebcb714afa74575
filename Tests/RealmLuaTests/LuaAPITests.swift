import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

final class LuaAPITests: LuaTestCase {
    func testImplicitWritesAndReads() throws {
        let r = try run(
            """
            realm = Realm()
            local dogs = realm:objects("Dog")
            dogs:append({ name = "Bandido", age = 3 })
            dogs:append(Object("Dog", { name = "Maui", age = 5 }))
            local maui = dogs:where("name == $0", "Maui")[1]
            maui.age = 6
            return #dogs, dogs[1].name, maui.age, realm.isInWriteTransaction
            """)
        XCTAssertEqual(r.map(\.description), ["2", "\"Bandido\"", "6", "false"])
        // Committed for real: a second instance sees it.
        let other = try Realm(configuration: runtime.swiftDefaultConfiguration)
        XCTAssertEqual(try other.objects("Dog").countObjects(), 2)
    }

    func testTablesPassedAsValuesFollowOneSetOfRules() throws {
        // Appended values are read straight from the Lua stack; nested ones are copied first.
        // Both follow the same rules: a sequence is a list, string keys are fields.
        let r = try run(
            """
            realm = Realm()
            local dogs = realm:objects("Dog")
            local d = dogs:append({ name = "Rex", age = 2, tags = { "a", "b", "c" },
                                    attributes = { color = "red", size = 3 },
                                    favoriteToy = { name = "Ball" } })
            local e = dogs:append({})
            return #d.tags, d.tags[3], d.attributes.color, d.attributes.size, d.favoriteToy.name, e.name, e.age, #dogs
            """)
        XCTAssertEqual(r.map(\.description), ["3", "\"c\"", "\"red\"", "3", "\"Ball\"", "\"\"", "0", "2"])
        let mixing =
            "a table mixing a sequence and named fields cannot be stored: use either a list {a, b} or fields {x = a}"
        XCTAssertTrue(failure("realm:objects('Dog'):append({ 'x', name = 'Rex' })").contains(mixing))
        XCTAssertTrue(failure("realm:objects('Dog'):append({ name = 'Rex', tags = { 'x', y = 1 } })").contains(mixing))
        XCTAssertTrue(
            failure("realm:objects('Dog'):append({ [2] = 'hole' })").contains(
                "table keys must be strings (or a sequence 1..n), got number key 2"))
        XCTAssertTrue(
            failure("realm:objects('Dog'):append({ [true] = 1 })").contains(
                "table keys must be strings (or a sequence 1..n), got boolean key true"))
        XCTAssertTrue(
            failure("local t = { name = 'Loop' }; t.tags = t; realm:objects('Dog'):append(t)").contains(
                "contains itself"))
        XCTAssertTrue(
            failure("realm:objects('Dog'):append({ name = 'Rex', nope = 1 })").contains(
                "Property 'nope' does not exist on object type 'Dog'."))
        // Nothing of the failed appends was written, and the stack is still usable.
        XCTAssertEqual(try run("return #realm:objects('Dog')").first?.integerValue, 2)
    }

    func testWriteBlockRollsBackOnError() throws {
        let message = failure(
            """
            realm = Realm()
            realm:write(function()
              realm:create("Dog", { name = "Ghost" })
              error("boom")
            end)
            """)
        XCTAssertTrue(message.contains("boom"), message)
        XCTAssertEqual(try run("return #Realm():objects('Dog')").first?.integerValue, 0)
    }

    func testFailedChunkRollsBackAnOpenWrite() throws {
        _ = failure(
            """
            realm = Realm()
            realm:beginWrite()
            realm:create("Dog", { name = "Half" })
            error("stop")
            """)
        XCTAssertEqual(
            try run("return realm.isInWriteTransaction, #realm:objects('Dog')").map(\.description), ["false", "0"])
    }

    func testPerUserConfigurationAndDefault() throws {
        try run(
            """
            local config = Realm.Configuration.defaultConfiguration
            config.fileURL = "GordonCole.realm"
            local realm = Realm(config)
            realm:objects("Dog"):append{ name = "Diane" }
            """)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("GordonCole.realm").path))
        XCTAssertEqual(
            try run("return Realm.Configuration.defaultConfiguration.fileURL").first?.stringValue, "default.realm")
        XCTAssertTrue(
            failure("local c = Realm.Configuration.defaultConfiguration; c.fileURL = '/etc/passwd'").contains(
                "must be inside the data folder"))
    }

    func testValueTypes() throws {
        let r = try run(
            """
            local a, b = ObjectId("000000000000000000000001"), ObjectId("000000000000000000000002")
            local d = Date("2024-01-01T00:00:00Z")
            return tostring(a), a < b, a == ObjectId("000000000000000000000001"), tostring(d), d.seconds,
                   tostring(Decimal128("1.5")), tostring(Data("raw")), #Data("raw"),
                   tostring(UUID("3B241101-E2BB-4255-8CAF-4136C566A962"))
            """)
        XCTAssertEqual(
            r.map(\.description),
            [
                "\"000000000000000000000001\"", "true", "true", "\"2024-01-01T00:00:00Z\"", "1704067200",
                "\"1.5\"", "\"raw\"", "3", "\"3B241101-E2BB-4255-8CAF-4136C566A962\"",
            ])
    }

    func testLinksListsBacklinksAndEmbedded() throws {
        let r = try run(
            """
            realm = Realm()
            local person = realm:write(function()
              return realm:create("Person", { firstName = "Dale",
                                              address = { street = "1 Main", city = "Twin Peaks" } })
            end)
            person.dogs:append({ name = "Diane", tags = { "good", "dog" } })
            local dog = person.dogs[1]
            return #person.dogs, dog.tags[2], #dog.owners, dog.owners[1].firstName, person.address.city
            """)
        XCTAssertEqual(r.map(\.description), ["1", "\"dog\"", "1", "\"Dale\"", "\"Twin Peaks\""])
    }

    func testFrozenCompanyThawedForAnExplicitWrite() throws {
        let r = try run(
            """
            realm = Realm()
            realm:write(function()
              realm:create("Company", { companyName = "MongoDB", employees = { { name = "Dachary" } },
                                        dogs = { { name = "Maui" } } })
            end)
            local frozenCompany = realm:objects("Company"):freeze()[1]
            local ok = pcall(function() frozenCompany.companyName = "x" end)
            local live = frozenCompany:thaw()
            local employee = live.employees:where("name == $0", "Dachary")[1]
            local dog = live.dogs:where("name == $0", "Maui")[1]
            realm:write(function() employee.dogs:append(dog) end)
            return ok, #employee.dogs, #frozenCompany.employees[1].dogs
            """)
        XCTAssertEqual(r.map(\.description), ["false", "1", "0"])
    }

    func testAlreadyManagedMessage() throws {
        let message = failure(
            """
            local other = Realm.Configuration.defaultConfiguration
            other.fileURL = "other.realm"
            local o = Realm(other)
            local toy = o:write(function() return o:create("DogToy", { name = "Wubba" }) end)
            Realm():objects("DogToy"):append(toy)
            """)
        XCTAssertTrue(
            message.contains(
                "Object is already managed by another Realm. Use create instead to copy it into this Realm."), message)
    }

    func testMigrationBlockInLua() throws {
        try run("Realm():objects('Dog'):append{ name = 'Maui' }")
        try run(
            """
            local config = Realm.Configuration.defaultConfiguration
            config.schemaVersion = 2
            local schema = config.schema
            schema[1].properties.favoriteTreat = { type = "string", default = "" }
            config.schema = schema
            config.migrationBlock = function(migration, oldSchemaVersion)
              if oldSchemaVersion < 2 then
                migration:enumerateObjects("Dog", function(old, new) new.favoriteTreat = "bone" end)
              end
            end
            Realm.Configuration.defaultConfiguration = config
            """)
        XCTAssertEqual(try run("return Realm():objects('Dog')[1].favoriteTreat").first?.stringValue, "bone")
    }

    func testSubscriptions() throws {
        let r = try run(
            """
            local config = user:flexibleSyncConfiguration{
              initialSubscriptions = function(subs)
                if subs:first("people") == nil then subs:append(QuerySubscription("Person", { name = "people" })) end
                if subs:first("dogs") == nil then
                  subs:append(QuerySubscription("Dog", { name = "dogs", where = "age > 3" }))
                end
              end,
            }
            config.fileURL = "synced.realm"
            local realm = Realm(config)
            local subs = realm.subscriptions
            local ok, err = pcall(function()
              subs:update(function(s) s:append(QuerySubscription("Dog", { name = "dogs" })) end)
            end)
            return #subs, subs:first("dogs").queryString, subs.state, ok, tostring(err), subs.errorMessage == nil
            """)
        XCTAssertEqual(r[0].integerValue, 2)
        XCTAssertEqual(r[1].stringValue, "age > 3")
        XCTAssertEqual(r[2].stringValue, "complete")
        XCTAssertEqual(r[3].boolValue, false)
        XCTAssertTrue(r[4].stringValue?.contains("A subscription named 'dogs' already exists.") == true)
        XCTAssertEqual(r[5].boolValue, true, "a local realm's set has no error")
    }

    func testDeletedObjectHandle() throws {
        let r = try run(
            """
            realm = Realm()
            local dog = realm:write(function() return realm:create("Dog", { name = "Gone" }) end)
            realm:write(function() realm:delete(dog) end)
            local ok, err = pcall(function() return dog.name end)
            return dog.isInvalidated, ok, tostring(err)
            """)
        XCTAssertEqual(r[0].boolValue, true)
        XCTAssertEqual(r[1].boolValue, false)
        XCTAssertTrue(r[2].stringValue?.contains("Object has been deleted or invalidated.") == true)
    }

    func testObserve() throws {
        let r = try run(
            """
            realm = Realm()
            local dogs = realm:objects("Dog")
            local seen = {}
            local token = dogs:observe(function(c) seen[#seen + 1] = c.kind .. ":" .. #c.insertions end)
            dogs:append{ name = "A" }
            dogs:append{ name = "B" }
            token:invalidate()
            dogs:append{ name = "C" }
            return table.concat(seen, ",")
            """)
        XCTAssertEqual(r.first?.stringValue, "initial:0,update:1,update:1")
    }

    func testSortedAndAggregates() throws {
        let r = try run(
            """
            local dogs = Realm():objects("Dog")
            dogs:append{ name = "b", age = 2 } dogs:append{ name = "a", age = 7 } dogs:append{ name = "c", age = 4 }
            local sorted = dogs:sorted("age", false)
            return sorted[1].name, dogs:sorted{ {"name", true} }[1].name, dogs:max("age"), dogs:sum("age"),
                   dogs:average("age")
            """)
        XCTAssertEqual(r.map(\.description), ["\"a\"", "\"a\"", "7", "13", "4.333333333333333"])
    }
}
