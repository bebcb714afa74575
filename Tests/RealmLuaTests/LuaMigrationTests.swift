import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

/// The migration API through Lua, as Realm's migration tests exercise it.
final class LuaMigrationTests: LuaTestCase {
    /// A Lua function `openAt(schema, version, block)` opening "default.mig.realm" with that schema.
    private let prelude = """
        function openAt(schema, version, block)
          local c = Realm.Configuration.defaultConfiguration
          c.fileURL = "default.mig.realm"
          c.schema = schema
          c.schemaVersion = version
          c.migrationBlock = block
          return Realm(c)
        end

        """

    private func migrate(_ code: String, file: StaticString = #filePath, line: UInt = #line) throws -> [LuaValue] {
        try run(prelude + code, file: file, line: line)
    }

    private func strings(_ values: [LuaValue]) -> [String] { values.map { $0.stringValue ?? $0.description } }

    // MARK: the migration's transaction

    /// A migration block cannot end the migration's one transaction through the realm it reaches
    /// (`new.realm`, or an object `migration:create` returns), and a handle to that realm kept past
    /// the migration cannot write: Realm's migration realm is inside its write for the whole block.
    /// Before, `commitWrite` there committed half a migration and a later failure left an extra
    /// column that made every later open fail.
    func testABlockCannotEndTheMigrationsTransaction() throws {
        let r = try migrate(
            """
            local v1 = { { name = "Dog", properties = { name = "string", age = "int" } } }
            local v2 = { { name = "Dog", properties = { name = "string", age = "string" } } }
            local realm = openAt(v1, 1)
            realm:write(function() realm:create("Dog", { name = "a", age = 3 }) end)
            realm = nil
            local results = {}
            local ok, err = pcall(openAt, v2, 2, function(m)
              m:enumerateObjects("Dog", function(old, new) new.age = tostring(old.age) end)
              local created = m:create("Dog", { name = "x", age = "1" })
              local c1, e1 = pcall(function() created.realm:commitWrite() end)
              local c2, e2 = pcall(function() created.realm:cancelWrite() end)
              local c3, e3 = pcall(function() created.realm:beginWrite() end)
              results = { c1, e1.code, c2, e2.code, c3, e3.code }
              kept = created.realm
              error("late failure")
            end)
            -- The failed migration left the file at version 1, whole: it opens again at version 2.
            local again = openAt(v2, 2, function(m)
              m:enumerateObjects("Dog", function(old, new) new.age = tostring(old.age) end)
            end)
            local dogs = again:objects("Dog")
            local keptOk, keptErr = pcall(function() kept:write(function() end) end)
            return ok, results[1], results[2], results[3], results[4], results[5], results[6],
              #dogs, dogs[1].age, keptOk, keptErr.code
            """)
        XCTAssertEqual(
            strings(r),
            [
                "false", "false", "WrongTransactionState", "false", "WrongTransactionState", "false",
                "WrongTransactionState", "1", "3", "false", "WrongTransactionState",
            ])
    }

    // MARK: enumerateObjects

    /// realm-swift `testEnumerateObjectsAfterDeleteData` and `testEnumerateObjectsAfterDeleteInsertObjects`:
    /// enumeration walks the objects the file held before the migration; objects created in the block are
    /// not enumerated later (only a class new in this version enumerates what the block created, as
    /// RLMMigration does). A class neither schema knows raises (our choice: see LUA-API.md).
    func testEnumerateWalksTheObjectsOfTheOldFile() throws {
        let r = try migrate(
            """
            local v1 = { { name = "Item", properties = { name = "string" } } }
            local v2 = { { name = "Item", properties = { name = "string" } },
                         { name = "Fresh", properties = { name = "string" } } }
            local realm = openAt(v1, 1)
            realm:write(function()
              realm:create("Item", { name = "a" })
              realm:create("Item", { name = "b" })
            end)
            realm = nil
            local before, after, fresh, unknownOk, unknownErr
            openAt(v2, 2, function(migration)
              migration:create("Item", { name = "created" })
              before = 0
              migration:enumerateObjects("Item", function(old, new) before = before + 1 end)
              migration:create("Fresh", { name = "f" })
              fresh = 0
              migration:enumerateObjects("Fresh", function(old, new) fresh = fresh + (old == nil and 1 or 0) end)
              migration:deleteData("Item")
              migration:create("Item", { name = "again" })
              after = 0
              migration:enumerateObjects("Item", function() after = after + 1 end)
              unknownOk, unknownErr = pcall(function()
                migration:enumerateObjects("Nope", function() end)
              end)
            end)
            return before, fresh, after, unknownOk, tostring(unknownErr)
            """)
        XCTAssertEqual(strings(Array(r.prefix(4))), ["2", "1", "0", "false"])
        XCTAssertTrue(strings(r)[4].contains("Cannot enumerate objects of type 'Nope'"), strings(r)[4])
    }

    // MARK: deleteData

