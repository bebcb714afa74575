import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua

/// The outcome of a plugin's tests.
public struct PluginTestReport {
    public struct Failure {
        public let file: String
        public let test: String
        public let message: String
    }
    public var passed = 0
    public var failures: [Failure] = []
    public var failed: Int { failures.count }
}

/// Runs a plugin's `tests/*.lua`. Each file runs in a fresh data folder as the user `test`, with
/// the plugin loaded, `realm` bound to a new realm, and these helpers:
/// `test(name, fn)`, `assertEqual(actual, expected [, message])`, `assertTrue(value [, message])`,
/// `assertError(fn [, text])` (returns the error), `freshRealm([config])` (a new, empty realm
/// file of the user, with the plugin's configuration unless another is given),
/// `command(name, ...)` (runs one of the plugin's commands on `realm`), and
/// `call(name, args, claims)` (calls one of the plugin's `functions` as an app would through
/// `realm-host serve`: `args` a table, the caller the user `test` with `claims` and `sub = "test"`).
public enum PluginTestRunner {
    static let prelude = """
        local tests = {}
        function test(name, fn) tests[#tests + 1] = { name = name, fn = fn } end
        local function show(v) return type(v) == "string" and string.format("%q", v) or tostring(v) end
        function assertEqual(actual, expected, message)
          if actual ~= expected then
            error((message and message .. ": " or "") .. "expected " .. show(expected) .. ", got " .. show(actual), 2)
          end
        end
        function assertTrue(value, message) if not value then error(message or "expected a true value", 2) end end
        function assertError(fn, text)
          local ok, err = pcall(fn)
          if ok then error("expected an error", 2) end
          if text and not string.find(tostring(err), text, 1, true) then
            error("the error '" .. tostring(err) .. "' does not contain '" .. text .. "'", 2)
          end
          return err
        end
        local fresh = 0
        function freshRealm(config)
          fresh = fresh + 1
          local c = config or Realm.Configuration.defaultConfiguration
          c.fileURL = user.name .. ".fresh" .. fresh .. ".realm"
          return Realm(c)
        end
        return function() return tests end
        """

    public static func run(pluginFolder: URL, output: @escaping (String) -> Void, limits: LuaLimits = .default) throws
        -> PluginTestReport
    {
        let testsFolder = pluginFolder.appendingPathComponent("tests")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: testsFolder.path)) ?? []).filter {
            $0.hasSuffix(".lua")
        }.sorted()
        guard !files.isEmpty else { throw HostError.plugin("\(testsFolder.path): no tests (*.lua) found") }
        var report = PluginTestReport()
        for file in files {
            let data = FileManager.default.temporaryDirectory.appendingPathComponent(
                "realm-host-plugin-test-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: data) }
            var options = HostOptions(dataFolder: data, pluginFolders: [pluginFolder], limits: limits)
            options.cacheSize = 1
            let host = try TenantHost(options: options)
            try host.withTenant("test") { tenant in
                let runtime = tenant.runtime
                runtime.output = { output("  " + $0) }
                try runtime.state.register("command") { ctx in
                    let arguments = try ctx.argumentCount < 2 ? [] : (2...ctx.argumentCount).map { try ctx.string($0) }
                    return try ctx.returning(try tenant.runCommand(try ctx.string(1), arguments: arguments))
                }
                try runtime.state.register("call") { ctx in
                    let arguments = ctx.argumentCount >= 2 ? try runtime.realmValue(ctx.argument(2)) : .dictionary([:])
                    var claims: [String: RealmValue] = [:]
                    if ctx.argumentCount >= 3, case .dictionary(let given) = try runtime.realmValue(ctx.argument(3)) {
                        claims = given
                    }
                    claims["sub"] = .string(tenant.name)
                    let caller = RealmValue.dictionary(["user": .string(tenant.name), "claims": .dictionary(claims)])
                    return try ctx.returning(
                        try tenant.callFunction(try ctx.string(1), arguments: arguments, caller: caller))
                }
                let path = testsFolder.appendingPathComponent(file).path
                do {
                    guard case .function(let listTests)? = try runtime.execute(prelude, chunkName: "=plugin-test").first
                    else { return }
                    // Named relative to the plugin (`tests/dogs.lua:12:`): an absolute path is cut
                    // by Lua's 60-character chunk names.
                    try runtime.runFile(path, chunkName: "@tests/" + file)
                    guard case .table(let list)? = try runtime.call(listTests).first else { return }
                    let count = try runtime.state.length(list)
                    output("\(file): \(count) tests")
                    for i in 0..<count {
                        guard case .table(let entry) = try runtime.state.get(list, .integer(Int64(i + 1))),
                            case .function(let fn) = try runtime.state.get(entry, "fn")
                        else { continue }
                        let name = try runtime.state.get(entry, "name").stringValue ?? "test \(i + 1)"
                        do {
                            try runtime.call(fn)
                            report.passed += 1
                            output("  ✓ \(name)")
                        } catch {
                            report.failures.append(.init(file: file, test: name, message: "\(error)"))
                            output("  ✗ \(name): \(error)")
                        }
                    }
                } catch {
                    report.failures.append(.init(file: file, test: "(loading the file)", message: "\(error)"))
                    output("✗ \(file): \(error)")
                }
            }
        }
        output("\(report.passed) passed, \(report.failed) failed")
        return report
    }
}
