import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

/// realm-core's parser tests (`test/test_parser.cpp`) through the Lua API: each test rebuilds the
/// data of one realm-core test in a realm of its own and expects realm-core's counts and messages.
final class LuaQueryRealmCoreTests: LuaTestCase {
    /// Opens `realm` (a global) in memory with `schemaLua`, then runs `fill` inside one write.
    private func open(_ schemaLua: String, fill: String) throws {
        try run(
            """
            realm = Realm(Realm.Configuration{ inMemoryIdentifier = "realm-core", schema = \(schemaLua) })
            realm:write(function()
            \(fill)
            end)
            """)
    }

    /// Each query's count of `className` objects, against the count realm-core expects.
    private func expectCounts(
        _ className: String, _ cases: [(String, Int)], file: StaticString = #filePath, line: UInt = #line
    ) {
        for (query, expected) in cases {
            do {
                let got = try run("return #realm:objects('\(className)'):where([==[\(query)]==])").first?.integerValue
                XCTAssertEqual(got, Int64(expected), "\(className): \(query)", file: file, line: line)
            } catch {
                XCTFail("\(className): \(query) failed: \(error)", file: file, line: line)
            }
        }
    }

    /// The error a query raises (its message), or a failure when it runs.
    private func queryError(
        _ className: String, _ query: String, file: StaticString = #filePath, line: UInt = #line
    ) -> String {
        failure("return #realm:objects('\(className)'):where([==[\(query)]==])", file: file, line: line)
    }

    // MARK: names with spaces and dashes

    /// Parser_Backlinks: the link property `fav item`, named in queries as `fav\ item`.
    private static let shopSchema = """
        {
          { name = "Items", properties = { name = "string", price = "double", discount = "Discounts?" } },
          { name = "Discounts", properties = { reduced_by = "double", active = "bool" } },
          { name = "Person", properties = {
              customer_id = "int", name = "string", account_balance = "double", items = "Items[]",
              ["fav item"] = "Items?" } },
        }
        """

    /// Parser_Backlinks' data: each person's favourite is the item at its own index.
    private func openShop() throws {
        try open(
            Self.shopSchema,
            fill: """
                local i = {}
                local info = { {"milk", 5.5}, {"oranges", 4.0}, {"pizza", 9.5}, {"cereal", 6.5}, {"bread", 3.5} }
                for n, v in ipairs(info) do
                  i[n] = realm:create("Items", { name = v[1], price = v[2] })
                end
                local james = {}
                for _ = 1, 10 do james[#james + 1] = i[1] end
                realm:create("Person", { customer_id = 0, name = "Adam", account_balance = 10,
                  items = { i[1], i[2], i[3], i[4] }, ["fav item"] = i[1] })
                realm:create("Person", { customer_id = 1, name = "James", account_balance = 20,
                  items = james, ["fav item"] = i[2] })
                realm:create("Person", { customer_id = 2, name = "John", account_balance = 30,
                  items = { i[3], i[3], i[4] }, ["fav item"] = i[3] })
                """)
    }

    /// Parser_Backlinks: a property named with a space, forward and through named backlinks.
    func testPropertyNamesWithSpacesAreQueriedWithBackslashEscapes() throws {
        try openShop()
        XCTAssertEqual(try run("return realm:objects('Person')[1]['fav item'].name").first?.stringValue, "milk")
        expectCounts(
            "Items",
            [
                ("@links.Person.fav\\ item.account_balance > 20", 1),
                ("@links.Person.items.account_balance > 20", 2),
                ("@links.Person.items.name LIKE[c] 'j*'", 3),
                ("@links.Person.items.@count > 2", 2),
                ("@links.Person.items.@min.account_balance <= 10", 4),
                ("@links.Person.items.@sum.account_balance > 20", 3),
                ("SUBQUERY(@links.Person.items, $x, $x.account_balance >= 20).@count > 2", 1),
            ])
        expectCounts(
            "Person",
            [
                ("fav\\ item.@links.Person.fav\\ item.@count > 1", 0),
                ("fav\\ item.@links.Person.items.@count > 1 ", 2),
                ("fav\\ item.name == 'oranges'", 1),
            ])
        XCTAssertEqual(
            try run("return realm:objects('Person'):sorted('fav item.price', false)[1].name").first?.stringValue,
            "John")
    }

