import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import RealmSync

/// A plugin as declared by its folder: `plugin.lua` returning
/// `{ name, version, schemaVersion, schema, migration | migrations/, initialSubscriptions, commands, functions,
/// api, onOpen, sync }`.
///
/// This is the plugin's data, validated once at host start. Its functions live in Lua states, so
/// each tenant loads the plugin into its own runtime (`LoadedPlugin`).
public struct PluginManifest: Equatable {
    /// The fields `plugin.lua`'s table may have; any other is refused, naming it.
    public static let fields = [
        "name", "version", "description", "schemaVersion", "schema", "migration", "initialSubscriptions", "onOpen",
        "commands", "functions", "api", "sync",
    ]
    /// The REPL's own dot commands (`.help`, `.schema`, …): a plugin command cannot take one of these
    /// names, which the REPL would answer before the command.
    public static let reservedCommandNames = [
        "help", "user", "users", "schema", "subs", "sync", "mode", "timer", "read", "trace", "quit", "exit",
    ]

    public let folder: URL
    public let name: String
    public let version: String
    public let description: String?
    public let schemaVersion: UInt64
    public let schema: Schema
    /// Numbered migration files (`migrations/0002_add_favorite_treat.lua`): version → path.
    public let migrationFiles: [UInt64: URL]
    public let commandNames: [String]
    /// The functions apps call (`POST /v1/functions/{name}`).
    public let functionNames: [String]
    /// The classes `/v1/objects` reaches, and how (`api = { Dog = "readwrite" }`).
    public let api: [String: APIAccess]
    public let hasMigrationFunction: Bool
    /// The plugin's `sync` table: queryable fields and permissions of its classes, for the sync
    /// server only (never visible to a tenant's scripts).
    public let syncRules: SyncRules

    var manifestPath: String { folder.appendingPathComponent("plugin.lua").path }
}

/// How an app may reach a class through `/v1/objects`.
public enum APIAccess: String, Sendable, Equatable {
    case read
    case readwrite

    public var allowsWrites: Bool { self == .readwrite }
}

/// A command or a function of a plugin: its function, and the limits it runs under when it
/// declares its own.
struct PluginCommand {
    let function: LuaFunctionRef
    let limits: LuaLimits?
    /// Its arguments as `.help` shows them (`NAME [TREAT]`), and what it does; nil when not given.
    var usage: String? = nil
    var help: String? = nil
}

/// A plugin loaded into one tenant's runtime: its functions, callable there.
struct LoadedPlugin {
    let manifest: PluginManifest
    let migration: LuaFunctionRef?
    let initialSubscriptions: LuaFunctionRef?
    let onOpen: LuaFunctionRef?
    let commands: [String: PluginCommand]
    let functions: [String: PluginCommand]
    let environment: LuaTableRef
}

enum PluginLoader {
    /// Runs a plugin's `plugin.lua` in `runtime` (in an environment of its own, with `require`
    /// confined to its folder) and checks every field; errors name the file and the field.
    static func load(folder: URL, into runtime: RealmLuaRuntime) throws -> LoadedPlugin {
        let source = try PluginSource(folder: folder, runtime: runtime)
        try source.refuseUnknownFields()
        // Checked in the order of the documentation, so the first wrong field is the one reported.
        let name = try source.name()
        let version = try source.version()
        let schemaVersion = try source.schemaVersion()
        let schema = try source.schema()
        let migration = try source.function("migration")
        let initialSubscriptions = try source.function("initialSubscriptions")
        let onOpen = try source.function("onOpen")
        let commands = try source.commands()
        let functions = try source.functions()
        let api = try source.api(schema: schema)
        let syncRules = try source.syncRules(plugin: name, schema: schema)
        try source.hideSyncRules()
        let manifest = PluginManifest(
            folder: folder, name: name, version: version, description: source.table["description"].stringValue,
            schemaVersion: schemaVersion, schema: schema,
            migrationFiles: try source.migrationFiles(upTo: schemaVersion),
            commandNames: commands.keys.sorted(), functionNames: functions.keys.sorted(), api: api,
            hasMigrationFunction: migration != nil, syncRules: syncRules
        )
        return LoadedPlugin(
            manifest: manifest, migration: migration, initialSubscriptions: initialSubscriptions,
            onOpen: onOpen, commands: commands, functions: functions, environment: source.environment)
    }

    /// `migrations/NNNN_description.lua` files by version number.
    static func numberedMigrations(in folder: URL, path: String) throws -> [UInt64: URL] {
        let dir = folder.appendingPathComponent("migrations")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return [:] }
        var out = [UInt64: URL]()
        for name in names.sorted() where name.hasSuffix(".lua") {
            let digits = name.prefix { $0.isNumber }
            guard !digits.isEmpty, let n = UInt64(digits) else {
                throw HostError.plugin(
                    "\(dir.path)/\(name): a migration file name must start with its version number, "
                        + "e.g. 0002_add_favorite_treat.lua"
                )
            }
            if let other = out[n] {
                throw HostError.plugin(
                    "\(dir.path): two migrations for version \(n): \(other.lastPathComponent) and \(name)")
            }
            out[n] = dir.appendingPathComponent(name)
        }
        return out
    }

    /// A path for messages: relative to the current folder when inside it.
    static func displayPath(_ url: URL) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        let path = url.standardizedFileURL.path
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}
