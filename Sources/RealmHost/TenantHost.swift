import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import Synchronization

/// The host: many users' realms in one process.
///
/// Each user's realm is `<data folder>/<user>.realm`, opened with the plugins' schema, version,
/// migrations and initial subscriptions. Tenants are cached (least recently used idle tenant closed
/// first); work for different users runs in parallel, work for one user is serialized by the user's
/// lock, which lives in the cache beside the tenant and is never dropped while held or awaited.
///
/// `@unchecked Sendable`: its stored properties are immutable except `cache`, a `PlainLock`; the
/// non-Sendable tenants it holds are reached only under their user's lock (`TenantSlot`).
public final class TenantHost: @unchecked Sendable {
    public let options: HostOptions
    public let registry: PluginRegistry
    /// The users' slots (lock and tenant); see `TenantCache` for when a tenant leaves it.
    private let cache = PlainLock(TenantCache())
    /// Carries the tenants' sync sessions when the host has a sync URL.
    public let syncTransport: (any SyncSessionTransport)?
    /// The hosts sharing the users and which one this is; nil: this host serves every user.
    public let cluster: HostCluster?

    /// Creates the data folder if needed, applies `host.lua`, and loads and checks the plugins.
    /// `syncTransport` makes the transport to the sync server when the options (after `host.lua`)
    /// name one; without it, or without a URL, flexible-sync realms open local only.
    public init(
        options: HostOptions, syncTransport: ((HostSyncOptions) throws -> any SyncSessionTransport)? = nil
    ) throws {
        var options = options
        do {
            try FileManager.default.createDirectory(at: options.dataFolder, withIntermediateDirectories: true)
        } catch {
            throw HostError.io(
                "Cannot create the data folder '\(options.dataFolder.path)': \(error.localizedDescription)")
        }
        try HostConfigurationFile.apply(to: &options)
        self.options = options
        // The process's waits for other connections' locks take the host's bound (one host per
        // process; the front end says how a wait is announced and stopped).
        LockWaitPolicy.current.limit = options.lockWait
        do {
            cluster = try options.cluster.resolved()
        } catch {
            throw HostError.configuration("The cluster configuration is wrong: \(error)")
        }
        registry = try PluginRegistry(folders: options.pluginFolders, limits: options.limits)
        if let makeTransport = syncTransport, options.sync.url != nil {
            self.syncTransport = try makeTransport(options.sync)
        } else {
            self.syncTransport = nil
        }
    }

    public var dataFolder: URL { options.dataFolder }

    /// The file of a user's realm (the seed's recipe: the default file's folder, the user name, `.realm`).
    public func fileURL(for user: String) throws -> URL {
        try UserName.validate(user)
        var url = dataFolder.appendingPathComponent("default.realm")
        url.deleteLastPathComponent()
        url.appendPathComponent(user)
        url.appendPathExtension("realm")
        return url
    }

    /// The realm files a user's scripts may open: `<user>.realm` and `<user>.<name>.realm` in the
    /// data folder, never through a symbolic link.
    func fileAccessPolicy(for user: String) -> (URL) throws -> Void {
        let folder = dataFolder.standardizedFileURL.path
        return { url in
            let path = url.standardizedFileURL.path
            let name = (path as NSString).lastPathComponent
            // The name is also checked on Unicode scalars, as the file system sees it: Foundation's
            // path functions split on Characters, where "/" + a combining mark is no separator, and
            // SQLite ends the path at a NUL (found by ReliabilityTests).
            guard (path as NSString).deletingLastPathComponent == folder,
                !name.unicodeScalars.contains(where: { $0 == "/" || $0 == "\0" }),
                name == "\(user).realm" || (name.hasPrefix("\(user).") && name.hasSuffix(".realm"))
            else {
                throw LuaError(
                    .sandbox,
                    "user '\(user)' may only open its own realm files ('\(user).realm' or '\(user).<name>.realm' "
                        + "in the data folder), not '\(url.path)'"
                )
            }
            // SQLite follows links when it opens the file and the files beside it: a link named
            // `<file>-wal` sent this realm's log into another user's database (found by ReliabilityTests).
            for suffix in ["", "-wal", "-shm", "-journal"] {
                if let type = try? FileManager.default.attributesOfItem(atPath: path + suffix)[.type]
                    as? FileAttributeType, type == .typeSymbolicLink
                {
                    throw LuaError(.sandbox, "'\(name + suffix)' is a symbolic link; realm files must be regular files")
                }
            }
        }
    }

