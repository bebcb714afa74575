import Foundation
import LuaSandbox
import RealmDatabase

/// How a host runs: where data and plugins are, the limits of scripts, the size of the realm cache.
/// Defaults can be overridden by `host.lua` in the data folder (see `HostConfigurationFile`).
public struct HostOptions {
    public var dataFolder: URL
    public var pluginFolders: [URL]
    /// Limits of every script call (REPL line, plugin command, migration step).
    public var limits: LuaLimits
    /// Per-user limits (from `host.lua`), replacing `limits` for those users.
    public var userLimits: [String: LuaLimits] = [:]
    /// How many tenants stay open at once; the least recently used is closed past it.
    public var cacheSize: Int
    /// How long a write waits for another connection's lock on a realm before it fails, saying
    /// why (`LockWaitPolicy`); `lockWaitSeconds` in `host.lua`.
    public var lockWait: Duration = LockWaitPolicy.defaultLimit
    /// Open users' realms as stored, read-only, at their own schema and version: no migration, no
    /// `onOpen`, no initial subscriptions (`repl --no-migrate`, a way into a realm whose
    /// migration fails).
    public var openAsStored = false
    /// The sync server the tenants' flexible-sync realms sync with (none: they stay local).
    public var sync = HostSyncOptions()
    /// The hosts that share the users, and which one this is (none: this host serves every user).
    public var cluster = HostClusterOptions()
    /// `realm-host serve`'s listeners and bounds.
    public var serve = HostServeOptions()
    /// How app users' tokens are verified.
    public var auth = HostAuthOptions()

    public init(dataFolder: URL, pluginFolders: [URL] = [], limits: LuaLimits = .default, cacheSize: Int = 64) {
        self.dataFolder = dataFolder
        self.pluginFolders = pluginFolders
        self.limits = limits
        self.cacheSize = cacheSize
    }

    /// The data folder: `--data`, else `$REALM_HOST_DATA`, else `./data`.
    public static func defaultDataFolder(_ option: String?) -> URL {
        if let option, !option.isEmpty { return URL(fileURLWithPath: option, isDirectory: true).standardizedFileURL }
        if let env = ProcessInfo.processInfo.environment["REALM_HOST_DATA"], !env.isEmpty {
            return URL(fileURLWithPath: env, isDirectory: true).standardizedFileURL
        }
        return URL(fileURLWithPath: "data", isDirectory: true).standardizedFileURL
    }

    func limits(for user: String) -> LuaLimits { userLimits[user] ?? limits }

    /// These options with `host.lua`'s (the data folder's, if it has one) filling in what they leave
    /// out, without opening the host: for commands that only read the configuration (`which-host`).
    public func applyingConfigurationFile() throws -> HostOptions {
        var options = self
        try HostConfigurationFile.apply(to: &options)
        return options
    }
}

/// Where a host syncs: `--sync-url` and `--sync-secret-file`, or `sync = { url =, secretFile = }` in
/// `host.lua` (the flags win). The secret itself is read by the transport (`REALMHOST_SYNC_SECRET`
/// first, then the file).
public struct HostSyncOptions: Sendable, Equatable {
    /// The servers (`ws://HOST:PORT/sync`) in the order the host tries them: it connects to one
    /// and fails over to the next, round robin; empty: no sync.
    public var urls: [String]
    public var secretFile: URL?

    /// The first server; nil: no sync. Setting it names one server.
    public var url: String? {
        get { urls.first }
        set { urls = newValue.map { [$0] } ?? [] }
    }

    public init(url: String? = nil, secretFile: URL? = nil) {
        self.init(urls: url.map { [$0] } ?? [], secretFile: secretFile)
    }

    public init(urls: [String], secretFile: URL? = nil) {
        self.urls = urls
        self.secretFile = secretFile
    }

    /// `ws://a/sync,ws://b/sync`: the servers of a comma-separated list, blanks around each
    /// dropped, empty entries ignored.
    public static func urlList(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
