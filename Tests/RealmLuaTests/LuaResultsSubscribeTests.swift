import Foundation
import LuaSandbox
import RealmLua
import XCTest

/// `results:subscribe{…}` and `results:unsubscribe()` on a local flexible-sync realm (no server: every
/// set is complete at once, so every wait returns at once).
final class LuaResultsSubscribeTests: LuaTestCase {
    private let openLocal = """
        local config = user:flexibleSyncConfiguration{}
        config.fileURL = "synced.realm"
        local r = Realm(config)
        """

    func testSubscribeAddsTheQueryOnceAndReturnsTheResults() throws {
        let r = try run(
            openLocal + """
                r:write(function() r:create("Dog", { name = "Rex", age = 5 }) end)
                local dogs = r:objects("Dog"):where("age > 3"):subscribe{ name = "dogs", timeout = 1000 }
                local again = r:objects("Dog"):where("age > 3"):subscribe{ name = "dogs", waitForSync = "always" }
                local subs = r.subscriptions
                return #dogs, dogs[1].name, again.className, #subs, subs[1].name, subs[1].objectClassName,
                  subs[1].queryString, subs.state
                """)
        XCTAssertEqual(
            r.map { $0.integerValue.map(String.init) ?? $0.stringValue ?? "?" },
            [
                "1", "Rex", "Dog", "1", "dogs", "Dog", "age > 3", "complete",
            ])
    }

    func testUnnamedSubscriptionsAreFoundByClassAndQueryAndFiltersJoinWithAnd() throws {
        let r = try run(
            openLocal + """
                r:objects("Dog"):subscribe{ waitForSync = "never" }
                r:objects("Dog"):subscribe()
                r:objects("Dog"):where("age > 3"):where("name == 'Rex'"):subscribe()
                local subs = r.subscriptions
                return #subs, subs[1].queryString, subs[1].name == nil, subs[2].queryString
                """)
        XCTAssertEqual(r[0].integerValue, 2, "the same unnamed query is one subscription")
        XCTAssertEqual(r[1].stringValue, "TRUEPREDICATE")
        XCTAssertEqual(r[2].boolValue, true)
        XCTAssertEqual(r[3].stringValue, "(age > 3) AND (name == 'Rex')")
    }

    /// RLMResults subscribes with `updateExisting: true`: a name another query holds is given this
    /// one (`subscriptions:update`'s `append` still raises Realm's error for a taken name).
    func testSubscribingUnderATakenNameGivesThatSubscriptionTheNewQuery() throws {
        let r = try run(
            openLocal + """
                r:objects("Dog"):where("age > 3"):subscribe{ name = "dogs" }
                r:objects("Dog"):where("age > 5"):subscribe{ name = "dogs" }
                local subs = r.subscriptions
                local ok, e = pcall(function()
                  subs:update(function(s) s:append(QuerySubscription("Dog", { name = "dogs" })) end)
                end)
                return #subs, subs[1].name, subs[1].queryString, ok, tostring(e)
                """)
        XCTAssertEqual(r[0].integerValue, 1)
        XCTAssertEqual(r[1].stringValue, "dogs")
        XCTAssertEqual(r[2].stringValue, "age > 5")
        XCTAssertEqual(r[3].boolValue, false)
        XCTAssertTrue(
            r[4].stringValue?.contains("A subscription named 'dogs' already exists.") ?? false, "\(r[4])")
    }

    /// RLMResults' `unsubscribe`: the subscription those results made; results that made none
    /// remove only an unnamed one on their query.
    func testUnsubscribeRemovesTheSubscriptionThoseResultsMade() throws {
        let r = try run(
            openLocal + """
                local named = r:objects("Dog"):where("age > 3"):subscribe{ name = "dogs" }
                r:objects("Dog"):where("age > 3"):subscribe()
                r:objects("Person"):subscribe{ name = "people" }
                local counts = { #r.subscriptions }
                named:unsubscribe()                                   -- "dogs" only
                counts[#counts + 1] = #r.subscriptions
                r:objects("Person"):unsubscribe()                     -- named: its owner's, left
                counts[#counts + 1] = #r.subscriptions
                r:objects("Dog"):where("age > 3"):unsubscribe()       -- the unnamed one on the query
                counts[#counts + 1] = #r.subscriptions
                r:objects("Dog"):where("age > 9"):unsubscribe()       -- none: nothing
                local subs = r.subscriptions
                return table.concat(counts, ","), #subs, subs[1].name
                """)
        XCTAssertEqual(r[0].stringValue, "3,2,2,1")
        XCTAssertEqual(r[1].integerValue, 1)
        XCTAssertEqual(r[2].stringValue, "people")
    }

