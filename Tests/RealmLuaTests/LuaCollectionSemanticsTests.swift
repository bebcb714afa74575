import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

/// Collections, subscriptions and notifications behaving as Realm's own tests expect (issue 13).
final class LuaCollectionSemanticsTests: LuaTestCase {
    /// A realm with sets and maps of objects and collections of values, in memory.
    static let bagRealm = """
        local bags = Realm(Realm.Configuration{ inMemoryIdentifier = "bags", schema = {
          { name = "Item", properties = { name = "string", price = "int", child = "Child?" } },
          { name = "Child", properties = { v = "int" } },
          { name = "Bag", properties = { items = "Item<>", byName = "Item{}", list = "Item[]", ints = "int[]",
              intSet = "int<>", intMap = "int{}", names = "string[]" } },
        } })
        local bag
        bags:write(function()
          bag = bags:create("Bag", {})
          for i, p in ipairs({ 3, 1, 2, 3 }) do
            local item = bags:create("Item", { name = "i" .. i, price = p })
            bag.items:insert(item)
            bag.byName["k" .. i] = item
            bag.list:append(item)
          end
          for _, v in ipairs({ 4, 8, 6, 10 }) do bag.ints:append(v); bag.intSet:insert(v) end
          bag.intMap.a = 7; bag.intMap.b = 2; bag.intMap.c = 9
        end)

        """

    // MARK: Iteration

    /// Follows Realm/Tests/ResultsTests.m `testEnumerateAndDeleteTableResults`: deleting each
    /// object while iterating all of them visits every object once.
    func testIpairsAndPairsOverResultsWalkASnapshotWhileDeleting() throws {
        let r = try run(
            """
            realm = Realm()
            realm:write(function() for i = 1, 40 do realm:create("Dog", { name = "d" .. i, age = i }) end end)
            local seen = 0
            realm:write(function()
              for _, dog in ipairs(realm:objects("Dog")) do seen = seen + 1; realm:delete(dog) end
            end)
            local left = #realm:objects("Dog")
            realm:write(function() for i = 1, 10 do realm:create("Dog", { name = "e" .. i }) end end)
            local dogs = realm:objects("Dog")
            local seenPairs = 0
            for _, dog in pairs(dogs) do seenPairs = seenPairs + 1; dogs:remove(dog) end
            return seen, left, seenPairs, #dogs
            """)
        XCTAssertEqual(r.map(\.description), ["40", "0", "10", "0"])
    }

    /// Follows RealmSwift/Tests/ListTests.swift `testFastEnumerationWithMutation`: appending while
    /// iterating a list visits the elements the list had when the loop started.
    func testListIterationWithAppendNeitherSkipsNorRepeats() throws {
        let r = try run(
            Self.bagRealm + """
                local s = ""
                for _, v in ipairs(bag.ints) do s = s .. v .. ","; bag.ints:append(1) end
                local names = ""
                for _, item in pairs(bag.list) do names = names .. item.name; bag.list:append(item) end
                local setCount = 0
                for _ in ipairs(bag.items) do setCount = setCount + 1; bag.items:insert(bags:objects("Item")[1]) end
                return s, names, #bag.ints, #bag.list, setCount
                """)
        XCTAssertEqual(r.map(\.description), ["\"4,8,6,10,\"", "\"i1i2i3i4\"", "8", "8", "4"])
    }

    // MARK: Sets and maps read like results

    /// Follows RealmSwift/Tests/MapTests.swift `testFilter` (filter and sorted over a map of
    /// objects) and the aggregate tests of PrimitiveMutableSetTests/PrimitiveMapTests
    /// (`testMin`, `testSum`), applied to sets and maps of objects and of values.
    func testSetsAndMapsOfObjectsQuerySortDistinctAndAggregate() throws {
        let r = try run(
            Self.bagRealm + """
                return #bag.items:where("price >= 2"), bag.items:sorted("price")[1].price,
                       #bag.items:distinct("price"), bag.items:min("price"), bag.items:max("price"),
                       bag.items:sum("price"), bag.items:average("price"),
                       bag.byName:where("price == 3"):count(), bag.byName:sorted("name", false)[1].name,
                       #bag.byName:distinct("price"), bag.byName:sum("price")
                """)
        XCTAssertEqual(
            r.map(\.description), ["3", "1", "3", "1", "3", "9", "2.25", "2", "\"i4\"", "3", "9"])
    }

