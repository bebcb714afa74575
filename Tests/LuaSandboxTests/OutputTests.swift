import LuaSandbox
import XCTest

/// print and warn go to host sinks; print is capped per call.
final class OutputTests: XCTestCase {
    func testPrintGoesToTheSink() throws {
        let state = try LuaState()
        var lines: [String] = []
        state.outputHandler = { lines.append($0) }
        try state.execute(
            "print('a', 1, nil, true, 2.5) print() print(setmetatable({}, {__tostring = function() return 'T' end}))",
            chunkName: "=t")
        XCTAssertEqual(lines, ["a\t1\tnil\ttrue\t2.5", "", "T"])
    }

    func testPrintIsTruncatedAtTheOutputLimit() throws {
        let state = try LuaState(limits: LuaLimits(output: 10))
        var lines: [String] = []
        state.outputHandler = { lines.append($0) }
        try state.execute("print(string.rep('x', 100)) print('abc', 'defghijkl', 'zz')", chunkName: "=t")
        XCTAssertEqual(lines, ["xxxxxxxxxx…(90 bytes more)", "abc\tdefghi…(6 bytes more)"])
    }

    func testDefaultLimitIs64KiBAndDoesNotCutUTF8() throws {
        let state = try LuaState()
        var lines: [String] = []
        state.outputHandler = { lines.append($0) }
        try state.execute("print(string.rep('x', 100000))", chunkName: "=t")
        XCTAssertEqual(lines.first?.utf8.count, 65536 + "…(34464 bytes more)".utf8.count)
        state.limits.output = 4
        try state.execute("print('aaaé')", chunkName: "=t")  // 'é' is 2 bytes: 4 bytes would cut it
        XCTAssertEqual(lines.last, "aaa…(2 bytes more)")
    }

    func testNoSinkDiscardsOutput() throws {
        let state = try LuaState()
        XCTAssertNoThrow(try state.execute("print('nobody listens')", chunkName: "=t"))
    }

    func testWarningsGoToTheirSink() throws {
        let state = try LuaState()
        var warnings: [String] = []
        state.warningHandler = { warnings.append($0) }
        try state.execute("warn('@on') warn('disk ', 'low') warn('second')", chunkName: "=t")
        XCTAssertEqual(warnings, ["disk low", "second"])
    }
}
