import Foundation
import LuaSandbox
import XCTest

/// The folder-confined require.
final class RequireTests: XCTestCase {
    var root: URL!
    var outside: URL!

    override func setUpWithError() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("lua-require-\(UUID().uuidString)")
        root = base.appendingPathComponent("plugin")
        outside = base.appendingPathComponent("outside")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("lib/util"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try write(
            "lib/format.lua",
            "loads = (loads or 0) + 1\nlocal M = {}\nfunction M.greet(n) return 'hello ' .. n end\nreturn M\n")
        try write("lib/util/init.lua", "return { name = ... }")
        try write("lib/bad.lua", "#!/usr/bin/env lua\nlocal x = = 1\n")
        try write("lib/fails.lua", "\n\nerror('module failed')\n")
        try write("lib/a.lua", "return require('lib.b')")
        try write("lib/b.lua", "return require('lib.a')")
        try write("lib/nothing.lua", "x_loaded = true")
        try "return 'secret'".write(to: outside.appendingPathComponent("secret.lua"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("escape.lua").path,
            withDestinationPath: outside.appendingPathComponent("secret.lua").path)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("alias.lua").path,
            withDestinationPath: root.appendingPathComponent("lib/format.lua").path)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root.deletingLastPathComponent())
    }

    func write(_ path: String, _ text: String) throws {
        try text.write(to: root.appendingPathComponent(path), atomically: true, encoding: .utf8)
    }

    func makeState() throws -> LuaState {
        let state = try LuaState()
        try state.installRequire(root: root.path)
        return state
    }

    func testLoadsModulesAndCachesThem() throws {
        let state = try makeState()
        XCTAssertEqual(try state.eval("return require('lib.format').greet('you')"), "hello you")
        XCTAssertEqual(
            try state.eval("return rawequal(require('lib.format'), require('lib.format')), loads"),
            .boolean(true))
        XCTAssertEqual(state.global("loads"), .integer(1), "a module runs once per state")
        XCTAssertEqual(try state.eval("return require('lib.util').name"), "lib.util", "init.lua, called with its name")
        XCTAssertEqual(try state.eval("return require('lib.nothing')"), .boolean(true))
        XCTAssertEqual(
            try state.eval("return require('alias').greet('x')"), "hello x", "symlinks inside the folder are fine")
    }

    func testRefusesNamesThatLeaveTheFolder() throws {
        let state = try makeState()
        for name in [
            "..", "../outside/secret", "..outside.secret", "/etc/passwd", "lib/format", "lib..format", ".hidden",
            "lib.", "-x",
        ] {
            let error = expectLuaError { try state.execute("return require('\(name)')", chunkName: "=t") }
            XCTAssertEqual(error?.kind, .sandbox, name)
        }
    }

    func testRefusesSymlinksEscapingTheFolder() throws {
        let state = try makeState()
        let error = expectLuaError { try state.execute("return require('escape')", chunkName: "=t") }
        XCTAssertEqual(error?.kind, .sandbox)
        XCTAssertTrue(error?.message.contains("outside the module folder") ?? false, error?.message ?? "")
    }

    func testMissingModule() throws {
        let state = try makeState()
        let error = expectLuaError { try state.execute("return require('lib.missing')", chunkName: "=t") }
        XCTAssertEqual(error?.kind, .runtime)
        XCTAssertTrue(error?.message.contains("module 'lib.missing' not found") ?? false, error?.message ?? "")
    }

    func testErrorsInModulesNameTheFile() throws {
        let state = try makeState()
        let syntax = expectLuaError { try state.execute("return require('lib.bad')", chunkName: "=t") }
        XCTAssertTrue(
            syntax?.message.hasPrefix("lib/bad.lua:2:") ?? false, "shebang blanked, line kept: \(syntax?.message ?? "")"
        )
        let runtime = expectLuaError { try state.execute("return require('lib.fails')", chunkName: "=t") }
        XCTAssertEqual(runtime?.message, "lib/fails.lua:3: module failed")
        // A failed module is not cached: it fails again instead of returning nothing.
        XCTAssertNotNil(expectLuaError { try state.execute("return require('lib.fails')", chunkName: "=t") })
    }

    func testCyclesAreReported() throws {
        let state = try makeState()
        let error = expectLuaError { try state.execute("return require('lib.a')", chunkName: "=t") }
        XCTAssertTrue(error?.message.contains("loop while loading module 'lib.a'") ?? false, error?.message ?? "")
    }

    func testEnvironmentAndChunkPrefix() throws {
        let state = try LuaState()
        let env = try state.makeEnvironment()
        try state.installRequire(root: root.path, in: env, environment: env, chunkNamePrefix: "plugins/p/")
        XCTAssertEqual(state.global("require"), .nil, "installed only in the plugin's environment")
        try state.execute("require('lib.format')", chunkName: "=p", environment: env)
        XCTAssertEqual(try state.get(env, "loads"), .integer(1), "module globals land in the plugin env")
        XCTAssertEqual(state.global("loads"), .nil)
        let error = expectLuaError { try state.execute("require('lib.fails')", chunkName: "=p", environment: env) }
        XCTAssertEqual(error?.message, "plugins/p/lib/fails.lua:3: module failed")
    }
}