    /// Follows RealmSwift/Tests/PrimitiveMutableSetTests.swift and PrimitiveMapTests.swift
    /// `testMin`/`testMax`/`testSum`/`testAverage`: sets and maps of values aggregate their values.
    func testSetsAndMapsOfValuesAggregate() throws {
        let r = try run(
            Self.bagRealm + """
                return bag.intSet:min(), bag.intSet:max(), bag.intSet:sum(), bag.intSet:average(),
                       bag.intMap:min(), bag.intMap:max(), bag.intMap:sum(), bag.intMap:average(),
                       bag.intMap:get("sum"), bag.intMap.a
                """)
        XCTAssertEqual(r.map(\.description), ["4", "10", "28", "7.0", "2", "9", "18", "6.0", "nil", "7"])
    }

    /// The new verbs are declared in the bindings: completion lists them on sets and maps and
    /// follows `where` to Results of the set's class (issue 13: sets and maps read like results).
    func testCompletionKnowsTheSetAndMapVerbs() throws {
        try run(Self.bagRealm.replacingOccurrences(of: "local bag\n", with: "") + "b = bag")
        for receiver in ["b.items", "b.byName", "b.intSet"] {
            let methods = runtime.memberNames(of: receiver, methodsOnly: true)
            XCTAssertTrue(
                ["where", "sorted", "distinct", "sum"].allSatisfy(methods.contains), "\(receiver): \(methods)")
        }
        XCTAssertEqual(runtime.objectSchema(ofReceiver: "b.items:where('price > 1')")?.className, "Item")
        XCTAssertEqual(runtime.objectSchema(ofReceiver: "b.byName:sorted('price')")?.className, "Item")
    }

    // MARK: Lists of values

    /// Follows RealmSwift/Tests/PrimitiveListTests.swift `testFirst`, `testLast`, `testIndexOf`,
    /// `testSum`, and ListTests.swift's `obj.int.index(matching: "self == 7")`: a list of values
    /// reads its ends, finds a value, aggregates, and is queried through `self`.
    func testListsOfValuesReadEndsAndQuerySelf() throws {
        let r = try run(
            Self.bagRealm + """
                local big = bag.ints:where("self > 5")
                local named = bag.names:first()
                return bag.ints:first(), bag.ints:last(), bag.ints:indexOf(6), bag.ints:sum(),
                       table.concat(big, ","), #bag.ints:where("self BETWEEN {$0, $1}", 5, 8), named,
                       #bag.names:where("self BEGINSWITH 'x'")
                """)
        XCTAssertEqual(r.map(\.description), ["4", "10", "3", "28", "\"8,6,10\"", "2", "nil", "0"])
    }

    // MARK: Distinct and sorted

    /// Follows RealmSwift/Tests/RealmCollectionTypeTests.swift `testDistinctResultsUsingKeyPaths`:
    /// `distinct(by: ["childIntCol.intCol"])` drops the object whose `childIntCol` is nil, and
    /// distinct on a link, an aggregate or a list property raises.
    func testDistinctThroughANullLinkDropsTheObject() throws {
        let r = try run(
            Self.bagRealm + """
                bags:write(function()
                  local items = bags:objects("Item"):sorted("name")
                  items[1].child = bags:create("Child", { v = 1 })
                  items[2].child = bags:create("Child", { v = 1 })
                  items[3].child = bags:create("Child", { v = 2 })
                end)
                local d = bags:objects("Item"):distinct("child.v")
                local sortedAll = bags:objects("Item"):sorted("child.v")
                return #d, d[1].name, d[2].name, #sortedAll
                """)
        XCTAssertEqual(r.map(\.description), ["2", "\"i1\"", "\"i3\"", "4"])
        for (verb, path, message) in [
            ("distinct", "child", "property 'Item.child' of type 'object' cannot be the final property"),
            ("distinct", "@sum.price", "Cannot distinct on key path '@sum.price': KVC collection operators"),
            ("distinct", "list", "property 'Bag.list' is of unsupported type 'array'."),
            ("sorted", "items.price", "Cannot sort on key path 'items.price': property 'Bag.items' is of "),
            ("sorted", "list.@count", "Cannot sort on key path 'list.@count': KVC collection operators"),
        ] {
            let receiver = path == "child" || path.hasPrefix("@") ? "Item" : "Bag"
            let message2 = failure(Self.bagRealm + "bags:objects('\(receiver)'):\(verb)('\(path)')")
            XCTAssertTrue(message2.contains(message), message2)
        }
    }

