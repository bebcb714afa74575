import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

/// Boundary numbers and shapes at the public Lua API: each must raise a Lua error (or answer),
/// never end the process. The issue's one-liners first, then one test per rule.
final class LuaBoundaryTests: LuaTestCase {
    static let schema = """
        {
          { name = "Dog", properties = { name = "string", weight = "int", score = "double?" } },
          { name = "Node", properties = { name = "string", obj = "Node?", nums = "int[]", children = "Node[]",
              any = "mixed", emb = "Box?" } },
          { name = "Box", embedded = true, properties = { inner = "Box?", n = "int" } },
          { name = "Person", properties = { name = "string", dogs = "Dog[]" } },
        }
        """

    /// The values every integer argument is tried with.
    static let boundaryNumbers = ["math.mininteger", "math.maxinteger", "math.huge", "-math.huge", "0/0", "1.5"]

    override func setUpWithError() throws {
        try super.setUpWithError()
        try run(
            """
            local c = Realm.Configuration.defaultConfiguration
            c.schema = \(Self.schema)
            c.deleteRealmIfMigrationNeeded = true
            Realm.Configuration.defaultConfiguration = c
            realm = Realm()
            """)
    }

    /// Runs `code` in `pcall`: returns whether it succeeded and its error as a string.
    func attempt(_ code: String, file: StaticString = #filePath, line: UInt = #line) throws -> (Bool, String) {
        let r = try run("local ok, e = pcall(function() \(code) end); return ok, tostring(e)")
        return (r[0].boolValue ?? true, r[1].stringValue ?? "")
    }

    func assertLuaError(
        _ code: String, _ messagePart: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let (ok, message) = try attempt(code)
        XCTAssertFalse(ok, "no error from: \(code)", file: file, line: line)
        XCTAssertTrue(message.contains(messagePart), "\(code): \(message)", file: file, line: line)
    }

    // MARK: The issue's one-liners

    func testTheIssuesOneLinersRaiseErrors() throws {
        try assertLuaError(
            """
            local d = realm:objects("Dog"); d:append{name="a", weight=math.maxinteger}
            d:append{name="b", weight=math.maxinteger}; return d:sum("weight")
            """, "integer overflow")
        try assertLuaError("realm:objects('Dog'):remove(math.mininteger)", "bad argument #1 to 'remove'")
        try run(
            "person = realm:write(function() "
                + "return realm:create('Person', { name = 'p', dogs = { { name = 'd', weight = 1 } } }) end)")
        try assertLuaError(
            "person.dogs:insert(person.dogs[1], math.mininteger)",
            "bad argument #2 to 'insert' (position out of range)")
        try assertLuaError("return tostring(Date(math.mininteger))", "bad argument #1 to 'Date' (seconds out of range")
        try assertLuaError("Date('2021-02-31T00:00:00Z')", "invalid date '2021-02-31T00:00:00Z'")
        try assertLuaError(
            "local t = realm:write(function() "
                + "return realm:create('Node', { name = 't', nums = { math.maxinteger, 1 } }) "
                + "end); return t.nums:sum()",
            "integer overflow")
        let r = try run(
            """
            local o1, o2 = Object("Node", { name = "o1" }), Object("Node", { name = "o2" })
            o1.obj = o2; o2.obj = o1
            realm:write(function() realm:add(o1) end)
            return #realm:objects("Node"), o1.obj.name, o1.obj.obj.name, o2.obj.obj.name
            """)
        XCTAssertEqual(r.map(\.description), ["3", "\"o2\"", "\"o1\"", "\"o2\""], "o1 and o2 once, and t")
        XCTAssertEqual(try run("return #realm:objects('Dog')").first?.integerValue, 3, "failed calls changed nothing")
    }

    // MARK: One checked conversion point for integer arguments