    /// A new runtime for a user with the plugins loaded and the user's configuration as its default.
    func makeRuntime(for user: String) throws -> (RealmLuaRuntime, [LoadedPlugin], Realm.Configuration) {
        let url = try fileURL(for: user)
        try fileAccessPolicy(for: user)(url)
        let runtime = try RealmLuaRuntime(
            userName: user, folder: dataFolder, defaultConfiguration: Realm.Configuration(fileURL: url),
            limits: options.limits(for: user))
        runtime.fileAccessPolicy = fileAccessPolicy(for: user)
        if let syncTransport { runtime.syncProvider = TenantSyncProvider(user: user, transport: syncTransport) }
        let plugins = try registry.plugins.map { try PluginLoader.load(folder: $0.folder, into: runtime) }
        let configuration = self.configuration(fileURL: url, runtime: runtime, plugins: plugins)
        runtime.setDefaultConfiguration(configuration)
        return (runtime, plugins, configuration)
    }

    /// The configuration of a user's realm: the plugins' schema and version; a migration block
    /// running each plugin's `migration` function and its numbered migration files for every
    /// version step; the plugins' initial subscriptions and `onOpen`.
    func configuration(fileURL: URL, runtime: RealmLuaRuntime, plugins: [LoadedPlugin]) -> Realm.Configuration {
        if options.openAsStored {
            // The file's own schema and version (`Realm.Configuration` without a schema reads them).
            return Realm.Configuration(fileURL: fileURL, readOnly: true)
        }
        var c = Realm.Configuration(fileURL: fileURL)
        c.schema = registry.schema
        c.schemaVersion = registry.schemaVersion
        let target = registry.schemaVersion
        if plugins.contains(where: { $0.migration != nil || !$0.manifest.migrationFiles.isEmpty }) {
            c.migrationBlock = { [weak runtime] migration, oldVersion in
                guard let runtime else { throw RealmError(.migration, "The tenant's Lua runtime is gone.") }
                try runtime.withMigrationLimits {
                    try TenantHost.runPluginMigrations(
                        plugins, to: target, in: runtime, migration: migration, from: oldVersion)
                }
            }
        }
        let subscriptionBlocks = plugins.compactMap(\.initialSubscriptions)
        if !subscriptionBlocks.isEmpty {
            c.initialSubscriptions = { [weak runtime] subs in
                guard let runtime else { return }
                let value = try runtime.luaValue(subs)
                for f in subscriptionBlocks { try runtime.state.call(f, [value]) }
            }
        }
        let onOpen = plugins.compactMap(\.onOpen)
        if !onOpen.isEmpty {
            c.onOpenBlock = { [weak runtime] realm in
                guard let runtime else { return }
                let value = try runtime.luaValue(realm)
                for f in onOpen { try runtime.state.call(f, [value]) }
            }
        }
        return c
    }

    /// Each plugin's `migration` function, then its numbered migration files for the steps from
    /// `oldVersion` (exclusive) to `target` (inclusive), in order, in the open migration.
    static func runPluginMigrations(
        _ plugins: [LoadedPlugin], to target: UInt64, in runtime: RealmLuaRuntime,
        migration: Migration, from oldVersion: UInt64
    ) throws {
        let value = try runtime.luaValue(migration)
        for plugin in plugins {
            if let f = plugin.migration { try runtime.state.call(f, [value, .integer(Int64(oldVersion))]) }
            for (version, file) in plugin.manifest.migrationFiles.sorted(by: { $0.key < $1.key })
            where version > oldVersion && version <= target {
                let chunk = try runtime.state.loadFile(
                    file.path, chunkName: "@" + PluginLoader.displayPath(file), environment: plugin.environment)
                guard case .function(let step)? = try runtime.state.call(chunk).first else {
                    throw HostError.plugin(
                        "\(file.path): a migration file must return a function(migration, oldSchemaVersion)")
                }
                try runtime.state.call(step, [value, .integer(Int64(oldVersion))])
            }
        }
    }

