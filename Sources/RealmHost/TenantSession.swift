import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua

/// The one path from a front end (the REPL, `realm-host run`, plugin commands) to a tenant's Lua
/// runtime and realm: compile a chunk, run it with the session's output and warning hooks and
/// its interruption scope, roll back a write a failing chunk left open, and report failures as
/// `ChunkError`s of a few kinds.
///
/// A session belongs to one thread; the tenant it works on is taken from the host for each run,
/// so runs stay serialized with any other work on the same tenant.
public final class TenantSession {
    public let host: TenantHost
    /// The user whose tenant the session runs in.
    public private(set) var user: String
    /// Where Lua's `print` goes.
    public let output: (String) -> Void
    /// Where Lua's `warn` goes.
    public let warning: (String) -> Void
    /// Runs a chunk so that it can be cancelled from outside (the CLI arms Ctrl-C here); by
    /// default the chunk just runs.
    public var interruptScope: (LuaCancelHandle, () throws -> [LuaValue]) throws -> [LuaValue] = { _, body in
        try body()
    }
    /// Whether a write transaction was open after the last run (cached so that a prompt costs
    /// no tenant lookup).
    public private(set) var hasOpenWrite = false
    /// Whether the tenant had sync sessions after the last run (cached for the prompt: `isOffline`).
    public private(set) var syncPresence = TenantSyncPresence.none
    /// The tenant whose hooks point at this session (hooks are set once per tenant, not per run).
    private weak var hookedTenant: Tenant?

    public init(
        host: TenantHost, user: String, output: @escaping (String) -> Void,
        warning: @escaping (String) -> Void
    ) {
        self.host = host
        self.user = user
        self.output = output
        self.warning = warning
    }

    /// A compiled chunk, ready to run in this session's tenant.
    public struct Chunk: Sendable {
        let function: LuaFunctionRef
    }

    /// The result of compiling REPL input.
    public enum Compiled: Sendable {
        case ready(Chunk)
        /// The input ends inside a statement (`for i = 1, 3 do`): read another line.
        case incomplete
    }

    // MARK: Tenants

    /// Runs `body` with the session's tenant, its hooks pointing at this session. As with
    /// `TenantHost.withTenant`, nothing non-Sendable (the realm, the runtime) may leave `body`.
    public func withTenant<T: Sendable>(_ body: (Tenant) throws -> T) throws -> T {
        try host.withTenant(user) { tenant in
            installHooks(on: tenant)
            defer {
                let open = tenant.runtime.hasOpenWrite
                if open != hasOpenWrite { host.noteOpenWrite(user, open) }
                hasOpenWrite = open
                syncPresence = tenant.syncPresence
            }
            let result = try body(tenant)
            // Errors the server reported meanwhile reach the scripts' errorHandlers between chunks.
            tenant.runtime.deliverSyncErrors()
            return result
        }
    }

    private func installHooks(on tenant: Tenant) {
        guard hookedTenant !== tenant else { return }
        tenant.runtime.output = output
        tenant.runtime.state.warningHandler = warning
        hookedTenant = tenant
    }

    /// Makes `name` the session's user (its realm is created if new). Refused while the current
    /// user has a write transaction open, which would otherwise be left behind.
    public func switchUser(to name: String) throws {
        try UserName.validate(name)
        if try name != user && withTenant({ $0.runtime.hasOpenWrite }) {
            throw HostError.configuration(
                "User '\(user)' has an open write transaction: commit it "
                    + "(realm:commitWrite()) or cancel it (realm:cancelWrite()) first.")
        }
        try host.withTenant(name) { tenant in
            installHooks(on: tenant)
            hasOpenWrite = tenant.runtime.hasOpenWrite
            syncPresence = tenant.syncPresence
        }
        user = name
    }

    /// Refreshes the tenant's realms (`RealmLuaRuntime.refreshOpenRealms`): what the next statement
    /// reads is current, and observers hear of other processes' commits, as Realm's run loop does.
    public func refresh() throws {
        try withTenant { $0.runtime.refreshOpenRealms() }
    }

    /// Cancels the write transactions left open in the tenant; returns whether there were any.
    @discardableResult
    public func rollbackOpenWrites() throws -> Bool {
        try withTenant { tenant in
            guard tenant.runtime.hasOpenWrite else { return false }
            tenant.runtime.rollbackOpenWrites()
            return true
        }
    }

    // MARK: Compiling

