import Foundation
import LuaSandbox

/// `host.lua` in the data folder: a Lua chunk returning
/// ```lua
/// return {
///   limits = { timeSeconds = 10, memoryMiB = 256, instructions = nil },
///   users = { alice = { limits = { timeSeconds = 30 } } },
///   cacheSize = 64,
///   lockWaitSeconds = 10,   -- how long a write waits for another connection's (LockWaitPolicy)
///   plugins = { "plugins", "/srv/more-plugins" },   -- relative to the data folder's parent
///   sync = { url = "ws://127.0.0.1:7800/sync", secretFile = "sync-secret" },  -- file relative to the data folder
///   -- url may list several servers, tried in turn: { "ws://127.0.0.1:7800/sync", "ws://127.0.0.1:7801/sync" }
///   cluster = { hosts = { "a", "b", "c" }, self = "a" },  -- users spread over hosts (HostCluster)
/// }
/// ```
///   serve = { listen = "127.0.0.1:8080", adminListen = "127.0.0.1:8081", maxBodyBytes = 1048576 },
///   auth = { issuer = "…", audience = "…", keys = { { kid = "k1", alg = "EdDSA", publicKey = "<PEM>" } } },
/// It runs in an empty sandbox with a short time limit; errors name the file and the field.
enum HostConfigurationFile {
    static func apply(to options: inout HostOptions) throws {
        let file = options.dataFolder.appendingPathComponent("host.lua")
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        let path = file.path
        let state = try LuaState(limits: LuaLimits(memory: 16 << 20, instructions: 10_000_000, time: .seconds(2)))
        let table: LuaTable
        do {
            let chunk = try state.loadFile(path, environment: try state.newTable())
            guard case .table(let ref)? = try state.call(chunk).first else {
                throw HostError.configuration("\(path): host.lua must return a table")
            }
            table = try state.copy(ref, maxDepth: 4)
        } catch let e as HostError {
            throw e
        } catch {
            throw HostError.configuration("\(path): \(error)")
        }
        try refuseUnknownFields(table, path: path)
        if case .plainTable(let limits) = table["limits"] {
            options.limits = try parseLimits(limits, base: options.limits, where: "\(path): field 'limits'")
        } else if !table["limits"].isNil {
            throw HostError.configuration("\(path): field 'limits' must be a table")
        }
        if case .plainTable(let users) = table["users"] {
            for (k, v) in users.hash {
                guard case .string(let user) = k, case .plainTable(let u) = v else {
                    throw HostError.configuration("\(path): field 'users' must map user names to tables")
                }
                if case .plainTable(let limits) = u["limits"] {
                    options.userLimits[user] = try parseLimits(
                        limits, base: options.limits, where: "\(path): field 'users.\(user).limits'")
                }
            }
        }
        if let n = try HostNumbers.integer(table["cacheSize"], HostNumbers.cacheSize, "\(path): field 'cacheSize'") {
            options.cacheSize = n
        }
        if let wait = try HostNumbers.duration(table["lockWaitSeconds"], "\(path): field 'lockWaitSeconds'") {
            options.lockWait = wait
        }
        try applySync(table["sync"], to: &options, path: path)
        try applyCluster(table["cluster"], to: &options, path: path)
        try applyServe(table["serve"], to: &options, path: path)
        try applyAuth(table["auth"], to: &options, path: path)
        switch table["plugins"] {
        case .nil: break
        case .plainTable(let list):
            let base = options.dataFolder.deletingLastPathComponent()
            options.pluginFolders = try list.array.map {
                guard case .string(let p) = $0 else {
                    throw HostError.configuration("\(path): field 'plugins' must be a list of folders")
                }
                let folder = p.hasPrefix("/") ? URL(fileURLWithPath: p) : base.appendingPathComponent(p)
                if let problem = folderProblem(folder) {
                    throw HostError.configuration("\(path): field 'plugins': \(folder.path): \(problem)")
                }
                return folder
            }
        default: throw HostError.configuration("\(path): field 'plugins' must be a list of folders")
        }
    }

    /// The fields `host.lua` may have.
    static let fields = [
        "limits", "users", "cacheSize", "lockWaitSeconds", "plugins", "sync", "cluster", "serve", "auth",
    ]

    /// A misspelt field (`cachesize = 8`) must not pass in silence: refused, naming the one meant.
    private static func refuseUnknownFields(_ table: LuaTable, path: String) throws {
        if let problem = NamedFields.problem(table, known: fields, field: nil, owner: "host.lua") {
            throw HostError.configuration("\(path): \(problem)")
        }
    }