    /// Parser_Timestamps (`T2017-12-04`, a name with dashes) and Parser_basic (`float fees`, with a space).
    func testClassAndPropertyNamesWithDashesAndSpaces() throws {
        try open(
            """
            {
              { name = "person-record", properties = {
                  birthday = "date", T399 = "date?", ["T2017-12-04"] = "date?", linked = "person-record?" } },
              { name = "fee table", properties = { fees = "double?", ["float fees"] = "float?" } },
            }
            """,
            fill: """
                local p = {}
                for n = 1, 5 do p[n] = realm:create("person-record", {}) end
                p[1]["T2017-12-04"] = Date(1512130073, 0)
                p[2]["T2017-12-04"] = Date(1512130073, 505)
                p[1].linked = p[2]
                p[3].linked = p[1]
                for _, f in ipairs{ 2.0, 2.23, 2.22, 2.25, 3.73 } do
                  realm:create("fee table", { fees = f, ["float fees"] = f })
                end
                """)
        expectCounts(
            "person-record",
            [
                ("T2017-12-04 == NULL", 3),
                ("T2017-12-04 != NULL", 2),
                ("T2017-12-04 != NIL", 2),
                ("linked.T2017-12-04 == NULL", 3),
                ("linked != NULL && linked.T2017-12-04 == NULL", 0),
                ("linked.T2017-12-04 != NULL", 2),
                ("T2017-12-04 == T399:0", 0),
                ("T2017-12-04 == 2017-12-04@0:0:0", 0),
            ])
        expectCounts(
            "fee table",
            [
                ("float\\ fees > 2.0E0", 4),
                ("float\\ fees > 200e-2", 4),
                ("float\\ fees < INF", 5),
                ("float\\ fees == NAN", 0),
                ("float\\ fees != nan", 5),
            ])
    }

    /// Names Realm refuses stay refused: empty, too long for a table name, or the storage's own prefix.
    func testSchemaNamesRealmRefuses() throws {
        for bad in ["''", "'" + String(repeating: "x", count: 58) + "'"] {
            let message = failure(
                "Realm(Realm.Configuration{ inMemoryIdentifier = 'n', "
                    + "schema = { { name = \(bad), properties = { a = 'int' } } } })")
            XCTAssertTrue(message.contains("Class name"), message)
        }
        let message = failure(
            "Realm(Realm.Configuration{ inMemoryIdentifier = 'n', "
                + "schema = { { name = 'A', properties = { ['a.b'] = 'int' } } } })")
        XCTAssertTrue(message.contains("'A.a.b'"), message)
    }

    // MARK: IN and list literals

    /// Parser_OperatorIN's data: allergens, items that contain them, three customers.
    private func openGrocery() throws {
        try open(
            """
            {
              { name = "Allergens", properties = { name = "string", population_affected = "double" } },
              { name = "Items", properties = { name = "string", price = "double", allergens = "Allergens[]" } },
              { name = "Person", properties = {
                  customer_id = "int", account_balance = "double", items = "Items[]", fav_item = "Items?" } },
            }
            """,
            fill: """
                local a, i = {}, {}
                for n, v in ipairs{ {"dairy", 0.75}, {"nuts", 0.01}, {"wheat", 0.01}, {"soy", 0.005} } do
                  a[n] = realm:create("Allergens", { name = v[1], population_affected = v[2] })
                end
                local contains = { { a[1] }, {}, { a[1], a[3], a[4] }, { a[1], a[2], a[3] } }
                for n, v in ipairs{ {"milk", 5.5}, {"oranges", 4.0}, {"pizza", 9.5}, {"cereal", 6.5} } do
                  i[n] = realm:create("Items", { name = v[1], price = v[2], allergens = contains[n] })
                end
                local milk10 = {}
                for _ = 1, 10 do milk10[#milk10 + 1] = i[1] end
                local lists = { { i[1], i[2], i[3], i[4] }, milk10, { i[3], i[3], i[4] } }
                for n = 1, 3 do
                  realm:create("Person", { customer_id = n - 1, account_balance = n * 10.0,
                    items = lists[n], fav_item = i[n] })
                end
                """)
    }