    /// Compiles REPL input as `lua.c` does: `return <code>` first (so that an expression prints
    /// its value), else `<code>` as statements.
    ///
    /// - `firstLine`: the input line the code starts on, so that messages name the right line.
    /// - Throws: `ChunkError` of kind `.syntax`.
    public func compile(_ code: String, chunkName: String, firstLine: Int = 1) throws -> Compiled {
        let lead = String(repeating: "\n", count: max(0, firstLine - 1))
        let name = "=" + chunkName
        return try withTenant { tenant in
            let state = tenant.runtime.state
            if let function = try? state.load(lead + "return " + code, chunkName: name) {
                return .ready(Chunk(function: function))
            }
            do {
                return .ready(Chunk(function: try state.load(lead + code, chunkName: name)))
            } catch let error as LuaError where error.isIncompleteInput {
                return .incomplete
            } catch {
                throw ChunkError(error)
            }
        }
    }

    /// Compiles a script file (`chunkName` `@path`, as Lua names files).
    public func compileFile(_ path: String) throws -> Chunk {
        try withTenant { tenant in
            do {
                return Chunk(function: try tenant.runtime.state.loadFile(path))
            } catch {
                throw ChunkError(error)
            }
        }
    }

    // MARK: Running

    /// Runs a compiled chunk; `present` sees its values while the tenant is still held (printing
    /// may read objects and Lua tables).
    ///
    /// - Throws: `ChunkError`; any write the chunk left open is rolled back first.
    @discardableResult
    public func run<T: Sendable>(_ chunk: Chunk, present: ([LuaValue], LuaValueReader) throws -> T) throws -> T {
        try perform(present: present) { tenant in try tenant.runtime.call(chunk.function) }
    }

    /// Runs a script file with `arg` set to its arguments, as the `lua` program does.
    @discardableResult
    public func runFile(_ path: String, arguments: [String]) throws -> [LuaValue] {
        let asReturned: ([LuaValue], LuaValueReader) -> [LuaValue] = { values, _ in values }
        return try perform(present: asReturned) { tenant in
            try tenant.runtime.runFile(path, arguments: arguments)
        }
    }

    /// Runs a plugin command (`.name args` in the REPL) with `realm` and the string arguments.
    @discardableResult
    public func runCommand<T: Sendable>(
        _ name: String, arguments: [String],
        present: ([LuaValue], LuaValueReader) throws -> T
    ) throws -> T {
        // A mistyped command name is refused before anything runs: it must not roll back a write
        // the user left open on purpose (the rollback below is for failures of code that ran).
        do {
            try withTenant { try $0.requireCommand(name) }
        } catch {
            throw ChunkError(error)
        }
        return try perform(present: present) { tenant in try tenant.runCommand(name, arguments: arguments) }
    }

    /// Calls a plugin function as an app does (`POST /v1/functions/{name}`): `f(realm, args, caller)`.
    /// A failure rolls back the write the function left open; what it committed before stays.
    @discardableResult
    public func runFunction<T: Sendable>(
        _ name: String, arguments: RealmValue, caller: RealmValue,
        present: ([LuaValue], LuaValueReader) throws -> T
    ) throws -> T {
        try perform(present: present) { tenant in
            try tenant.callFunction(name, arguments: arguments, caller: caller)
        }
    }

    /// Runs `body` with the tenant as one step of this session: a write it leaves open after a
    /// failure is rolled back and the failure comes as a `ChunkError`, as for a chunk. For front
    /// ends that act on the realm from Swift (the app API's object verbs).
    @discardableResult
    public func perform<T: Sendable>(_ body: (Tenant) throws -> T) throws -> T {
        try withTenant { tenant in
            do {
                return try body(tenant)
            } catch {
                if tenant.runtime.hasOpenWrite { tenant.runtime.rollbackOpenWrites() }
                throw ChunkError(error)
            }
        }
    }

    /// The steps every run shares: hooks, interruption, rollback, classification.
    private func perform<T: Sendable>(
        present: ([LuaValue], LuaValueReader) throws -> T,
        _ body: (Tenant) throws -> [LuaValue]
    ) throws -> T {
        try withTenant { tenant in
            let runtime = tenant.runtime
            let wasInWrite = runtime.hasOpenWrite
            let values: [LuaValue]
            do {
                values = try interruptScope(runtime.state.cancelHandle) { try body(tenant) }
            } catch {
                // The runtime rolls back what a failing call left open; a failure outside a call
                // (a command that does not exist, a refused file) must not leave a write either.
                if runtime.hasOpenWrite { runtime.rollbackOpenWrites() }
                throw ChunkError(error, rolledBackEarlierWrite: wasInWrite)
            }
            return try present(values, LuaValueReader(runtime: runtime))
        }
    }
}