    func testEveryPositionVerbRefusesBoundaryNumbers() throws {
        try run(
            """
            realm:write(function()
              dog = realm:create("Dog", { name = "Rex", weight = 1 })
              person = realm:create("Person", { name = "p", dogs = { dog, dog } })
              node = realm:create("Node", { name = "n", nums = { 1, 2, 3 } })
            end)
            """)
        let verbs = [
            "node.nums:remove(X)", "node.nums:insert(7, X)", "node.nums:move(X, 1)", "node.nums:move(1, X)",
            "node.nums[X] = 7", "person.dogs:remove(X)", "person.dogs:insert(dog, X)", "person.dogs:move(X, 1)",
            "person.dogs[X] = dog", "realm:objects('Dog'):remove(X)", "Date(X)", "Date(0, X)",
        ]
        for verb in verbs {
            for n in Self.boundaryNumbers {
                let code = verb.replacingOccurrences(of: "X", with: "(\(n))")
                let (ok, message) = try attempt(code)
                XCTAssertFalse(ok, "no error from: \(code)")
                XCTAssertTrue(
                    message.contains("bad argument") || message.contains("out of bounds"), "\(code): \(message)")
            }
        }
        // Fractions, NaN and infinities are refused as such, never truncated.
        try assertLuaError(
            "node.nums:remove(1.5)", "bad argument #1 to 'remove' (number has no integer representation)")
        try assertLuaError("node.nums:insert(7, 0/0)", "bad argument #2 to 'insert' (number has no integer")
        try assertLuaError("node.nums:move(1, math.huge)", "bad argument #2 to 'move' (number has no integer")
        // Reading past either end answers nil.
        for n in Self.boundaryNumbers {
            let r = try run("return node.nums[\(n)], person.dogs[\(n)], realm:objects('Dog')[\(n)]")
            XCTAssertTrue(r.allSatisfy(\.isNil), "\(n): \(r)")
        }
        let r = try run("return table.concat(node.nums:toTable(), ','), #person.dogs, #realm:objects('Dog')")
        XCTAssertEqual(r.map(\.description), ["\"1,2,3\"", "2", "1"], "no failed call changed anything")
        try assertLuaError("node.nums:move(1, -5)", "Index -6 is out of bounds (must be less than 3)")
        // The error names the call and the position as the script wrote them (Realm's index is 0-based).
        try assertLuaError("node.nums:remove(9)", "remove(9): Index 8 is out of bounds")
        try assertLuaError("node.nums:insert(7, 0)", "insert(_, 0): Index -1 is out of bounds")
        try assertLuaError("node.nums[5] = 1", "[5] = _: Index 4 is out of bounds")
        try assertLuaError("Object('Node', { nums = { 1 } }).nums:remove(0)", "remove(0): Index -1 is out of bounds")
        try assertLuaError("Object('Node', { nums = { 1 } }).nums[3] = 1", "[3] = _: Index 2 is out of bounds")
        // An integral float is a position like the integer, for reading too.
        XCTAssertEqual(try run("node.nums:remove(1.0); return node.nums[1]").first?.integerValue, 2)
        let floats = try run("return node.nums[2.0], person.dogs[1.0].name, realm:objects('Dog')[1.0].name")
        XCTAssertEqual(floats.map(\.description), ["3", "\"Rex\"", "\"Rex\""])
    }

    // MARK: Timestamps

    func testDatesAreValidatedAndPrintedOverTheirWholeRange() throws {
        for text in [
            "2021-02-31T00:00:00Z", "2021-02-29", "2021-04-31", "2024-01-01T24:00:01Z", "2024-01-01T23:60:00Z",
            "2024-01-01T23:59:60Z", "2024-13-01", "2024-00-10", "10000-01-01", "2024-01-01T00:00:00+24:00",
        ] {
            try assertLuaError("Date('\(text)')", "invalid date")
        }
        let r = try run(
            """
            return tostring(Date("2024-02-29")), tostring(Date("2000-02-29T23:59:59.5Z")),
              tostring(Date(-377705116800)), tostring(Date(253402300799, 999999999)),
              tostring(Date("-9999-01-01T00:00:00Z")), tostring(Date(-1, -1)), tostring(Date("1969-12-31T23:59:59.5Z"))
            """)
        XCTAssertEqual(
            r.compactMap(\.stringValue),
            [
                "2024-02-29T00:00:00Z", "2000-02-29T23:59:59.5Z", "-9999-01-01T00:00:00Z",
                "9999-12-31T23:59:59.999999999Z", "-9999-01-01T00:00:00Z", "1969-12-31T23:59:58.999999999Z",
                "1969-12-31T23:59:59.5Z",
            ])
        try assertLuaError("Date(253402300800)", "seconds out of range")
        try assertLuaError("Date(-377705116801)", "seconds out of range")
    }

    // MARK: Aggregates