    /// Parser_OperatorIN: each element of a mixed list literal compares by its own type.
    func testInOverMixedListLiterals() throws {
        try openGrocery()
        expectCounts(
            "Person",
            [
                ("fav_item.name IN {0, null, -1, 'not found', 3.14, oid(000000000000000000000000)}", 0),
                ("fav_item.name IN {'milk', 'oranges', 'cereal'}", 2),
                ("fav_item.price IN {6.5, 9.5}", 1),
                ("fav_item.name != {'milk', 'oranges'}", 3),
                ("NOT fav_item.name IN {'milk', 'oranges'}", 1),
                ("fav_item.name contains[c] {'ILK', 'Range'}", 2),
                ("fav_item.name endswith[c] {'lk', 'EAL', 'GeS'}", 2),
                ("fav_item.name like {'*lk', '*zz*'}", 2),
                ("customer_id IN {}", 0),
                ("customer_id != {0, 1}", 3),
                ("customer_id > {0, 1}", 2),
                ("customer_id <= {-1}", 0),
                ("'dairy' in items.allergens.name", 3),
                ("'dairy' IN fav_item.allergens.name", 2),
                ("fav_item.price IN items.price", 2),
            ])
        let result = try run(
            "return #realm:objects('Person'):where('fav_item.name IN $0', "
                + "{ 0, -1, 'not found', 3.14, ObjectId('000000000000000000000000') })")
        XCTAssertEqual(result.first?.integerValue, 0)
        XCTAssertEqual(
            try run("return #realm:objects('Items'):where('20 IN @links.Person.items.account_balance')")
                .first?.integerValue, 1)
    }

    /// Parser_OperatorIN: a list literal or a list property against a list property, quantified or ordered.
    func testInBetweenListLiteralsAndListProperties() throws {
        try openGrocery()
        expectCounts(
            "Person",
            [
                ("5.5 IN items.price", 2), ("!(5.5 IN items.price)", 1), ("NULL IN items.price", 0),
                ("ANY {5.5, 4.0} IN ANY items.price", 2), ("ALL {5.5, 4.0} IN items.price", 1),
                ("ALL {5.5} IN items.price", 2), ("NONE {5.5, 4.0} IN items.price", 1),
                ("NONE {5.5, 4.0} IN ALL items.price", 2), ("ANY {5.5, 4.0} IN ALL items.price", 1),
                ("ANY {5.5, 4.0} IN NONE items.price", 2), ("ALL {5.5, 4.0} IN NONE items.price", 1),
                ("ALL {5.5, 4.0, 9.5, 6.5} IN ALL items.price", 0), ("ALL {5.5, 5.5} IN ALL items.price", 1),
                ("ALL {6.0, 6.1, 1.1} <= ALL items.price", 1), ("NONE {5.5, 4.0, 9.5, 6.5} IN ANY items.price", 0),
                ("NONE {5.5, 4.0, 9.5, 6.5} IN ALL items.price", 2), ("NONE {5.5, 4.0} IN NONE items.price", 1),
                ("ANY items.name contains[c] ANY {'A', 'B'}", 2), ("ALL items.name contains[c] {'A', 'B'}", 1),
                ("ALL items.name contains[c] NONE {'A', 'B'}", 1), ("NONE items.name contains[c] {'A', 'B'}", 1),
                ("NONE items.name contains[c] ALL {'A', 'L'}", 1), ("ANY items.name contains[c] NONE {'A', 'B'}", 2),
                ("ANY items.name contains[c] ALL {'A', 'B'}", 0),
                ("{5.5, 4.0, 9.5, 6.5} == items.price", 1), ("{9.5, 9.5, 6.5} == items.price", 1),
                ("{5.5, 4.0} IN items.price", 0), ("{} == items.price", 0), ("!{} == items.price", 3),
                ("{} != items.price", 3), ("{5.5, 4.0, 9.5, 6.5} != items.price", 2), ("{null} != items.price", 3),
                ("{5.5, 9.5, 4.0, 6.5} == items.price", 0),
                ("items.name == {'milk', 'oranges', 'pizza', 'cereal'}", 1),
                ("items.name ==[c] {'MILk', 'ORanges', 'piZZA', 'CeReAl'}", 1),
                ("items.name contains[c] {'ilk', 'range', 'zza', 'cer'}", 1),
                ("items.name != {'pizza', 'pizza', 'cereal'}", 2), ("{5.6, 4.1, 9.6, 6.6} > items.price", 1),
                ("{} IN items.price", 0), ("{ } IN ALL items.price", 0), ("{   } IN NONE items.price", 0),
                ("ALL {} IN ALL items.price", 3), ("ALL { } IN NONE items.price", 3), ("ALL { } IN ANY items.price", 3),
                ("NONE {   } IN ALL items.price", 3), ("NONE {} IN ANY items.price", 3),
                ("ANY {6.5} IN ANY items.price", 2), ("{6.5} IN ANY items.price", 2), ("{6.5} IN ALL items.price", 0),
                ("{6.5} IN NONE items.price", 1), ("ALL {6.5} IN ALL items.price", 0),
                ("ALL {6.5} IN NONE items.price", 1), ("ALL {6.5} IN ANY items.price", 2),
                ("NONE {6.5} IN ALL items.price", 3), ("NONE {6.5} IN ANY items.price", 1),
                ("items.price IN items.price", 3), ("ALL items.price IN ALL items.price", 1),
                ("ALL items.price IN ANY items.price", 3), ("NONE items.price IN ANY items.price", 0),
            ])
    }