    /// With `onCreation` a subscription that already is the results' query is not written again;
    /// `never` (like `always`) writes it again.
    func testOnCreationLeavesAnExistingSubscriptionAsItIs() throws {
        let r = try run(
            openLocal + """
                r:objects("Dog"):subscribe{ name = "all" }
                local first = r.subscriptions[1].updatedAt
                r:objects("Dog"):subscribe{ name = "all" }
                local second = r.subscriptions[1].updatedAt
                r:objects("Dog"):subscribe{ name = "all", waitForSync = "never" }
                return first == second, r.subscriptions[1].updatedAt == second
                """)
        XCTAssertEqual(r[0].boolValue, true)
        XCTAssertEqual(r[1].boolValue, false)
    }

    /// Arguments are written into the subscription's query as literals that select the same objects.
    func testArgumentsAreWrittenInAsLiteralsThatMeanTheSame() throws {
        let r = try run(
            openLocal + """
                r:write(function()
                  r:create("Dog", { name = 'Say "hi" \\\\ \\n', age = 4, weight = 1.5, breed = "Mutt",
                    tags = { "a" }, _id = UUID("0B6C4F5E-8F0A-4D5B-9C1E-2A3B4C5D6E7F") })
                  r:create("Dog", { name = "Other", age = 9, weight = 30.25 })
                end)
                local cases = {
                  { "name == $0", 'Say "hi" \\\\ \\n' }, { "age > $0 AND weight < $1", 3, 2.5 },
                  { "breed == $0", nil }, { "weight == $0", 30.25 }, { "_id == $0", UUID("0B6C4F5E-8F0A-4D5B-9C1E-2A3B4C5D6E7F") },
                  { "age IN $0", { 4, 5 } }, { "weight > $0", -1e300 },
                }
                local out = {}
                for i, c in ipairs(cases) do
                  local results = r:objects("Dog"):where(c[1], c[2], c[3])
                  results:subscribe{ name = "case" .. i }
                  local text = r.subscriptions:first("case" .. i).queryString
                  out[#out + 1] = text .. " => " .. #results .. "/" .. #r:objects("Dog"):where(text)
                end
                return table.concat(out, "\\n")
                """
        ).first?.stringValue
        XCTAssertEqual(
            r,
            """
            name == "Say \\"hi\\" \\\\ \\n" => 1/1
            age > 3 AND weight < 2.5 => 1/1
            breed == null => 1/1
            weight == 30.25 => 1/1
            _id == uuid(0b6c4f5e-8f0a-4d5b-9c1e-2a3b4c5d6e7f) => 1/1
            age IN {4, 5} => 1/1
            weight > -1e+300 => 2/2
            """)
    }

    func testWhatCannotBeASubscriptionSaysWhy() throws {
        let objectArgument = failure(
            openLocal + """
                local p = r:write(function() return r:create("Person", { firstName = "A", lastName = "B" }) end)
                r:objects("Dog"):where("ANY owners == $0", p):subscribe()
                """)
        XCTAssertTrue(objectArgument.contains("an object or a dictionary as an argument"), objectArgument)
        XCTAssertTrue(
            failure(openLocal + "r:objects('Dog'):subscribe{ waitForSync = 'sometimes' }")
                .contains("waitForSync must be one of 'onCreation', 'always', 'never'"))
        XCTAssertTrue(failure(openLocal + "r:objects('Dog'):subscribe{ name = {} }").contains("name must be a string"))
        XCTAssertTrue(
            failure(openLocal + "r:objects('Dog'):subscribe{ timeout = -1 }").contains("results:subscribe: timeout"))
        let collection = failure(
            openLocal + """
                local p = r:write(function() return r:create("Person", { firstName = "A", lastName = "B" }) end)
                p.dogs:where("age > 1"):subscribe()
                """)
        XCTAssertTrue(collection.contains("not a collection's objects"), collection)
        XCTAssertEqual(try run(openLocal + "return #r.subscriptions").first?.integerValue, 0)
    }
}
