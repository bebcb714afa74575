import LuaSandbox
import XCTest

/// The allowlist of globals and the guarded functions.
final class SandboxGlobalsTests: XCTestCase {
    func testDangerousGlobalsAreAbsent() throws {
        let state = try LuaState()
        for name in ["io", "debug", "package", "require", "dofile", "loadfile", "module", "newproxy"] {
            XCTAssertEqual(try state.eval("return type(\(name))"), "nil", name)
        }
        XCTAssertEqual(try state.eval("return type(string.dump)"), "nil")
        for name in ["execute", "exit", "getenv", "remove", "rename", "tmpname", "setlocale"] {
            XCTAssertEqual(try state.eval("return type(os.\(name))"), "nil", "os.\(name)")
        }
        // loadlib lives in package, which is absent; nothing else reaches it.
        XCTAssertEqual(try state.eval("return package == nil and true"), .boolean(true))
    }

    func testAllowedLibrariesArePresent() throws {
        let state = try LuaState()
        let names = [
            "table.concat", "string.format", "math.floor", "utf8.char", "coroutine.wrap",
            "os.time", "os.clock", "os.date", "pcall", "load", "setmetatable", "print", "warn",
        ]
        for name in names {
            XCTAssertEqual(try state.eval("return type(\(name))"), "function", name)
        }
        XCTAssertEqual(try state.eval("return ('abc'):upper()"), "ABC")
        XCTAssertEqual(try state.eval("return type(os.date('*t').year)"), "number")
    }

    func testCollectGarbageOnlyCounts() throws {
        let state = try LuaState()
        XCTAssertEqual(try state.eval("return type(collectgarbage('count'))"), "number")
        let error = expectLuaError { try state.execute("collectgarbage()", chunkName: "=t") }
        XCTAssertEqual(error?.kind, .sandbox)
        XCTAssertEqual(expectLuaError { try state.execute("collectgarbage('stop')", chunkName: "=t") }?.kind, .sandbox)
    }

    func testBinaryChunksAreRefused() throws {
        let state = try LuaState()
        let hostError = expectLuaError {
            try state.load(bytes: [0x1B, 0x4C, 0x75, 0x61, 0x54, 0x00], chunkName: "=bin")
        }
        XCTAssertEqual(hostError?.kind, .sandbox)
        // Through the script's load: mode is forced to text even when "b" is asked for.
        let values = try state.execute(#"return load("\27LuaT\0", "x", "b")"#, chunkName: "=t")
        XCTAssertEqual(values.first, .nil)
        XCTAssertTrue(values.count > 1 && (values[1].stringValue ?? "").contains("binary"), "\(values)")
    }

    func testLoadDefaultsToTheCallersEnvironment() throws {
        let state = try LuaState()
        let env = try state.makeEnvironment()
        let result = try state.execute(
            "x = 41; local f = load('x = x + 1; return x'); return f()", chunkName: "=t", environment: env)
        XCTAssertEqual(result, [.integer(42)])
        XCTAssertEqual(state.global("x"), .nil, "the chunk loaded by load must not write the base globals")
        XCTAssertEqual(try state.get(env, "x"), .integer(42))
        // An explicit env still works.
        XCTAssertEqual(try state.eval("return load('return y', 'c', 't', {y = 5})()"), .integer(5))
    }

    func testSetmetatableRefusesGc() throws {
        let state = try LuaState()
        let error = expectLuaError {
            try state.execute("setmetatable({}, {__gc = function() while true do end end})", chunkName: "@gc.lua")
        }
        XCTAssertEqual(error?.kind, .sandbox)
        XCTAssertTrue(error?.message.hasPrefix("gc.lua:1:") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("__gc") ?? false)
        // Any raw __gc value counts, and pcall sees a normal error.
        let caught = try state.execute("return pcall(setmetatable, {}, {__gc = false})", chunkName: "=t")
        XCTAssertEqual(caught.first, .boolean(false))
        // __close too: a coroutine stopped by the hook runs its __close handlers with hooks off.
        let closeError = expectLuaError {
            try state.execute("local x <close> = setmetatable({}, {__close = function() end})", chunkName: "=t")
        }
        XCTAssertEqual(closeError?.kind, .sandbox)
        // Ordinary metatables still work.
        XCTAssertEqual(try state.eval("return setmetatable({}, {__index = function() return 7 end}).x"), .integer(7))
    }

    func testPatternGuards() throws {
        let state = try LuaState(limits: shortLimits)
        let long = "local s = string.rep('a', 5000) "
        for call in ["s:find('a-b')", "string.match(s, '(a*)b')", "s:gsub('a+', '')", "s:gmatch('a?')"] {
            let error = expectLuaError { try state.execute(long + "return " + call, chunkName: "=p") }
            XCTAssertEqual(error?.kind, .sandbox, call)
            XCTAssertTrue(error?.message.contains("4096") ?? false, error?.message ?? "")
        }
        // Plain find and quantifier-free patterns on long subjects are fine.
        XCTAssertEqual(try state.eval(long .. "return (s .. 'b'):find('a-b', 1, true)"), .nil)
        XCTAssertEqual(try state.eval(long .. "return select(2, s:gsub('a', 'b'))"), .integer(5000))
        // Short subjects may use any pattern.
        XCTAssertEqual(try state.eval("return ('key = value'):match('^(%w+)%s*=%s*(%w+)$')"), "key")
        // Patterns longer than 256 bytes are refused.
        let error = expectLuaError { try state.execute("return ('x'):find(string.rep('x', 300))", chunkName: "=p") }
        XCTAssertEqual(error?.kind, .sandbox)
    }

    func testLibraryLoopsThatNeitherAllocateNorRunLuaAreRefused() throws {
        let state = try LuaState(limits: shortLimits)
        // Each of these spins in C for 2^40 steps without allocating, so neither the hook nor the
        // memory cap could stop it.
        XCTAssertEqual(try state.eval("return #string.rep('', 2^40)"), .integer(0))
        let lyingLength = "local t = setmetatable({}, {__len = function() return 2^40 end}) "
        for call in ["table.insert(t, 1, 'x')", "table.remove(t, 1)", "table.sort(t)", "table.concat(t)"] {
            let error = expectLuaError { try state.execute(lyingLength + call, chunkName: "=t") }
            XCTAssertEqual(error?.kind, .sandbox, call)
        }
        XCTAssertEqual(
            expectLuaError { try state.execute("table.move({}, 1, 2^40, 2)", chunkName: "=t") }?.kind, .sandbox)
        let product = expectLuaError {
            try state.execute("return ('a'):rep(2^20):find(('a'):rep(2000), 1, true)", chunkName: "=t")
        }
        XCTAssertEqual(product?.kind, .sandbox)
        // Ordinary uses still work.
        let code = """
            local t = {1, 2, 3}
            table.insert(t, 1, 0) table.insert(t, 9)
            local r = table.remove(t, 1)
            table.sort(t, function(a, b) return a > b end)
            return table.concat(t, ','), r, table.concat(table.move({1, 2, 3}, 1, 3, 2), ','), string.rep('ab', 3, ',')
            """
        XCTAssertEqual(try state.execute(code, chunkName: "=t"), ["9,3,2,1", .integer(0), "1,1,2,3", "ab,ab,ab"])
    }
}

infix operator .. : AdditionPrecedence
func .. (a: String, b: String) -> String { a + b }