    // MARK: arithmetic on lists

    /// Parser_OperatorIN, "operators on a list" and "list property vs list property".
    func testArithmeticOnListLiteralsAndCollections() throws {
        try openGrocery()
        expectCounts(
            "Person",
            [
                ("ALL {8, 10} / 2 >= ANY items.price", 1),
                ("NONE {1, 2, 3} * 20 <= ANY items.price", 3),
                ("ANY {1, 2, 3, 4, 5, 6} + 2 == ANY items.price", 1),
                ("ANY {0, 1, 2, 3, 5, 6, 7, 8, 9} == ANY items.price", 0),
                ("items.price * 2 > items.price", 3),
                ("ALL items.price * 2 > ALL items.price", 2),
                ("ALL items.price * 2 > ANY items.price", 3),
                ("NONE items.price * 2 > ANY items.price", 0),
            ])
        XCTAssertFalse(queryError("Person", "{1, 2, 3, 4, 5, 6} * {1, 2, 3} == items.price").isEmpty)
        for aggregate in ["@size", "@max", "@min", "@avg", "length"] {
            XCTAssertFalse(queryError("Person", "{8, 10}.\(aggregate) >= ANY items.price").isEmpty)
        }
    }

    // MARK: null

    /// Parser_BacklinkCount ("Null cannot be compared to lists") and Parser_Backlinks' messages.
    func testNullAgainstListsOfObjectsIsRefused() throws {
        try openShop()
        for query in ["items == NULL", "items != NULL", "items.discount == NULL", "NULL == items"] {
            let message = queryError("Person", query)
            XCTAssertTrue(message.contains("with NULL"), "\(query): \(message)")
        }
        XCTAssertTrue(
            queryError("Items", "@links.Person.items == NULL").contains(
                "Cannot compare linklist ('@links.Person.items') with NULL"))
        XCTAssertTrue(
            queryError("Items", "@links.Person.fav\\ item == NULL").contains(
                "Cannot compare linklist ('@links.Person.fav\\ item') with NULL"))
        expectCounts("Person", [("fav\\ item == NULL", 0), ("fav\\ item.discount == NULL", 3)])
    }

    /// Parser_StringOperations: NULL on the left of a string operator.
    func testNullOnTheLeftOfStringOperators() throws {
        try open(
            "{ { name = 'person', properties = { name = 'string?', father = 'person?' } } }",
            fill: """
                local p = {}
                for n, name in ipairs{ "Billy", "Bob", "Joe", "Jake", "Joel", "Unicorn🦄" } do
                  p[n] = realm:create("person", { name = name })
                end
                for n = 1, 6 do p[n].father = p[n % 6 + 1] end
                p[5].father = nil
                realm:create("person", {})
                """)
        expectCounts(
            "person",
            [
                ("NULL CONTAINS name", 0), ("NULL CONTAINS[c] name", 0),
                ("NULL BEGINSWITH name", 0), ("NULL BEGINSWITH[c] name", 0),
                ("NULL ENDSWITH name", 0), ("NULL ENDSWITH[c] name", 0),
                ("NULL LIKE name", 1), ("NULL LIKE[c] name", 1),
                ("name CONTAINS NULL", 7), ("name LIKE NULL", 1), ("NULL == name", 1), ("NULL != name", 6),
            ])
    }

