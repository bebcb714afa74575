import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

/// `min`/`max`/`sum`/`average` of mixed properties and of lists, sets and maps of values from Lua:
/// decimals stay decimals (NaN skipped), dates have a min and a max, and mixed values aggregate
/// their numbers only.
final class LuaAggregateTests: LuaTestCase {
    /// Opens `agg.realm` with a class `P` of value collections as the global `realm2`, and runs `code`.
    private func runWithBags(_ code: String) throws -> [String] {
        let r = try run(
            """
            local c = Realm.Configuration.defaultConfiguration
            c.fileURL = "agg.realm"
            c.schema = { { name = "P", properties = {
              id = "int", m = "mixed", d = "decimal128[]", t = "date[]", ms = "mixed[]", f = "float[]",
              ints = "int[]", ds = "decimal128<>", dm = "decimal128{}" } } }
            realm2 = Realm(c)
            \(code)
            """)
        return r.map(\.description)
    }

    func testDecimalListsSumAsDecimalsAndSkipNaN() throws {
        let r = try runWithBags(
            """
            local p = realm2:write(function()
              return realm2:create("P", { id = 1, d = { Decimal128("0.1"), Decimal128("0.2"), Decimal128("NaN") },
                ds = { Decimal128("0.1"), Decimal128("0.2"), Decimal128("NaN") },
                dm = { a = Decimal128("0.1"), b = Decimal128("0.2"), c = Decimal128("NaN") } })
            end)
            return tostring(p.d:sum()), p.d:sum() == Decimal128("0.3"), tostring(p.d:average()),
              tostring(p.d:min()), tostring(p.d:max()), tostring(p.ds:sum()), tostring(p.dm:average())
            """)
        XCTAssertEqual(
            r, ["\"0.3\"", "true", "\"0.15\"", "\"0.1\"", "\"0.2\"", "\"0.3\"", "\"0.15\""],
            "was the Lua number nan (and 0.30000000000000004 without NaN)")
    }

    func testDateListsHaveMinAndMax() throws {
        let r = try runWithBags(
            """
            local p = realm2:write(function()
              return realm2:create("P", { id = 1, t = { Date(200), Date(-5), Date(1000) } })
            end)
            return p.t:min() == Date(-5), p.t:max() == Date(1000), tostring(p.t:max())
            """)
        XCTAssertEqual(r, ["true", "true", "\"1970-01-01T00:16:40Z\""], "were nil")
    }

    func testMixedPropertiesCountDecimals() throws {
        let r = try runWithBags(
            """
            realm2:write(function()
              realm2:create("P", { id = 1, m = Decimal128("1.5") })
              realm2:create("P", { id = 2, m = 2 })
              realm2:create("P", { id = 3, m = Decimal128("100") })
              realm2:create("P", { id = 4, m = "a string" })
              realm2:create("P", { id = 5, m = true })
            end)
            local all = realm2:objects("P")
            return tostring(all:sum("m")), tostring(all:average("m")), tostring(all:min("m")), tostring(all:max("m")),
              all:where("id == 2 OR id > 3"):sum("m"), all:where("id > 3"):average("m")
            """)
        XCTAssertEqual(r, ["\"103.5\"", "\"34.5\"", "\"1.5\"", "\"100\"", "2", "nil"])
    }

    func testMixedListsAggregateTheirNumbersOnly() throws {
        let r = try runWithBags(
            """
            local p = realm2:write(function()
              return realm2:create("P", { id = 1, ms = { "zzz", true, 3, 2.5, Decimal128("NaN"), Date(1) } })
            end)
            local q = realm2:write(function()
              return realm2:create("P", { id = 2, ms = { Decimal128("1.5"), 2, Decimal128("100"), "s" } })
            end)
            return p.ms:sum(), p.ms:average(), p.ms:min(), p.ms:max(), tostring(q.ms:sum()), tostring(q.ms:max())
            """)
        XCTAssertEqual(r, ["5.5", "2.75", "2.5", "3", "\"103.5\"", "\"100\""])
    }

    func testEmptyCollections() throws {
        let r = try runWithBags(
            """
            local p = realm2:write(function() return realm2:create("P", { id = 1, ms = { "only", false } }) end)
            return p.ints:sum(), math.type(p.ints:sum()), p.ints:average(), p.ints:min(), p.ints:max(),
              tostring(p.d:sum()), p.d:average(), p.t:min(), p.ms:sum(), p.ms:max(), p.f:sum()
            """)
        XCTAssertEqual(r, ["0", "\"integer\"", "nil", "nil", "nil", "\"0\"", "nil", "nil", "0", "nil", "0.0"])
    }

    func testIntegerListsStayExactAndSumsOfOtherTypesAreRefused() throws {
        let r = try runWithBags(
            """
            local p = realm2:write(function()
              return realm2:create("P", { id = 1, ints = { math.maxinteger, 1, -1 }, f = { 1.5, 2 } })
            end)
            return p.ints:sum() == math.maxinteger, p.f:sum(), p.f:average()
            """)
        XCTAssertEqual(r, ["true", "3.5", "1.75"])
        let message = failure("return realm2:objects('P')[1].t:sum()")
        XCTAssertTrue(message.contains("Cannot compute sum of 'P.t'"), message)
    }
}