    /// Follows Realm/Tests/QueryTests.m `testSortByNoColumns`… and RealmCollectionTypeTests
    /// `testSortWithProperty`: "Cannot sort on key path 'x': property 'Class.x' does not exist."
    func testSortingOnAMissingPropertyUsesRealmsWording() throws {
        let message = failure("Realm():objects('Dog'):sorted('noSuchCol')")
        XCTAssertTrue(
            message.contains("Cannot sort on key path 'noSuchCol': property 'Dog.noSuchCol' does not exist."), message)
        let distinct = failure("Realm():objects('Dog'):distinct('owners')")
        XCTAssertTrue(distinct.contains("property 'Dog.owners' is of unsupported type 'linking objects'."), distinct)
    }

    // MARK: Subscriptions

    /// Follows Realm/ObjectServerTests/SwiftFlexibleSyncServerTests.swift
    /// `testAddSubscriptionsInDifferentBlocks` and `testFindSubscriptionByName`: the set object
    /// shows what its own `update` did.
    func testSubscriptionSetReflectsItsOwnUpdate() throws {
        let r = try run(
            """
            realm = Realm()
            local subs = realm.subscriptions
            local before = subs.version
            subs:update(function(s) s:append(QuerySubscription("Dog", { name = "dogs", where = "age > 3" })) end)
            subs:update(function(s) s:append(QuerySubscription("Person")) end)
            return #subs, subs:first("dogs").queryString, subs.state, subs.version - before
            """)
        XCTAssertEqual(r.map(\.description), ["2", "\"age > 3\"", "\"complete\"", "2"])
    }

    /// Follows SwiftFlexibleSyncServerTests.swift `skip_testSameNamedSubscriptionThrows`: a
    /// duplicate name inside `update` raises, and the set stays as it was.
    func testDuplicateSubscriptionNameLeavesTheSetAsItWas() throws {
        let r = try run(
            """
            realm = Realm()
            local subs = realm.subscriptions
            subs:update(function(s) s:append(QuerySubscription("Dog", { name = "a" })) end)
            local version = subs.version
            local ok, e = pcall(function()
              subs:update(function(s)
                s:append(QuerySubscription("Person", { name = "b" }))
                s:append(QuerySubscription("Dog", { name = "a", where = "age > 1" }))
              end)
            end)
            local inside
            subs:update(function(s)
              inside = pcall(s.append, s, QuerySubscription("Dog", { name = "a", where = "age > 2" }))
            end)
            local fresh = realm.subscriptions
            return ok, e.code, #subs, subs.version - version, fresh:first("b") == nil,
                   fresh:first("a").queryString, inside, #fresh
            """)
        XCTAssertEqual(
            r.map(\.description),
            ["false", "\"SubscriptionFailed\"", "1", "1", "true", "\"TRUEPREDICATE\"", "false", "1"])
    }

    // MARK: Notifications

    /// Follows RealmSwift/Tests/ObjectTests.swift `testModifyObservedObjectLocally`: a change made
    /// on the observing thread reports no old value.
    func testLocalChangeReportsNoOldValue() throws {
        let r = try run(
            """
            realm = Realm()
            local dog
            realm:write(function() dog = realm:create("Dog", { name = "Rex", age = 1 }) end)
            local seen = {}
            local token = dog:observe(function(c)
              for _, p in ipairs(c.properties or {}) do
                seen[#seen + 1] = p.name .. ":" .. tostring(p.oldValue) .. "->" .. tostring(p.newValue)
              end
            end)
            realm:write(function() dog.age = 2 end)
            return table.concat(seen, ",")
            """)
        XCTAssertEqual(r.first?.stringValue, "age:nil->2")
    }

    /// Follows Realm/Tests/RealmTests.mm and ResultsTests.m (`testFrozen…`): observing a frozen
    /// realm, frozen results or a frozen object raises Realm's message.
    func testObservingFrozenDataRaises() throws {
        let message = "Frozen Realms do not change and do not have change notifications."
        for target in ["frozen", "frozen:objects('Dog')", "frozen:objects('Dog'):sorted('age')"] {
            let text = failure(
                "realm = Realm(); local frozen = realm:freeze(); \(target):observe(function() end)")
            XCTAssertTrue(text.contains(message), "\(target): \(text)")
        }
    }
}