    /// Parser_ListOfPrimitives: a list of values against a list of values is refused, with realm-core's words.
    func testComparingTwoListsOfValuesIsRefused() throws {
        try open(
            "{ { name = 'table', properties = { integers = 'int[]' } } }",
            fill: "realm:create('table', { integers = { 1, 2 } })")
        for op in ["==", "!=", ">", "<", "contains"] {
            let message = queryError("table", "integers \(op) integers")
            XCTAssertTrue(
                message.contains(
                    "Ordered comparison between two primitive lists is not implemented yet "
                        + "('integers' and 'integers')"),
                "\(op): \(message)")
        }
        expectCounts("table", [("ANY integers == 2", 1), ("integers.@count == 2", 1)])
    }

    // MARK: backlink counts

    /// Parser_BacklinkCount: items link to themselves; people list and favour them.
    func testBacklinkCountsNamedUnnamedChainedAndThroughLists() throws {
        try open(
            """
            {
              { name = "Items", properties = { item_id = "int", self = "Items?", double_col = "double" } },
              { name = "Person", properties = {
                  customer_id = "int", items = "Items[]", fav_item = "Items?", float_col = "float" } },
            }
            """,
            fill: """
                local i = {}
                for n, id in ipairs{ 5, 2, 12, 14, 20 } do
                  i[n] = realm:create("Items", { item_id = id, double_col = n - 0.5 })
                  if n < 5 then i[n].self = i[n] end
                end
                local ten = {}
                for _ = 1, 10 do ten[#ten + 1] = i[1] end
                local lists = { { i[1], i[2], i[3] }, ten, { i[3], i[3] } }
                for n = 1, 3 do
                  realm:create("Person", { customer_id = n - 1, items = lists[n], fav_item = i[4 - n],
                    float_col = n - 0.5 })
                end
                """)
        expectCounts(
            "Items",
            [
                ("@links.@count == 0", 1), ("@links.@count == 0 && item_id == 20", 1),
                ("@links.@count == 1 && item_id == 14", 1), ("@links.@count == 5 && item_id == 12", 1),
                ("@links.@count == 3 && item_id == 2", 1), ("@links.@count == 13 && item_id == 5", 1),
                ("@links.@size == 0", 1),
                ("@links.Items.self.@links.@count == 1 && item_id == 14", 1),
                ("@links.Person.items.@links.@count == 0", 5),
                ("@links.Person.fav_item.items.@links.@count == 130 && item_id == 2", 1),
                ("@links.Person.fav_item.fav_item.@links.@count == 3 && item_id == 2", 1),
                ("@links.@count >= item_id", 2), ("@links.@count >= @links.Person.fav_item.customer_id", 3),
                ("@links.@count == 0.0", 1), ("@links.@count >= double_col", 3),
                ("@links.@count >= @links.Person.fav_item.float_col", 3), ("@links.@count >= self.@count", 5),
                ("@links.@count == @links.Person.fav_item.@count", 1),
                ("@links.@count == @links.Person.items.@count", 1), ("@links.@count == @links.Items.self.@count", 2),
            ])
        expectCounts(
            "Person",
            [
                ("fav_item.@links.@count == 5 && fav_item.item_id == 12", 1),
                ("fav_item.@links.@count == 3 && fav_item.item_id == 2", 1),
                ("fav_item.@links.@count == 13 && fav_item.item_id == 5", 1),
                ("items.@links.@count == 21 && customer_id == 0", 1),
                ("items.@links.@count == 130 && customer_id == 1", 1),
                ("items.@links.@count == 10 && customer_id == 2", 1),
                ("items.@count >= fav_item.@links.@count", 1),
            ])
    }
}
