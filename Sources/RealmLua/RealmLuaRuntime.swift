import Foundation
import LuaSandbox
import RealmDatabase

/// A tenant's Lua world: one sandboxed Lua state with the API of LUA-API.md installed.
///
/// Every realm a script opens is tracked, so that when a chunk fails, any write it left open is
/// rolled back ("nothing of a failed script's open transaction is kept").
public final class RealmLuaRuntime {
    public let state: LuaState
    /// The tenant's name (`user.name` in Lua).
    public let userName: String
    /// Where relative `fileURL`s resolve.
    public let folder: URL
    /// Checks every file a script's configuration names; throws to refuse it (tenant isolation).
    public var fileAccessPolicy: (URL) throws -> Void
    /// What `Realm.Configuration.defaultConfiguration` is inside this runtime.
    var defaultConfiguration: ConfigurationBox
    private var openedRealms: [WeakRealm] = []
    /// What the members of each binding give, by Lua type name (see `MemberResult`).
    var memberResults: [String: [String: MemberResult]] = [:]
    /// The chunk completion lists table keys with (see `completionHelper()`).
    var completionKeys: LuaFunctionRef?
    /// See `box(_:)`.
    var boxesSinceCollection = 0
    /// The time a migration step may take (see `withMigrationLimits`): 10 minutes by default.
    public var migrationTimeLimit: Duration = .seconds(600)
    /// Syncs the realms of flexible-sync configurations; nil: they open as local realms.
    public var syncProvider: (any LuaSyncProvider)?
    /// The synced realm instances scripts opened and their sessions (`realm.syncSession`).
    var syncSessions: [SyncSessionEntry] = []

    struct WeakRealm { weak var realm: Realm? }

    /// Creates a runtime for a tenant whose realms live in `folder`.
    public init(userName: String, folder: URL, defaultConfiguration: Realm.Configuration, limits: LuaLimits = .default)
        throws
    {
        self.userName = userName
        self.folder = folder
        self.defaultConfiguration = ConfigurationBox(defaultConfiguration)
        state = try LuaState(limits: limits)
        let root = folder.standardizedFileURL.path
        fileAccessPolicy = { url in
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(root + "/") else {
                throw LuaError(.sandbox, "a realm file must be inside the data folder; '\(url.path)' is not")
            }
        }
        try installAPI()
    }

    /// Where Lua's `print` goes.
    public var output: ((String) -> Void)? {
        get { state.outputHandler }
        set { state.outputHandler = newValue }
    }

    /// The default configuration as Swift sees it (with any Lua blocks wrapped).
    public var swiftDefaultConfiguration: Realm.Configuration { resolved(defaultConfiguration) }

    /// Sets the Lua-side default configuration (for example from a host or plugin).
    public func setDefaultConfiguration(_ configuration: Realm.Configuration) {
        defaultConfiguration = ConfigurationBox(configuration)
    }

    private func installAPI() throws {
        try registerErrors()
        try registerValueTypes()
        try registerConfiguration()
        try registerRealm()
        try registerObject()
        try registerResults()
        try registerCollections()
        try registerMigration()
        try registerSubscriptions()
        try registerSyncSession()
        try registerSyncOpening()
    }

    // MARK: Realms

    /// Opens a realm for a script and tracks it.
    func open(_ box: ConfigurationBox) throws -> Realm {
        let configuration = resolved(box)
        if let url = configuration.fileURL { try fileAccessPolicy(url) }
        if box.isFlexibleSync, let provider = syncProvider { return try openSynced(box, configuration, provider).realm }
        let realm = try Realm(configuration: configuration)
        track(realm)
        return realm
    }

    func track(_ realm: Realm) {
        openedRealms.removeAll { $0.realm == nil }
        if !openedRealms.contains(where: { $0.realm === realm }) { openedRealms.append(WeakRealm(realm: realm)) }
    }