    /// The table of named fields at `field` (nil when absent), every key among `known`.
    static func table(_ value: LuaValue, _ field: String, known: [String], path: String) throws -> LuaTable? {
        guard case .plainTable(let table) = value else {
            if value.isNil { return nil }
            throw HostError.configuration(
                "\(path): field '\(field)' must be a table of named fields (\(known.joined(separator: ", ")))")
        }
        if let problem = NamedFields.problem(table, known: known, field: field, owner: field) {
            throw HostError.configuration("\(path): \(problem)")
        }
        return table
    }

    /// `sync = { url =, secretFile = }`: each used unless the command line gave it.
    private static func applySync(_ value: LuaValue, to options: inout HostOptions, path: String) throws {
        guard let sync = try table(value, "sync", known: ["url", "secretFile"], path: path) else { return }
        func text(_ name: String) throws -> String? {
            let v = sync[name]
            if v.isNil { return nil }
            guard let s = v.stringValue, !s.isEmpty else {
                throw HostError.configuration("\(path): field 'sync.\(name)' must be a non-empty string")
            }
            return s
        }
        if options.sync.urls.isEmpty { options.sync.urls = try urls(sync["url"], path: path) }
        if options.sync.secretFile == nil, let file = try text("secretFile") {
            options.sync.secretFile =
                file.hasPrefix("/") ? URL(fileURLWithPath: file) : options.dataFolder.appendingPathComponent(file)
        }
    }

    /// `cluster = { hosts = { … }, self = … }`: each used unless the command line gave it; the names
    /// are checked here so that the error names the field.
    private static func applyCluster(_ value: LuaValue, to options: inout HostOptions, path: String) throws {
        guard let cluster = try table(value, "cluster", known: ["hosts", "self"], path: path) else { return }
        if options.cluster.hosts == nil, !cluster["hosts"].isNil {
            guard let hosts = stringList(cluster["hosts"]) else {
                throw HostError.configuration("\(path): field 'cluster.hosts' must be a list of host names")
            }
            do {
                options.cluster.hosts = try HostCluster(hosts: hosts, selfName: nil).hosts
            } catch {
                throw HostError.configuration("\(path): field 'cluster.hosts': \(error)")
            }
        }
        if options.cluster.selfName == nil, !cluster["self"].isNil {
            guard let name = cluster["self"].stringValue else {
                throw HostError.configuration("\(path): field 'cluster.self' must be a host name (a string)")
            }
            do {
                try HostCluster.validate(name)
            } catch {
                throw HostError.configuration("\(path): field 'cluster.self': \(error)")
            }
            options.cluster.selfName = name
        }
    }

    /// A Lua sequence of strings (nothing else in the table), or nil.
    private static func stringList(_ value: LuaValue) -> [String]? {
        guard case .plainTable(let list) = value, list.hash.isEmpty else { return nil }
        let strings = list.array.compactMap(\.stringValue)
        return strings.count == list.array.count ? strings : nil
    }

    /// `sync.url`: a server, a comma-separated list of them, or a list of strings.
    private static func urls(_ value: LuaValue, path: String) throws -> [String] {
        let problem = HostError.configuration(
            "\(path): field 'sync.url' must be a non-empty string or a list of them (the servers, tried in turn)")
        switch value {
        case .nil: return []
        case .plainTable(let list):
            guard list.hash.isEmpty, !list.array.isEmpty else { throw problem }
            // Each entry one server, trimmed as the string form's are.
            return try list.array.map { entry in
                guard let text = entry.stringValue, case let servers = HostSyncOptions.urlList(text), servers.count == 1
                else { throw problem }
                return servers[0]
            }
        default:
            guard let text = value.stringValue else { throw problem }
            let list = HostSyncOptions.urlList(text)
            guard !list.isEmpty else { throw problem }
            return list
        }
    }

    /// The limits of a table (`host.lua`'s, a user's, a plugin command's) over `base`. Every
    /// number is checked here, when read: finite, integral where it counts, and within the
    /// documented range (`HostNumbers`), with an error naming the place and the field.
    static func parseLimits(_ t: LuaTable, base: LuaLimits, where place: String) throws -> LuaLimits {
        var limits = base
        if let time = try HostNumbers.duration(t["timeSeconds"], "\(place).timeSeconds") { limits.time = time }
        if let m = try HostNumbers.integer(t["memoryMiB"], HostNumbers.memoryMiB, "\(place).memoryMiB") {
            limits.memory = m << 20  // at most 2^20 MiB: 2^40 bytes
        }
        if let n = try HostNumbers.integer(t["instructions"], HostNumbers.instructions, "\(place).instructions") {
            limits.instructions = n
        }
        return limits
    }
}
