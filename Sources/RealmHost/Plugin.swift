import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua

/// A plugin as declared by its folder: `plugin.lua` returning
/// `{ name, version, schemaVersion, schema, migration | migrations/, initialSubscriptions, commands, onOpen }`.
///
/// This is the plugin's data, validated once at host start. Its functions live in Lua states, so
/// each tenant loads the plugin into its own runtime (`LoadedPlugin`).
public struct PluginManifest: Equatable {
    public let folder: URL
    public let name: String
    public let version: String
    public let description: String?
    public let schemaVersion: UInt64
    public let schema: Schema
    /// Numbered migration files (`migrations/0002_add_favorite_treat.lua`): version → path.
    public let migrationFiles: [UInt64: URL]
    public let commandNames: [String]
    public let hasMigrationFunction: Bool

    var manifestPath: String { folder.appendingPathComponent("plugin.lua").path }
}

/// A command of a plugin: its function, and the limits it runs under when it declares its own.
struct PluginCommand {
    let function: LuaFunctionRef
    let limits: LuaLimits?
}

/// A plugin loaded into one tenant's runtime: its functions, callable there.
struct LoadedPlugin {
    let manifest: PluginManifest
    let migration: LuaFunctionRef?
    let initialSubscriptions: LuaFunctionRef?
    let onOpen: LuaFunctionRef?
    let commands: [String: PluginCommand]
    let environment: LuaTableRef
}

enum PluginLoader {
    /// Runs a plugin's `plugin.lua` in `runtime` (in an environment of its own, with `require`
    /// confined to its folder) and checks every field; errors name the file and the field.
    static func load(folder: URL, into runtime: RealmLuaRuntime) throws -> LoadedPlugin {
        let file = folder.appendingPathComponent("plugin.lua")
        let path = file.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw HostError.plugin("\(path): no plugin.lua in the plugin folder")
        }
        let state = runtime.state
        let environment = try state.makeEnvironment()
        try state.installRequire(root: folder.path, in: environment, environment: environment, chunkNamePrefix: folder.lastPathComponent + "/")
        let table: LuaTable
        let tableRef: LuaTableRef
        do {
            let chunk = try state.loadFile(path, chunkName: "@" + displayPath(file), environment: environment)
            guard case .table(let ref)? = try runtime.call(chunk).first else {
                throw HostError.plugin("\(path): plugin.lua must return a table")
            }
            tableRef = ref
            table = try state.copy(ref, maxDepth: 8)
        } catch let e as HostError {
            throw e
        } catch {
            throw HostError.plugin("\(path): \(error)")
        }
        func field(_ name: String) -> LuaValue { table[name] }
        func fail(_ name: String, _ why: String) -> HostError { HostError.plugin("\(path): field '\(name)' \(why)") }

        guard case .string(let name) = field("name"), !name.isEmpty,
              name.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }) else {
            throw fail("name", "must be a non-empty string of letters, digits, '-' and '_'")
        }
        let version: String
        switch field("version") {
        case .string(let v): version = v
        case .integer(let i): version = String(i)
        case .nil: version = "0"
        default: throw fail("version", "must be a string such as \"1.0.0\"")
        }
        var schemaVersion: UInt64 = 0
        switch field("schemaVersion") {
        case .nil: break
        case .integer(let v) where v >= 0: schemaVersion = UInt64(v)
        default: throw fail("schemaVersion", "must be a non-negative integer")
        }
        let schema: Schema
        do {
            schema = field("schema").isNil ? Schema([]) : try runtime.schema(from: try state.get(tableRef, "schema"), where: "\(path): field 'schema'")
        } catch {
            throw HostError.plugin("\(error)")
        }
        func function(_ name: String) throws -> LuaFunctionRef? {
            switch try state.get(tableRef, .string(name)) {
            case .nil: return nil
            case .function(let f): return f
            default: throw fail(name, "must be a function")
            }
        }
        let migration = try function("migration")
        let initialSubscriptions = try function("initialSubscriptions")
        let onOpen = try function("onOpen")
        var commands = [String: PluginCommand]()
        switch try state.get(tableRef, "commands") {
        case .nil: break
        case .table(let ref):
            for (k, _) in try state.copy(ref, maxDepth: 4).hash {
                guard case .string(let commandName) = k, !commandName.isEmpty,
                      commandName.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-") }) else {
                    throw fail("commands", "must map command names (letters, digits, '_', '-') to functions")
                }
                switch try state.get(ref, k) {
                case .function(let f):
                    commands[commandName] = PluginCommand(function: f, limits: nil)
                case .table(let spec):
                    // { run = function(realm, ...) end, limits = { timeSeconds = 60, memoryMiB = 512 } }
                    guard case .function(let f) = try state.get(spec, "run") else { throw fail("commands.\(commandName).run", "must be a function") }
                    var limits: LuaLimits?
                    if case .table(let l) = try state.get(spec, "limits") {
                        do {
                            limits = try HostConfigurationFile.parseLimits(try state.copy(l, maxDepth: 1), base: state.limits, where: "field 'commands.\(commandName).limits'")
                        } catch { throw HostError.plugin("\(path): \(error)") }
                    }
                    commands[commandName] = PluginCommand(function: f, limits: limits)
                default:
                    throw fail("commands.\(commandName)", "must be a function or a table { run = function, limits = {…} }")
                }
            }
        default: throw fail("commands", "must be a table of functions")
        }
        let migrationFiles = try numberedMigrations(in: folder, path: path)
        if let highest = migrationFiles.keys.max(), highest > schemaVersion {
            throw HostError.plugin("\(path): migration \(migrationFiles[highest]!.lastPathComponent) is for version \(highest), above schemaVersion \(schemaVersion)")
        }
        let manifest = PluginManifest(folder: folder, name: name, version: version, description: field("description").stringValue,
                                      schemaVersion: schemaVersion, schema: schema, migrationFiles: migrationFiles,
                                      commandNames: commands.keys.sorted(), hasMigrationFunction: migration != nil)
        return LoadedPlugin(manifest: manifest, migration: migration, initialSubscriptions: initialSubscriptions, onOpen: onOpen,
                            commands: commands, environment: environment)
    }

    /// `migrations/NNNN_description.lua` files by version number.
    static func numberedMigrations(in folder: URL, path: String) throws -> [UInt64: URL] {
        let dir = folder.appendingPathComponent("migrations")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return [:] }
        var out = [UInt64: URL]()
        for name in names.sorted() where name.hasSuffix(".lua") {
            let digits = name.prefix { $0.isNumber }
            guard !digits.isEmpty, let n = UInt64(digits) else {
                throw HostError.plugin("\(dir.path)/\(name): a migration file name must start with its version number, e.g. 0002_add_favorite_treat.lua")
            }
            if let other = out[n] { throw HostError.plugin("\(dir.path): two migrations for version \(n): \(other.lastPathComponent) and \(name)") }
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
