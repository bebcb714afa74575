import LuaSandbox
import XCTest

/// LuaValue conversions both ways, tables by reference and by value.
final class ValueTests: XCTestCase {
    func testScalarsRoundTrip() throws {
        let state = try LuaState()
        let f = try state.load("return ...", chunkName: "=echo")
        let values: [LuaValue] = [
            .nil, true, false, 0, .integer(Int64.max), .integer(Int64.min), 1.5, .number(-0.25), "", "héllo",
            "a\u{0}b",
        ]
        XCTAssertEqual(try state.call(f, values), values)
        XCTAssertEqual(try state.execute("return math.type(3), math.type(3.0)", chunkName: "=t"), ["integer", "float"])
    }

    func testInvalidUTF8ArrivesAsBytes() throws {
        let state = try LuaState()
        let value = try state.eval(#"return "\xff\xfe""#)
        XCTAssertEqual(value, .bytes([0xFF, 0xFE]))
        XCTAssertNil(value.stringValue)
        XCTAssertEqual(value.bytesValue, [0xFF, 0xFE])
        XCTAssertEqual(LuaValue.string("ab").bytesValue, [0x61, 0x62])
        let f = try state.load("return #... , (...):byte(1)", chunkName: "=len")
        XCTAssertEqual(try state.call(f, [.bytes([0xC3, 0x28, 0x00])]), [.integer(3), .integer(0xC3)])
    }

    func testPlainTablesArePushedAsNewTables() throws {
        let state = try LuaState()
        let f = try state.load("local t = ... return #t, t[2], t.name, t.nested.deep", chunkName: "=t")
        let table: LuaValue = .plainTable(
            LuaTable(array: [10, 20, 30], hash: ["name": "x", "nested": ["deep": true]]))
        XCTAssertEqual(try state.call(f, [table]), [.integer(3), .integer(20), "x", .boolean(true)])
    }

    func testCopyTable() throws {
        let state = try LuaState()
        guard
            case .table(let ref) = try state.eval(
                "return {1, 2, 3, name = 'n', [10] = 'ten', sub = {x = 1}, f = print}")
        else {
            return XCTFail("expected a table")
        }
        let copy = try state.copy(ref)
        XCTAssertEqual(copy.array, [1, 2, 3])
        XCTAssertEqual(copy["name"], "n")
        XCTAssertEqual(copy[.integer(10)], "ten")
        XCTAssertEqual(copy["sub"], .plainTable(LuaTable(fields: ["x": 1])))
        XCTAssertEqual(copy["f"].type, .function)
        XCTAssertEqual(try state.length(ref), 3)
        XCTAssertEqual(try state.get(ref, "name"), "n")
        try state.set(ref, "name", "m")
        XCTAssertEqual(try state.copy(ref)["name"], "m")
    }

    func testCopyRefusesCycles() throws {
        let state = try LuaState()
        guard case .table(let ref) = try state.eval("local t = {} t.self = t return t") else {
            return XCTFail("expected a table")
        }
        XCTAssertNotNil(expectLuaError { try state.copy(ref) })
        // Shared (non-cyclic) subtables are fine.
        guard case .table(let shared) = try state.eval("local s = {1} return {a = s, b = s}") else { return XCTFail() }
        XCTAssertEqual(try state.copy(shared)["b"], [1])
    }

    func testReferencesRoundTrip() throws {
        let state = try LuaState()
        let values = try state.execute("t = {} return t, print, coroutine.create(print)", chunkName: "=t")
        XCTAssertEqual(values.map(\.type), [.table, .function, .thread])
        XCTAssertTrue(try state.rawEqual(values[0], state.global("t")))
        XCTAssertEqual(try state.call(values[1].functionRef!, ["unused"]), [])
        let f = try state.load("local a, b = ... return rawequal(a, t), type(b)", chunkName: "=t")
        XCTAssertEqual(try state.call(f, [values[0], values[2]]), [.boolean(true), "thread"])
    }

    func testReferencesFromAnotherStateAreRefused() throws {
        let a = try LuaState()
        let b = try LuaState()
        let table = try a.newTable()
        XCTAssertNotNil(expectLuaError { try b.setGlobal("t", .table(table)) })
    }

    func testDroppedReferencesAreReleased() throws {
        let state = try LuaState()
        let before = state.memoryInUse
        for _ in 0..<200 {
            _ = try state.eval("return {string.rep('x', 1000)}")
        }
        state.collectGarbage()
        state.collectGarbage()
        XCTAssertLessThan(state.memoryInUse, before + 50_000, "references dropped by Swift must not pin tables")
    }

    func testLuaValueEqualityFollowsLua() {
        XCTAssertEqual(LuaValue.integer(1), LuaValue.number(1.0))
        XCTAssertEqual(Set<LuaValue>([.integer(1), .number(1.0)]).count, 1)
        XCTAssertNotEqual(LuaValue.integer(1), LuaValue.number(1.5))
        XCTAssertEqual(LuaValue.string("a"), LuaValue.bytes([0x61]))
        XCTAssertEqual(LuaValue.number(2.0).integerValue, 2)
        XCTAssertNil(LuaValue.number(2.5).integerValue)
        XCTAssertFalse(LuaValue.nil.isTruthy)
        XCTAssertTrue(LuaValue.integer(0).isTruthy)
    }

    func testCallingAFunctionByGlobalName() throws {
        let state = try LuaState()
        try state.execute("function add(a, b) return a + b, 'sum' end", chunkName: "=t")
        XCTAssertEqual(try state.call(global: "add", [1, 2]), [.integer(3), "sum"])
    }
}
