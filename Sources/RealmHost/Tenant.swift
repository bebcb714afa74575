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
    /// Observers front ends keep alive in this tenant (a live query's token), by id: they deliver
    /// while the tenant is open, until released. `TenantHost.pin` keeps the tenant open for them.
    private var keptObservers: [Int: NotificationToken] = [:]
    /// The user's synced realm, once `appRealm()` opened it (kept: its session stays connected while
    /// the tenant is open).
    private var syncedRealm: Realm?
    private var nextObserverID = 0

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

    /// A command's arguments and what it does, as its plugin declares them (`usage`, `help`).
    public func commandUsage(_ name: String) -> (usage: String?, help: String?) {
        let command = plugins.lazy.compactMap { $0.commands[name] }.first
        return (command?.usage, command?.help)
    }

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

    /// The realm apps reach (`realm-host serve`'s functions, objects and watches): the user's synced
    /// realm when the host syncs (`<user>.sync.realm`, opened on first use and kept open with its
    /// session while the tenant is), else the local `realm`.
    public func appRealm() throws -> Realm {
        if let syncedRealm { return syncedRealm }
        guard let synced = try runtime.openUserSyncedRealm() else { return realm }
        syncedRealm = synced
        return synced
    }

    /// Keeps `token` delivering until `release(observer:)`; its id.
    public func keep(_ token: NotificationToken) -> Int {
        nextObserverID += 1
        keptObservers[nextObserverID] = token
        return nextObserverID
    }

    /// Stops and drops a kept observer.
    public func release(observer id: Int) {
        keptObservers.removeValue(forKey: id)?.invalidate()
    }

    /// How many observers are kept (for tests and metrics).
    public var keptObserverCount: Int { keptObservers.count }

    /// The plugin functions apps can call, by name.
    public var functionNames: [String] { plugins.flatMap { $0.functions.keys }.sorted() }

    /// Whether a plugin declares the function `name`.
    public func hasFunction(_ name: String) -> Bool { plugins.contains { $0.functions[name] != nil } }

    /// Calls a plugin function as an app does: `f(realm, args, caller)`, under the host's limits
    /// or the function's own where they are lower (a function may ask for less, never for more).
    @discardableResult
    public func callFunction(_ name: String, arguments: RealmValue, caller: RealmValue) throws -> [LuaValue] {
        guard let function = plugins.lazy.compactMap({ $0.functions[name] }).first else {
            throw HostError.plugin(
                "No function '\(name)'. Functions: \(functionNames.isEmpty ? "none" : functionNames.joined(separator: ", "))"
            )
        }
        let call = {
            try self.runtime.call(
                function.function,
                [
                    try self.runtime.luaValue(try self.appRealm()), try self.runtime.luaValue(arguments),
                    try self.runtime.luaValue(caller),
                ])
        }
        guard let own = function.limits else { return try call() }
        return try runtime.state.withLimits(Self.lower(own, runtime.state.limits), call)
    }

    /// Each limit the lower of the two (nil is no limit).
    static func lower(_ a: LuaLimits, _ b: LuaLimits) -> LuaLimits {
        func least<T: Comparable>(_ x: T?, _ y: T?) -> T? { x.flatMap { x in y.map { min(x, $0) } ?? x } ?? y }
        var limits = b
        limits.memory = least(a.memory, b.memory)
        limits.instructions = least(a.instructions, b.instructions)
        limits.time = least(a.time, b.time)
        return limits
    }

    /// Throws, naming the commands there are, unless a plugin has the command `name`.
    public func requireCommand(_ name: String) throws {
        guard !plugins.contains(where: { $0.commands[name] != nil }) else { return }
        throw HostError.plugin(
            "No command '.\(name)'. Commands: \(commandNames.map { "." + $0 }.joined(separator: ", "))")
    }
}
