import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua

/// One user of the host: a Lua runtime of its own (the plugins loaded into it, `realm` bound to the
/// user's realm) and the realm. A tenant is used by one thread at a time: only inside
/// `TenantHost.withTenant`, which holds the user's lock and lets nothing non-Sendable out.
public final class Tenant {
    public let name: String
    public let runtime: RealmLuaRuntime
    public let realm: Realm
    let plugins: [LoadedPlugin]

    init(name: String, runtime: RealmLuaRuntime, realm: Realm, plugins: [LoadedPlugin]) {
        self.name = name
        self.runtime = runtime
        self.realm = realm
        self.plugins = plugins
    }

    /// The plugin commands this tenant can run (`.name args` in the REPL), by name.
    public var commandNames: [String] { plugins.flatMap { $0.commands.keys }.sorted() }

    /// The plugin that provides a command, with its description.
    public func commandPlugin(_ name: String) -> String? { plugins.first { $0.commands[name] != nil }?.manifest.name }

    /// Runs a plugin command with `realm` and the string arguments.
    @discardableResult
    public func runCommand(_ name: String, arguments: [String]) throws -> [LuaValue] {
        try requireCommand(name)
        guard let command = plugins.lazy.compactMap({ $0.commands[name] }).first else { return [] }
        let call = {
            try self.runtime.call(
                command.function, [try self.runtime.luaValue(self.realm)] + arguments.map { .string($0) })
        }
        guard let limits = command.limits else { return try call() }
        return try runtime.state.withLimits(limits, call)
    }

    /// Throws, naming the commands there are, unless a plugin has the command `name`.
    public func requireCommand(_ name: String) throws {
        guard !plugins.contains(where: { $0.commands[name] != nil }) else { return }
        throw HostError.plugin(
            "No command '.\(name)'. Commands: \(commandNames.map { "." + $0 }.joined(separator: ", "))")
    }
}