    /// Opens (or takes from the cache) a user's tenant and runs `body` with it (refused with
    /// `HostError.servedElsewhere` when the host's cluster assigns the user to another host), serialized with
    /// any other work for the same user (the user's lock is held throughout). `body` cannot hand the
    /// tenant, its realm or its Lua runtime out: what it returns must be `Sendable`.
    @discardableResult
    public func withTenant<T: Sendable>(_ user: String, _ body: (Tenant) throws -> T) throws -> T {
        try UserName.validate(user)
        try checkServesHere(user)
        let slot = cache.withLock { $0.checkOut(user) }
        var hasTenant = false
        defer {
            // Dropped outside the lock: closing an evicted tenant's realm and Lua state takes time.
            let evicted = cache.withLock { c in
                c.checkIn(user, hasTenant: hasTenant)
                return c.evictIdle(capacity: options.cacheSize)
            }
            withExtendedLifetime(evicted) {}
        }
        return try slot.withLock { holder throws -> T in
            let tenant = try holder.tenant ?? openTenant(user)
            holder.tenant = tenant
            hasTenant = true
            return try body(tenant)
        }
    }

    /// Builds a user's tenant: its Lua runtime with the plugins, and its realm.
    private func openTenant(_ user: String) throws -> Tenant {
        let (runtime, plugins, configuration) = try makeRuntime(for: user)
        let realm: Realm
        do {
            realm = try Realm(configuration: configuration)
        } catch {
            // At the plugins' version, a schema that needs a migration: name the plugin and what to raise.
            if let url = configuration.fileURL, let stored = try? Realm.storedSchemaVersion(at: url),
                stored == configuration.schemaVersion, let why = try? unversionedSchemaChange(at: url, version: stored)
            {
                throw HostError.configuration("Cannot open the realm of user '\(user)': \(why)")
            }
            // A migration that fails leaves the realm unopenable with these plugins: say the way in.
            var hint = ""
            if let url = configuration.fileURL, let stored = try? Realm.storedSchemaVersion(at: url),
                stored < configuration.schemaVersion
            {
                hint =
                    " (the realm stays at schema version \(stored); `realm-host repl --no-migrate --user \(user)` "
                    + "opens it as stored, read-only)"
            }
            throw HostError.configuration("Cannot open the realm of user '\(user)': \(error)\(hint)")
        }
        try runtime.bind(realm)
        return Tenant(name: user, runtime: runtime, realm: realm, plugins: plugins)
    }

    /// Users whose tenant has a write transaction left open between calls (a console's
    /// `realm:beginWrite()` at its prompt), as `TenantSession`s report it.
    private let openWrites = Mutex<Set<String>>([])

    /// Records whether `user`'s tenant has a write open after a call.
    func noteOpenWrite(_ user: String, _ open: Bool) {
        openWrites.withLock { users in
            if open { users.insert(user) } else { users.remove(user) }
        }
    }

    /// Whether a session left a write open on `user`'s tenant (another caller must not join it). No
    /// tenant lock is taken: it answers while that session's user is busy.
    public func hasOpenWrite(_ user: String) -> Bool { openWrites.withLock { $0.contains(user) } }

    /// Keeps a user's tenant open while idle, until as many `unpin`s: its realm holds observers
    /// (live queries) that closing it would end. Counted: each watch pins once.
    public func pin(_ user: String) { cache.withLock { $0.pin(user) } }

    public func unpin(_ user: String) {
        let evicted = cache.withLock { c in
            c.unpin(user)
            return c.evictIdle(capacity: options.cacheSize)
        }
        withExtendedLifetime(evicted) {}
    }

    /// The tenants open right now, least recently used first. Past `cacheSize` only while every
    /// older tenant is in use (a busy tenant is never evicted).
    public var openTenants: [String] { cache.withLock { $0.order } }

    /// Closes every cached tenant not in use (their realms and Lua states are freed); a tenant in
    /// use stays until its work is done, then leaves the cache as usual.
    public func closeAll() {
        let removed = cache.withLock { $0.removeIdle() }
        withExtendedLifetime(removed) {}
    }
}
