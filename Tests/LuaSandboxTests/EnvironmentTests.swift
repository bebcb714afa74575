import LuaSandbox
import XCTest

/// Globals access and per-chunk environments.
final class EnvironmentTests: XCTestCase {
    func testGlobalsGetAndSet() throws {
        let state = try LuaState()
        try state.setGlobal("answer", 42)
        XCTAssertEqual(try state.eval("return answer"), .integer(42))
        try state.execute("greeting = 'hi'", chunkName: "=t")
        XCTAssertEqual(state.global("greeting"), "hi")
        try state.setGlobal("answer", .nil)
        XCTAssertEqual(try state.eval("return answer"), .nil)
    }

    func testRegisterInATable() throws {
        let state = try LuaState()
        let host = try state.newTable()
        try state.setGlobal("host", .table(host))
        try state.register("add", in: host) { ctx in try ctx.returning(.integer(ctx.integer(1) + ctx.integer(2))) }
        XCTAssertEqual(try state.eval("return host.add(2, 3)"), .integer(5))
    }

    func testReplSessionKeepsItsAssignments() throws {
        let state = try LuaState()
        let session = try state.makeEnvironment()
        try state.execute("x = 1", chunkName: "=repl:1", environment: session)
        try state.execute("x = x + 1", chunkName: "=repl:2", environment: session)
        XCTAssertEqual(try state.eval("return x", chunkName: "=repl:3").isNil, true, "base globals untouched")
        XCTAssertEqual(
            try state.execute("return x, string.upper('k')", chunkName: "=repl:3", environment: session),
            [.integer(2), "K"])
    }

    func testEnvironmentsAreSeparate() throws {
        let state = try LuaState()
        let a = try state.makeEnvironment()
        let b = try state.makeEnvironment()
        try state.execute("name = 'a'", chunkName: "=a", environment: a)
        try state.execute("name = 'b'", chunkName: "=b", environment: b)
        XCTAssertEqual(try state.execute("return name", chunkName: "=a", environment: a), ["a"])
        XCTAssertEqual(try state.execute("return name", chunkName: "=b", environment: b), ["b"])
    }

    func testLoadedFunctionKeepsItsEnvironment() throws {
        let state = try LuaState()
        let env = try state.makeEnvironment()
        try state.set(env, "who", "plugin")
        let f = try state.load("return who", chunkName: "=p", environment: env)
        XCTAssertEqual(try state.call(f), ["plugin"])
    }
}
