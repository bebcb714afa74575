import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmHostNet
import RealmSync
import RealmSyncNet
import XCTest

/// A folder with a plugin (its schema and sync rules), a sync server on 127.0.0.1 over a SQLite store,
/// and hosts (each its own data folder) syncing with it.
final class HostSyncFixture: @unchecked Sendable {
    let root: URL
    let secret = Array("a secret shared by the test's hosts and its server".utf8)

    /// Dog has rules (its owner writes it; shared dogs are read by all); Note has none: private per
    /// user. A note's steps are a list of embedded objects.
    static let plugin = """
        return {
          name = "pets",
          schema = {
            { name = "Dog", primaryKey = "_id",
              properties = { _id = "string", owner = "string", name = "string", shared = "bool" } },
            { name = "Note", primaryKey = "_id",
              properties = { _id = "string", text = "string", tags = "string[]", related = "Note[]",
                             steps = "Step[]" } },
            { name = "Step", embedded = true, properties = { what = "string", done = "bool" } },
          },
          sync = {
            queryable = { Dog = { "owner", "shared" } },
            permissions = { Dog = { read = "owner == $user OR shared == true", write = "owner == $user" } },
          },
        }
        """

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("host-sync-\(UUID().uuidString)")
        let plugin = root.appendingPathComponent("plugins/pets", isDirectory: true)
        try FileManager.default.createDirectory(at: plugin, withIntermediateDirectories: true)
        try Self.plugin.write(to: plugin.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    var pluginFolders: [URL] { [root.appendingPathComponent("plugins")] }

    /// The server, with the plugin's schema and rules, listening on a free port.
    func startServer() async throws -> SyncNetServer {
        let registry = try PluginRegistry(folders: pluginFolders)
        let server = try SyncNetServer(
            configuration: SyncNetServerConfiguration(host: "127.0.0.1", port: 0),
            storePath: root.appendingPathComponent("sync.sqlite").path, schema: registry.schema,
            permissions: try SyncPermissions.compile(registry.syncRules, schema: registry.schema), secret: secret)
        try await server.start()
        return server
    }

    /// A URL nobody listens on: a server's, started and stopped.
    func deadURL() async throws -> String {
        let server = try await startServer()
        let url = try await self.url(of: server)
        await server.stop()
        return url
    }

    func url(of server: SyncNetServer) async throws -> String {
        let url = await server.url
        return try XCTUnwrap(url, "the server is not started")
    }

    /// A host named `name` (its own data folder) syncing with `url` (nil: no sync), reconnecting fast.
    func host(
        _ name: String, url: String?, signs: Bool = true, limits: LuaLimits = .default, cacheSize: Int = 64
    ) throws -> TenantHost {
        var options = HostOptions(
            dataFolder: root.appendingPathComponent(name), pluginFolders: pluginFolders, limits: limits,
            cacheSize: cacheSize)
        options.sync.url = url
        let secret = signs ? secret : nil
        return try TenantHost(options: options) { sync in
            try NetSyncTransport(
                url: try XCTUnwrap(sync.url), secret: secret,
                options: SyncNetClientOptions(
                    backoff: ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(100))))
        }
    }
}

extension TenantHost {
    /// Runs `code` as `user` on a thread of its own (a script's waits block their thread) and gives
    /// its results as text: strings as they are, other values as Lua prints them, nil as "nil".
    func run(_ user: String, _ code: String) async throws -> [String] {
        try await onThread {
            try self.withTenant(user) { tenant in
                try tenant.runtime.execute(code, chunkName: "=test").map(Self.text)
            }
        }
    }

    private static func text(_ value: LuaValue) -> String {
        if value.isNil { return "nil" }
        if let b = value.boolValue { return b ? "true" : "false" }
        if let i = value.integerValue { return String(i) }
        return value.stringValue ?? "\(value)"
    }

    /// Stops the transport's connection (the host is done).
    func stopSync() async {
        await (syncTransport as? NetSyncTransport)?.stop()
    }
}

/// Runs blocking work on a new thread, off Swift concurrency's few threads (the network needs them).
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// Opens the user's flexible-sync realm subscribed to every Note and every Dog it may read.
/// Lua that waits (up to 10 s, a download at a time) until note `id` has arrived in `r`.
func untilNote(_ id: String) -> String {
    """
    for _ = 1, 100 do
      if r:object("Note", "\(id)") then break end
      r.syncSession:waitForDownload{ timeout = 100 }
    end

    """
}

let openSynced = """
    local config = user:flexibleSyncConfiguration{
      initialSubscriptions = function(subs)
        subs:append(QuerySubscription("Note", { name = "notes" }))
        subs:append(QuerySubscription("Dog", { name = "dogs" }))
      end,
    }
    local r = Realm.asyncOpen(config, { timeout = 10000 })
    """
