import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import RealmSync

/// The plugins of a host: found in the plugin folders, validated once, their schemas merged.
public struct PluginRegistry {
    public let plugins: [PluginManifest]
    /// Every plugin's classes together.
    public let schema: Schema
    /// The realm schema version: the highest of the plugins'.
    public let schemaVersion: UInt64
    /// Every plugin's `sync` rules together (each class ruled by one plugin): what the sync server
    /// enforces. Read once here, from the plugins' files; no tenant's script can reach or change them.
    public let syncRules: SyncRules
    /// The classes apps reach through `/v1/objects`: every plugin's `api` table together (the
    /// widest access any plugin grants a class).
    public let api: [String: APIAccess]
    /// Every plugin's functions, by name, with the plugin that declares it.
    public let functionPlugins: [String: String]

    /// Finds `*/plugin.lua` under each folder and loads each plugin once (in a scratch state) to check it.
    public init(folders: [URL], limits: LuaLimits = .default) throws {
        var found = [URL]()
        for folder in folders {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("plugin.lua").path) {
                found.append(folder)
                continue
            }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
            for name in names.sorted() where !name.hasPrefix(".") {
                let dir = folder.appendingPathComponent(name, isDirectory: true)
                if FileManager.default.fileExists(atPath: dir.appendingPathComponent("plugin.lua").path) {
                    found.append(dir)
                }
            }
        }
        var manifests = [PluginManifest]()
        for dir in found {
            let scratch = try RealmLuaRuntime(
                userName: "plugin-check", folder: FileManager.default.temporaryDirectory,
                defaultConfiguration: Realm.Configuration(inMemoryIdentifier: "plugin-check"), limits: limits)
            let loaded = try PluginLoader.load(folder: dir, into: scratch)
            try Self.checkMigrationFiles(of: loaded, in: scratch)
            if let other = manifests.first(where: { $0.name == loaded.manifest.name }) {
                throw HostError.plugin(
                    "\(loaded.manifest.manifestPath): a plugin named '\(other.name)' "
                        + "is already loaded from \(other.manifestPath)"
                )
            }
            manifests.append(loaded.manifest)
        }
        try self.init(manifests: manifests)
    }

    /// Loads each numbered migration file as a migration runs it, without running the function it
    /// returns: a syntax error, or a file that returns no function, stops the host at start, not
    /// each user's open at migrate time.
    static func checkMigrationFiles(of plugin: LoadedPlugin, in runtime: RealmLuaRuntime) throws {
        for (_, file) in plugin.manifest.migrationFiles.sorted(by: { $0.key < $1.key }) {
            let returned: LuaValue?
            do {
                let chunk = try runtime.state.loadFile(
                    file.path, chunkName: "@" + PluginLoader.displayPath(file), environment: plugin.environment)
                returned = try runtime.state.call(chunk).first
            } catch {
                throw HostError.plugin("plugin \(plugin.manifest.name): \(error)")
            }
            guard case .function? = returned else {
                throw HostError.plugin(
                    "\(file.path): a migration file must return a function(migration, oldSchemaVersion)")
            }
        }
    }

    init(manifests: [PluginManifest]) throws {
        var classes = [ObjectSchema]()
        var owner = [String: PluginManifest]()
        for m in manifests {
            for objectSchema in m.schema.objectSchemas {
                if let i = classes.firstIndex(where: { $0.className == objectSchema.className }) {
                    guard classes[i] == objectSchema else {
                        let other = owner[objectSchema.className]
                        throw HostError.plugin(
                            "\(m.manifestPath): class '\(objectSchema.className)' is also declared, differently, "
                                + "by plugin '\(other?.name ?? "?")' (\(other?.manifestPath ?? "?"))"
                        )
                    }
                    continue
                }
                classes.append(objectSchema)
                owner[objectSchema.className] = m
            }
        }
        let schema = Schema(classes)
        do { try schema.validate() } catch { throw HostError.plugin("plugins: the merged schema is invalid: \(error)") }
        plugins = manifests
        self.schema = schema
        schemaVersion = manifests.map(\.schemaVersion).max() ?? 0
        syncRules = try PluginSyncRules.merge(manifests.map { ($0.name, $0.syncRules) })
        var api = [String: APIAccess]()
        var functionPlugins = [String: String]()
        for m in manifests {
            for (className, access) in m.api where api[className] != .readwrite { api[className] = access }
            for name in m.functionNames {
                if let other = functionPlugins[name] {
                    throw HostError.plugin(
                        "\(m.manifestPath): function '\(name)' is also declared by plugin '\(other)'")
                }
                functionPlugins[name] = m.name
            }
        }
        self.api = api
        self.functionPlugins = functionPlugins
    }
}
