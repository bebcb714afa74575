import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

/// `Decimal128(x)` from any Lua number or string, and decimal properties set from Lua numbers:
/// infinities and numbers beyond Foundation's `Decimal` range once ended the process (SIGILL) or
/// became NaN.
final class LuaDecimal128Tests: LuaTestCase {
    func testDecimalsFromHugeAndInfiniteNumbers() throws {
        let r = try run(
            """
            return tostring(Decimal128(math.huge)), tostring(Decimal128(-math.huge)), tostring(Decimal128(0/0)),
                   tostring(Decimal128(1e300)), tostring(Decimal128("1e6000")), tostring(Decimal128("-1e7000")),
                   Decimal128("NaN") < Decimal128(-math.huge), Decimal128("1.50") == Decimal128("1.5")
            """)
        XCTAssertEqual(
            r.map(\.description),
            [
                "\"Infinity\"", "\"-Infinity\"", "\"NaN\"", "\"1E+300\"",
                "\"1E+6000\"", "\"-Infinity\"", "true", "true",
            ])
    }

    func testDecimalPropertiesTakeInfinitiesAndSortByValue() throws {
        let r = try run(
            """
            local c = Realm.Configuration.defaultConfiguration
            c.fileURL = "ledger.realm"
            c.schema = { { name = "Ledger", properties = { id = "int", dec = "decimal128" } } }
            local realm = Realm(c)
            realm:write(function()
              for i, v in ipairs({ math.huge, 10, 9, -math.huge, Decimal128("1e6000") }) do
                realm:create("Ledger", { id = i, dec = v })
              end
              realm:objects("Ledger")[1].dec = -math.huge
              realm:objects("Ledger")[1].dec = math.huge
            end)
            local out = {}
            for _, l in ipairs(realm:objects("Ledger"):sorted("dec")) do out[#out + 1] = tostring(l.dec) end
            return table.concat(out, ","), #realm:objects("Ledger"):where("dec > 9")
            """)
        XCTAssertEqual(r.map(\.description), ["\"-Infinity,9,10,1E+6000,Infinity\"", "3"])
    }
}