    func testIntegerSumsAreCheckedAndAveragesExact() throws {
        let r = try run(
            """
            local d = realm:objects("Dog")
            d:append{ name = "a", weight = 1 << 53 }; d:append{ name = "b", weight = 1 }
            local big, exact
            realm:write(function()
              big = realm:create("Node", { name = "big", nums = { math.maxinteger, math.maxinteger } })
              exact = realm:create("Node", { name = "exact", nums = { 1 << 53, 1 } })
            end)
            return d:sum("weight"), d:average("weight"), big.nums:average(), exact.nums:sum(), exact.nums:average(),
              d:where("weight > 1"):sum("weight")
            """)
        XCTAssertEqual(r[0].integerValue, (1 << 53) + 1, "not rounded through a REAL")
        XCTAssertEqual(r[1], .number(Double((1 << 53) + 1) / 2))
        XCTAssertEqual(r[2], .number(Double(Int64.max)), "the average of two maxintegers does not overflow")
        XCTAssertEqual(r[3].integerValue, (1 << 53) + 1)
        XCTAssertEqual(r[4], .number(4_503_599_627_370_496.5))
        XCTAssertEqual(r[5].integerValue, 1 << 53)
        try run("realm:objects('Dog'):append{ name = 'c', weight = math.maxinteger }")
        try assertLuaError("return realm:objects('Dog'):sum('weight')", "integer overflow: the sum of 'Dog.weight'")
        try run("realm:objects('Dog'):append{ name = 'd', weight = math.mininteger }")
        XCTAssertEqual(
            try run("return realm:objects('Dog'):sum('weight')").first?.integerValue, (1 << 53) + 1 - 1,
            "an intermediate overflow that the total undoes is no error (the sum is exact)")
        try assertLuaError(
            "local n = realm:write(function() "
                + "return realm:create('Node', { name = 'm', nums = { math.mininteger, -1 } }) "
                + "end); return n.nums:sum()",
            "integer overflow: the sum of 'Node.nums'")
    }

    // MARK: Object graphs and nesting depth

    func testGraphsWithCyclesAddEachObjectOnce() throws {
        let r = try run(
            """
            local a, b = Object("Node", { name = "a" }), Object("Node", { name = "b" })
            local c = Object("Node", { name = "c" })
            a.obj = b; b.obj = c; c.obj = a                -- a cycle of links
            a.children = { b, c, a }                      -- and of list elements
            c.any = b                                     -- and of a mixed value
            realm:write(function() realm:add(a) end)
            local copy1, copy2 = Object("Node", { name = "x" }), Object("Node", { name = "y" })
            copy1.obj = copy2; copy2.obj = copy1
            local created
            realm:write(function() created = realm:create("Node", copy1) end)
            return #realm:objects("Node"), a.obj.obj.obj.name, a.children[3].name, #a.children, c.any.name,
              created.obj.obj.name, #realm:objects("Node"):where("name == 'x'"),
              #realm:objects("Node"):where("name == 'y'"),
              a.children[1] == a.obj
            """)
        XCTAssertEqual(
            r.map(\.description), ["5", "\"a\"", "\"a\"", "3", "\"b\"", "\"x\"", "1", "1", "true"])
    }

    func testNestingDepthIsBoundedWithClearErrors() throws {
        // A chain of 150 new objects, an embedded object inside itself, a Lua value 100 deep.
        try assertLuaError(
            """
            local head = Object("Node", { name = "0" })
            local tail = head
            for i = 1, 150 do local n = Object("Node", { name = tostring(i) }); tail.obj = n; tail = n end
            realm:write(function() realm:add(head) end)
            """, "nested more than 100 levels")
        XCTAssertEqual(try run("return #realm:objects('Node')").first?.integerValue, 0, "the failed write left nothing")
        try assertLuaError(
            "local v = { n = 1 }; v.inner = v; "
                + "realm:write(function() realm:create('Node', { name = 'e', emb = v }) end)",
            "contains itself")
        try assertLuaError(
            """
            local e = Object("Box", { n = 1 }); e.inner = e
            realm:write(function() realm:create('Node', { name = 'e', emb = e }) end)
            """, "nested more than 100 levels")
        try assertLuaError(
            "local v = {}; for i = 1, 100 do v = { v } end; "
                + "realm:write(function() realm:create('Node', { any = v }) end)",
            "nested too deeply")
        // Queries and key paths have their own bounds.
        try assertLuaError(
            "return #realm:objects('Dog'):where(string.rep('(', 5000) .. 'weight > 1' .. string.rep(')', 5000))",
            "nested too deeply")
        try assertLuaError(
            "return #realm:objects('Node'):where(string.rep('obj.', 5000) .. 'name == \"a\"')",
            "the key path is too long (more than 64 elements)")
        try assertLuaError(
            "return #realm:objects('Node'):sorted(string.rep('obj.', 65) .. 'name')",
            "at most 64 are followed")
        try assertLuaError(
            "return #realm:objects('Dog'):where(string.rep('NOT ', 5000) .. 'weight > 1')", "nested too deeply")
    }
}
