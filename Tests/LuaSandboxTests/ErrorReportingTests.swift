import LuaSandbox
import XCTest

/// Messages, positions, tracebacks, error values, Swift errors crossing into Lua, syntax errors.
final class ErrorReportingTests: XCTestCase {
    struct DiskOnFire: Error, CustomStringConvertible {
        var description: String { "disk on fire" }
    }

    func testRuntimeErrorCarriesChunkLineAndTraceback() throws {
        let state = try LuaState()
        let code = "local function inner()\n  error('boom')\nend\ninner()\n"
        let error = expectLuaError { try state.execute(code, chunkName: "@scripts/x.lua") }
        XCTAssertEqual(error?.kind, .runtime)
        XCTAssertEqual(error?.message, "scripts/x.lua:2: boom")
        XCTAssertEqual(error?.value, "scripts/x.lua:2: boom")
        let traceback = error?.traceback ?? ""
        XCTAssertTrue(traceback.hasPrefix("stack traceback:"), traceback)
        XCTAssertTrue(traceback.contains("scripts/x.lua:2: in"), traceback)
        XCTAssertTrue(traceback.contains("scripts/x.lua:4: in main chunk"), traceback)
        XCTAssertTrue(error?.descriptionWithTraceback.contains("stack traceback:") ?? false)
        XCTAssertFalse(error?.description.contains("stack traceback:") ?? true)
    }

    func testReplChunkNames() throws {
        let state = try LuaState()
        let error = expectLuaError { try state.execute("local t = nil\nreturn t.x", chunkName: "=repl:7") }
        XCTAssertTrue(error?.message.hasPrefix("repl:7:2: attempt to index a nil value") ?? false, error?.message ?? "")
    }

    func testTableErrorValueIsKept() throws {
        let state = try LuaState()
        let error = expectLuaError { try state.execute("error({code = 1, message = 'bad'})", chunkName: "=t") }
        XCTAssertEqual(error?.kind, .runtime)
        XCTAssertEqual(error?.message, "(error object is a table value)")
        guard case .table(let table)? = error?.value else {
            return XCTFail("expected a table, got \(String(describing: error?.value))")
        }
        let copy = try state.copy(table)
        XCTAssertEqual(copy["code"], .integer(1))
        XCTAssertEqual(copy["message"], "bad")
    }

    func testErrorObjectWithTostring() throws {
        let state = try LuaState()
        let error = expectLuaError {
            try state.execute(
                "error(setmetatable({}, {__tostring = function() return 'custom message' end}))", chunkName: "=t")
        }
        XCTAssertEqual(error?.message, "custom message")
        XCTAssertEqual(error?.value.type, .table)
    }

    func testSwiftErrorBecomesCatchableLuaError() throws {
        let state = try LuaState()
        try state.register("fail") { _ in throw DiskOnFire() }
        let caught = try state.execute("local ok, e = pcall(function() fail() end) return ok, e", chunkName: "=t")
        XCTAssertEqual(caught, [.boolean(false), "t:1: disk on fire"])
        // Called directly by pcall there is no Lua caller, so no position (as with Lua's own errors).
        XCTAssertEqual(try state.execute("return pcall(fail)", chunkName: "=t"), [.boolean(false), "disk on fire"])
        let error = expectLuaError { try state.execute("\nfail()", chunkName: "@host.lua") }
        XCTAssertEqual(error?.kind, .runtime)
        XCTAssertEqual(error?.message, "host.lua:2: disk on fire")
        XCTAssertTrue(error?.traceback?.contains("host.lua:2") ?? false)
    }

    func testSwiftCanRaiseStructuredErrors() throws {
        let state = try LuaState()
        try state.register("fail") { _ in
            throw LuaError(
                raising: LuaValue.plainTable(LuaTable(fields: ["code": "Timeout", "message": "too slow"])),
                message: "too slow")
        }
        XCTAssertEqual(try state.eval("local ok, e = pcall(fail) return e.code"), "Timeout")
    }

    func testRethrownNestedErrorKeepsItsValue() throws {
        let state = try LuaState()
        try state.register("callit") { ctx in
            try ctx.returning(ctx.state.call(ctx.function(1)))
        }
        XCTAssertEqual(
            try state.eval("local t = {} local ok, e = pcall(callit, function() error(t) end) return rawequal(e, t)"),
            .boolean(true))
        XCTAssertEqual(
            try state.eval("local ok, e = pcall(callit, function() error('inner') end) return e"),
            "test:1: inner", "the position is the inner one, not prefixed twice")
    }

    func testArgumentErrorsReadLikeLuas() throws {
        let state = try LuaState()
        try state.register("twice") { ctx in try ctx.returning(.integer(ctx.integer(1) * 2)) }
        XCTAssertEqual(try state.eval("return twice(21)"), .integer(42))
        XCTAssertEqual(try state.eval("return twice('4')"), .integer(8))
        let error = expectLuaError { try state.execute("return twice('x')", chunkName: "=t") }
        XCTAssertEqual(error?.message, "t:1: bad argument #1 to 'twice' (number expected, got string)")
        let fraction = expectLuaError { try state.execute("return twice(1.5)", chunkName: "=t") }
        XCTAssertEqual(fraction?.message, "t:1: bad argument #1 to 'twice' (number has no integer representation)")
    }

    func testIncompleteInputDetection() throws {
        let state = try LuaState()
        for code in ["for i = 1, 3 do", "function f()", "x = {", "if x then"] {
            let error = expectLuaError { try state.load(code, chunkName: "=repl:1") }
            XCTAssertEqual(error?.kind, .syntax, code)
            XCTAssertEqual(error?.isIncompleteInput, true, "\(code): \(error?.message ?? "")")
        }
        for code in ["x = = 1", "return )", "local 1 = 2"] {
            let error = expectLuaError { try state.load(code, chunkName: "=repl:1") }
            XCTAssertEqual(error?.kind, .syntax, code)
            XCTAssertEqual(error?.isIncompleteInput, false, code)
            XCTAssertTrue(error?.message.hasPrefix("repl:1:") ?? false, error?.message ?? "")
        }
    }

    func testSandboxViolationKindSurvivesButNotForOtherErrors() throws {
        let state = try LuaState()
        XCTAssertEqual(
            expectLuaError { try state.execute("setmetatable({}, {__gc = 1})", chunkName: "=t") }?.kind, .sandbox)
        // A later, unrelated error is a runtime error again.
        XCTAssertEqual(expectLuaError { try state.execute("error('plain')", chunkName: "=t") }?.kind, .runtime)
        // A Swift callback can raise a sandbox violation.
        try state.register("forbidden") { ctx in throw ctx.error("not allowed here", kind: .sandbox) }
        let error = expectLuaError { try state.execute("forbidden()", chunkName: "=t") }
        XCTAssertEqual(error?.kind, .sandbox)
        XCTAssertEqual(error?.message, "t:1: not allowed here")
    }

    func testStateIsUsableAfterErrors() throws {
        let state = try LuaState()
        _ = expectLuaError { try state.execute("error('x')", chunkName: "=t") }
        _ = expectLuaError { try state.load("x = = 1", chunkName: "=t") }
        XCTAssertEqual(try state.eval("return 'fine'"), "fine")
    }
}