    /// Makes `realm` a global (`realm` by default) of the state.
    public func bind(_ realm: Realm, as name: String = "realm") throws {
        track(realm)
        try state.setGlobal(name, try box(realm))
    }

    /// The realms scripts opened that are still alive, oldest first.
    var openRealms: [Realm] { openedRealms.compactMap(\.realm) }

    /// Cancels every write transaction left open by scripts.
    public func rollbackOpenWrites() {
        for weak in openedRealms {
            if let realm = weak.realm, realm.isInWriteTransaction { realm.cancelWrite() }
        }
    }

    /// Brings every realm scripts opened up to date with commits made elsewhere (another process,
    /// another instance) and delivers their notifications: the REPL's run loop turn, before each
    /// statement. A realm with a write open is left as it is (its snapshot is the write's).
    public func refreshOpenRealms() {
        for realm in openRealms where !realm.isInWriteTransaction { realm.refresh() }
    }

    /// Whether some realm opened by scripts has a write transaction open.
    public var hasOpenWrite: Bool { openedRealms.contains { $0.realm?.isInWriteTransaction == true } }

    /// Runs a chunk; if it fails, open writes are rolled back and the error is rethrown (a
    /// database error comes as a `LuaError` with the `RealmError` in `underlying`).
    @discardableResult
    public func execute(_ code: String, chunkName: String, environment: LuaTableRef? = nil) throws -> [LuaValue] {
        do {
            return try state.execute(code, chunkName: chunkName, environment: environment)
        } catch {
            rollbackOpenWrites()
            throw error
        }
    }

    /// Calls a Lua function under the same rule.
    @discardableResult
    public func call(_ function: LuaFunctionRef, _ arguments: [LuaValue] = []) throws -> [LuaValue] {
        do {
            return try state.call(function, arguments)
        } catch {
            rollbackOpenWrites()
            throw error
        }
    }

    /// Runs a script file with `arg` set to its arguments, as the `lua` program does.
    @discardableResult
    /// `chunkName` names the file in error positions (default `@path`; Lua keeps 60 characters).
    public func runFile(_ path: String, arguments: [String] = [], chunkName: String? = nil) throws -> [LuaValue] {
        var argTable = LuaTable(array: arguments.map { .string($0) })
        argTable.hash[.integer(0)] = .string(path)
        try state.setGlobal("arg", .plainTable(argTable))
        let function = try state.loadFile(path, chunkName: chunkName)
        return try call(function, arguments.map { .string($0) })
    }

    /// A Swift configuration from a Lua one: Lua blocks become Swift closures that call back into
    /// this state (weakly: a configuration must not keep the runtime alive).
    func resolved(_ box: ConfigurationBox) -> Realm.Configuration {
        var c = box.configuration
        if let block = box.migrationBlock {
            c.migrationBlock = { [weak self] migration, oldVersion in
                guard let self else { throw RealmError(.migration, "The Lua runtime of this migration is gone.") }
                _ = try self.withMigrationLimits {
                    try self.state.call(block, [try self.box(migration), .integer(Int64(oldVersion))])
                }
            }
        }
        if let block = box.initialSubscriptions {
            c.initialSubscriptions = { [weak self] subs in
                guard let self else {
                    throw RealmError(.subscription, "The Lua runtime of these subscriptions is gone.")
                }
                try self.state.call(block, [try self.box(subs)])
            }
        }
        return c
    }
}

extension RealmLuaRuntime {
    /// Runs a migration step under the migration time limit: a step over a million objects
    /// legitimately runs longer than a REPL line may (the memory cap stays as configured).
    public func withMigrationLimits<T>(_ body: () throws -> T) rethrows -> T {
        var limits = state.limits
        if let time = limits.time, time < migrationTimeLimit { limits.time = migrationTimeLimit }
        return try state.withLimits(limits, body)
    }
}

/// Throws a Lua-facing error with a message (for argument checks in bindings).
func luaError(_ message: String) -> LuaError { LuaError(.runtime, message) }
