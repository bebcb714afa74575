import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import RealmSync

/// The table a plugin's `plugin.lua` returned, read field by field; every error names the file
/// and the field (`plugins/dogs/plugin.lua: field 'schemaVersion' must be …`).
struct PluginSource {
    let runtime: RealmLuaRuntime
    let folder: URL
    let path: String
    /// The environment the plugin's code runs in (its own globals, `require` confined to its folder).
    let environment: LuaTableRef
    /// The returned table, and a copy of it (nested tables to 8 levels) for plain fields.
    let tableRef: LuaTableRef
    let table: LuaTable

    var state: LuaState { runtime.state }

    /// Runs `plugin.lua` in an environment of its own.
    init(folder: URL, runtime: RealmLuaRuntime) throws {
        let file = folder.appendingPathComponent("plugin.lua")
        path = file.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw HostError.plugin("\(path): no plugin.lua in the plugin folder")
        }
        self.runtime = runtime
        self.folder = folder
        let state = runtime.state
        environment = try state.makeEnvironment()
        try state.installRequire(
            root: folder.path, in: environment, environment: environment,
            chunkNamePrefix: folder.lastPathComponent + "/")
        do {
            let chunkName = "@" + PluginLoader.displayPath(file)
            let chunk = try state.loadFile(path, chunkName: chunkName, environment: environment)
            guard case .table(let ref)? = try runtime.call(chunk).first else {
                throw HostError.plugin("\(path): plugin.lua must return a table")
            }
            tableRef = ref
            table = try state.copy(ref, maxDepth: 8)
        } catch let error as HostError {
            throw error
        } catch {
            throw HostError.plugin("\(path): \(error)")
        }
    }

    func fail(_ field: String, _ why: String) -> HostError {
        HostError.plugin("\(path): field '\(field)' \(why)")
    }

    /// Plugin and command names: ASCII letters, digits, '-' and '_'.
    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_")
            }
    }

    /// Refuses a field of the returned table that no plugin has (a misspelt `command = {…}` would
    /// load a plugin without its commands), naming it and the field it likely meant.
    func refuseUnknownFields() throws {
        try refuseUnknownKeys(table, known: PluginManifest.fields, field: nil)
    }

    /// Refuses any key of `table` outside `known`; `field` names the table (nil: the plugin's own).
    private func refuseUnknownKeys(_ table: LuaTable, known: [String], field: String?) throws {
        if let problem = NamedFields.problem(table, known: known, field: field, owner: "a plugin") {
            throw HostError.plugin("\(path): \(problem)")
        }
    }

    func name() throws -> String {
        guard case .string(let name) = table["name"], PluginSource.isIdentifier(name) else {
            throw fail("name", "must be a non-empty string of letters, digits, '-' and '_'")
        }
        return name
    }

    func version() throws -> String {
        switch table["version"] {
        case .string(let v): return v
        case .integer(let i): return String(i)
        case .nil: return "0"
        default: throw fail("version", "must be a string such as \"1.0.0\"")
        }
    }

    func schemaVersion() throws -> UInt64 {
        switch table["schemaVersion"] {
        case .nil: return 0
        case .integer(let v) where v >= 0: return UInt64(v)
        default: throw fail("schemaVersion", "must be a non-negative integer")
        }
    }

    func schema() throws -> Schema {
        guard !table["schema"].isNil else { return Schema([]) }
        do {
            return try runtime.schema(from: try state.get(tableRef, "schema"), where: "\(path): field 'schema'")
        } catch {
            throw HostError.plugin("\(error)")
        }
    }

    /// An optional function field (`migration`, `onOpen`, …).
    func function(_ name: String) throws -> LuaFunctionRef? {
        switch try state.get(tableRef, .string(name)) {
        case .nil: return nil
        case .function(let f): return f
        default: throw fail(name, "must be a function")
        }
    }

    /// `commands = { name = function(realm, ...) end | { run = function, limits = {…} } }`.
    func commands() throws -> [String: PluginCommand] {
        let commands = try callables("commands", what: "command")
        if let taken = commands.keys.sorted().first(where: PluginManifest.reservedCommandNames.contains) {
            throw fail(
                "commands.\(taken)",
                "takes the name of the REPL's own .\(taken), which would answer instead: name it otherwise")
        }
        return commands
    }

    /// `functions = { name = function(realm, args, caller) end | { run = function, limits = {…} } }`:
    /// what apps call at `POST /v1/functions/{name}` (docs/SERVE.md); the same shape as `commands`.
    func functions() throws -> [String: PluginCommand] { try callables("functions", what: "function") }

    /// A table of named functions, each a function or `{ run = function, limits = {…} }`.
    private func callables(_ field: String, what: String) throws -> [String: PluginCommand] {
        switch try state.get(tableRef, .string(field)) {
        case .nil:
            return [:]
        case .table(let ref):
            var callables = [String: PluginCommand]()
            for (key, _) in try state.copy(ref, maxDepth: 4).hash {
                guard case .string(let name) = key, PluginSource.isIdentifier(name) else {
                    throw fail(field, "must map \(what) names (letters, digits, '_', '-') to functions")
                }
                callables[name] = try callable("\(field).\(name)", try state.get(ref, key))
            }
            return callables
        default:
            throw fail(field, "must be a table of functions")
        }
    }

    private func callable(_ field: String, _ value: LuaValue) throws -> PluginCommand {
        switch value {
        case .function(let f):
            return PluginCommand(function: f, limits: nil)
        case .table(let spec):
            // { run = function(realm, ...) end, limits = { timeSeconds = 60 }, usage = "NAME", help = "…" }
            try refuseUnknownKeys(
                try state.copy(spec, maxDepth: 4), known: ["run", "limits", "usage", "help"], field: field)
            guard case .function(let f) = try state.get(spec, "run") else {
                throw fail("\(field).run", "must be a function")
            }
            return PluginCommand(
                function: f, limits: try callableLimits(field, spec), usage: try text(spec, "usage", in: field),
                help: try text(spec, "help", in: field))
        default:
            throw fail(field, "must be a function or a table { run = function, limits = {…} }")
        }
    }

    /// An optional one-line string field of a command's table.
    private func text(_ spec: LuaTableRef, _ key: String, in field: String) throws -> String? {
        switch try state.get(spec, .string(key)) {
        case .nil: return nil
        case .string(let text) where !text.contains("\n"): return text
        default: throw fail("\(field).\(key)", "must be a string of one line")
        }
    }

    private func callableLimits(_ field: String, _ spec: LuaTableRef) throws -> LuaLimits? {
        guard case .table(let limits) = try state.get(spec, "limits") else { return nil }
        do {
            return try HostConfigurationFile.parseLimits(
                try state.copy(limits, maxDepth: 1), base: state.limits, where: "field '\(field).limits'")
        } catch {
            throw HostError.plugin("\(path): \(error)")
        }
    }

    /// `api = { Dog = "readwrite", Person = "read" }`: the classes `/v1/objects` reaches, checked
    /// against the plugin's own schema.
    func api(schema: Schema) throws -> [String: APIAccess] {
        switch table["api"] {
        case .nil:
            return [:]
        case .plainTable(let entries) where entries.array.isEmpty:
            var access = [String: APIAccess]()
            for (key, value) in entries.hash {
                guard case .string(let className) = key else {
                    throw fail("api", "must map class names to \"read\" or \"readwrite\"")
                }
                guard let mode = value.stringValue.flatMap(APIAccess.init(rawValue:)) else {
                    throw fail("api.\(className)", "must be \"read\" or \"readwrite\"")
                }
                guard let objectSchema = schema[className] else {
                    throw fail("api.\(className)", "names a class the plugin's schema does not declare")
                }
                guard !objectSchema.isEmbedded, objectSchema.primaryKey != nil else {
                    throw fail(
                        "api.\(className)",
                        "names a class without a primary key (the API finds objects by their primary key)")
                }
                access[className] = mode
            }
            return access
        default:
            throw fail("api", "must be a table such as { Dog = \"readwrite\", Person = \"read\" }")
        }
    }

    /// The `sync` table's rules, checked against the plugin's own schema (`PluginSyncRules`).
    func syncRules(plugin: String, schema: Schema) throws -> SyncRules {
        let reader = PluginSyncRules(plugin: plugin, schema: schema)
        let rules = try reader.read(table["sync"])
        try reader.compile(rules)
        return rules
    }

    /// Removes `sync` from the returned table in this runtime. The rules are the server's: the
    /// host reads them into Swift values, and a tenant's scripts (or the plugin's own functions,
    /// which run for the tenant) must find nothing to read or change.
    func hideSyncRules() throws {
        try state.set(tableRef, "sync", .nil)
    }

    /// The numbered migration files, none above `schemaVersion`.
    func migrationFiles(upTo schemaVersion: UInt64) throws -> [UInt64: URL] {
        let files = try PluginLoader.numberedMigrations(in: folder, path: path)
        if let (highest, file) = files.max(by: { $0.key < $1.key }), highest > schemaVersion {
            throw HostError.plugin(
                "\(path): migration \(file.lastPathComponent) is for version \(highest), "
                    + "above schemaVersion \(schemaVersion)")
        }
        return files
    }
}