    /// realm-swift `testDeleteData` / Realm `testRemovingSubclass`: deleteData of a class only the new
    /// schema has (its objects made earlier in the block) deletes them and returns true; of an unknown
    /// class, false. A class removed with deleteData has no data when a later version brings it back.
    func testDeleteDataOfANewClassAndOfARemovedOne() throws {
        let r = try migrate(
            """
            local gone = { name = "Gone", properties = { id = "int" } }
            local item = { name = "Item", properties = { name = "string" } }
            local realm = openAt({ gone, item }, 1)
            realm:write(function() realm:create("Gone", { id = 1 }); realm:create("Gone", { id = 2 }) end)
            realm = nil
            local deletedNew, deletedGone, deletedUnknown
            realm = openAt({ item, { name = "Fresh", properties = { name = "string" } } }, 2, function(m)
              m:create("Fresh", { name = "made in the block" })
              deletedNew = m:deleteData("Fresh")
              deletedGone = m:deleteData("Gone")
              deletedUnknown = m:deleteData("Nope")
            end)
            local fresh = #realm:objects("Fresh")
            realm = nil
            realm = openAt({ gone, item }, 3)
            return deletedNew, deletedGone, deletedUnknown, fresh, #realm:objects("Gone")
            """)
        XCTAssertEqual(strings(r), ["true", "true", "false", "0", "0"])
    }

    // MARK: Optional to required

    /// realm-core migrations.cpp "values for nullable properties are discarded when converting to
    /// required": the column is dropped and re-added, so every object reads the type's default, those
    /// that held a value too. In the block the old object still reads the old value, and the new
    /// object may be given one.
    func testOptionalMadeRequiredResetsEveryValue() throws {
        let r = try migrate(
            """
            local realm = openAt(
              { { name = "Thing", properties = { id = "int", value = "int?", note = "string?" } } }, 1)
            realm:write(function()
              realm:create("Thing", { id = 1, value = 10, note = "kept?" })
              realm:create("Thing", { id = 2, value = nil })
            end)
            realm = nil
            local oldValues = {}
            realm = openAt({ { name = "Thing", properties = { id = "int", value = "int", note = "string" } } }, 2,
              function(m)
                m:enumerateObjects("Thing", function(old, new)
                  oldValues[#oldValues + 1] = tostring(old.value) .. "/" .. tostring(new.value)
                  if old.id == 2 then new.note = "set in the block" end
                end)
              end)
            local things = realm:objects("Thing"):sorted("id")
            return things[1].value, things[1].note, things[2].value, things[2].note, table.concat(oldValues, ",")
            """)
        XCTAssertEqual(strings(r), ["0", "", "0", "set in the block", "10/0,nil/0"])
    }

    // MARK: Embedded conversion

    /// Realm `testChangeToEmbeddedWithMultipleBacklinksHandledAutomatically`: a class made embedded
    /// whose object has two parents gives each parent its own copy; an object no parent links to is
    /// deleted (realm-core's `Table::set_embedded` with backlinks handled automatically).
    func testConvertingToEmbeddedCopiesAnObjectWithSeveralParents() throws {
        let r = try migrate(
            """
            local function schema(embedded)
              return {
                { name = "Child", embedded = embedded, properties = { intCol = "int" } },
                { name = "Parent", primaryKey = "pk",
                  properties = { pk = "int", object = "Child?", children = "Child[]" } },
              }
            end
            local realm = openAt(schema(false), 1)
            realm:write(function()
              local shared = realm:create("Child", { intCol = 42 })
              realm:create("Parent", { pk = 1, object = shared })
              realm:create("Parent", { pk = 2, object = shared, children = { shared, { intCol = 7 } } })
              realm:create("Child", { intCol = 99 })
            end)
            realm = nil
            local enumerated = 0
            realm = openAt(schema(true), 2, function(m)
              m:enumerateObjects("Child", function(old, new) enumerated = enumerated + 1 end)
            end)
            local p1 = realm:objects("Parent"):where("pk == 1")[1]
            local p2 = realm:objects("Parent"):where("pk == 2")[1]
            realm:write(function() p1.object.intCol = 1; p2.object.intCol = 2 end)
            return p1.object.intCol, p2.object.intCol, p2.children[1].intCol, p2.children[2].intCol, enumerated
            """)
        // The block enumerates the three children the file held (Realm
        // `testChangeTableToEmbeddedWithOnlyOneLinkPerObject` enumerates the class being converted).
        XCTAssertEqual(strings(r), ["1", "2", "42", "7", "3"])
    }

    // MARK: Rename chains

    /// realm-core migrations.cpp "chained rename": `value → a → b → new` in one block keeps the values,
    /// and the intermediate names are not properties afterwards.
    func testRenameChainInOneBlock() throws {
        let r = try migrate(
            """
            local realm = openAt({ { name = "Obj", properties = { value = "int" } } }, 1)
            realm:write(function() realm:create("Obj", { value = 10 }) end)
            realm = nil
            local oldValue
            realm = openAt({ { name = "Obj", properties = { new = "int" } } }, 2, function(m)
              m:renameProperty("Obj", "value", "a")
              m:renameProperty("Obj", "a", "b")
              m:renameProperty("Obj", "b", "new")
              m:enumerateObjects("Obj", function(old, new) oldValue = old.value end)
            end)
            local obj = realm:objects("Obj")[1]
            local okA = pcall(function() return obj.a end)
            local okB = pcall(function() return obj.b end)
            return obj.new, oldValue, okA, okB
            """)
        XCTAssertEqual(strings(r), ["10", "10", "false", "false"])
    }
}
