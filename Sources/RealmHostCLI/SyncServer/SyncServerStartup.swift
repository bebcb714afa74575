import Foundation
import RealmDatabase
import RealmHost
import RealmSync
import RealmSyncNet
import RealmSyncPostgres

/// The steps of `realm-host sync-server` before it serves, each checking one input and throwing a
/// message that names it. Nothing is created in the data folder before the plugins load.
enum SyncServerStartup {
    /// The plugins of `folders`, loaded as a host loads them. Each folder must exist; together they
    /// must hold at least one plugin (a server without a schema has nothing to sync).
    static func plugins(_ folders: [String]) throws -> PluginRegistry {
        guard !folders.isEmpty else {
            throw CLIError.failed("--plugins is required: the folder of the plugins the hosts load")
        }
        let urls = folders.map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL }
        for url in urls { try checkFolder(url, flag: "--plugins") }
        let registry: PluginRegistry
        do {
            registry = try PluginRegistry(folders: urls)
        } catch {
            throw CLIError.failed("plugins: \(error)")
        }
        guard !registry.plugins.isEmpty else {
            let named = urls.map(displayPath).joined(separator: ", ")
            throw CLIError.failed("--plugins: no plugin in \(named) (a plugin is a folder with a plugin.lua)")
        }
        return registry
    }

    /// The plugins' merged sync rules, compiled against their schema.
    static func permissions(of registry: PluginRegistry) throws -> SyncPermissions {
        do {
            return try SyncPermissions.compile(registry.syncRules, schema: registry.schema)
        } catch {
            throw CLIError.failed("plugins: the sync rules: \(error)")
        }
    }

    /// Creates the data folder when missing.
    static func makeDataFolder(_ url: URL) throws {
        if FileManager.default.fileExists(atPath: url.path) { return try checkFolder(url, flag: "--data") }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw CLIError.failed("--data \(displayPath(url)): cannot create the folder: \(error.localizedDescription)")
        }
    }

    /// The server on its store, not started yet. On PostgreSQL the store may be shared with other
    /// servers (docs/SYNC.md "Several servers on one store"): uploads go through its inbox, and the
    /// server integrates only while it holds the integrator role.
    static func server(
        listen: ListenAddress, store: SyncStoreLocation, schema: sending Schema, permissions: SyncPermissions,
        secret: SyncSharedSecret
    ) throws -> SyncNetServer {
        let configuration = SyncNetServerConfiguration(host: listen.host, port: listen.port)
        do {
            switch store {
            case .sqlite(let path):
                return try SyncNetServer(
                    configuration: configuration, storePath: path, schema: schema, permissions: permissions,
                    secret: secret.bytes)
            case .postgres(let location):
                let engine = try SyncServer(
                    store: try PostgresSyncStore(location: location, schema: schema), schema: schema,
                    wallClock: SystemWallClock(), options: SyncServerOptions(sharedStore: true),
                    permissions: permissions, salts: { UInt64.random(in: 1...UInt64.max) })
                return try SyncNetServer(
                    configuration: configuration, engine: engine, secret: secret.bytes,
                    coordination: PostgresCoordination(location: location, roleChanged: announceRole))
            }
        } catch {
            throw CLIError.failed("cannot open the store \(store.description): \(error)")
        }
    }

    /// A line on standard error when this server becomes the store's integrator or stops being it
    /// (several servers on one PostgreSQL store: one integrates at a time).
    @Sendable static func announceRole(_ integrating: Bool) {
        StandardStreams.errorLine(
            integrating
                ? "sync server: integrating (this server holds the store's integrator lock)"
                : "sync server: no longer integrating")
    }

    /// What the server runs with, for standard error (the first line of standard output is the URL).
    static func describe(_ registry: PluginRegistry, store: SyncStoreLocation, secret: SyncSharedSecret) -> [String] {
        let plugins = registry.plugins.map { "\($0.name) \($0.version)" }.joined(separator: ", ")
        let synced = registry.schema.objectSchemas.filter { $0.primaryKey != nil && !$0.isEmbedded }.map(\.className)
        var lines = [
            "sync server: plugins \(plugins); classes that sync: \(synced.joined(separator: ", "))",
            "sync server: store \(store.description)",
        ]
        switch secret.origin {
        case .environment:
            lines.append("sync server: shared secret from $\(SyncSharedSecret.environmentVariable)")
        case .file(let path):
            lines.append("sync server: shared secret in \(path) (hosts: --sync-secret-file \(path))")
        case .created(let path):
            lines.append(
                "sync server: created the shared secret in \(path) (mode 0600); hosts sign their users' tokens "
                    + "with it (--sync-secret-file \(path))")
        }
        return lines
    }

    private static func checkFolder(_ url: URL, flag: String) throws {
        if let problem = folderProblem(url) { throw CLIError.failed("\(flag) \(displayPath(url)): \(problem)") }
    }
}
