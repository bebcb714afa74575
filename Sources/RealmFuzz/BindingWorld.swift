import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua

/// Two tenants' runtimes in one process: the first holds the receivers (`BindingFixture`) and,
/// under `R["other/…"]`, objects of the second tenant's realm. What can be called is read from the
/// bindings: the registered types, their methods and fields, and the globals the API adds.
final class BindingWorld {
    let runtime: RealmLuaRuntime
    let other: RealmLuaRuntime
    /// This generation's files (removed by `close()`).
    let folder: URL
    /// `R`'s keys with the Lua type name of each value ("Object/deleted" → "Object").
    private(set) var receivers: [(key: String, type: String)] = []
    /// Methods and fields of every registered type.
    private(set) var members: [String: LuaTypeMembers] = [:]
    /// Property names per class of the fixture's schema, and every one of them.
    private(set) var properties: [String: [String]] = [:]
    private(set) var allProperties: [String] = []
    /// The API's globals and their fields (`Date`, `Realm.Configuration`, …), for calls and reads.
    private(set) var globalCallables: [String] = []
    /// Registered types no receiver of the fixture has (the coverage report names them).
    private(set) var typesWithoutReceiver: [String] = []

    static let limits = LuaLimits(memory: 96 << 20, instructions: 20_000_000, time: .milliseconds(1500))

    init(root: URL, generation: Int) throws {
        folder = root.appendingPathComponent("g\(generation)", isDirectory: true)
        try? FileManager.default.removeItem(at: folder)
        runtime = try Self.makeRuntime("fuzz", folder.appendingPathComponent("fuzz"))
        other = try Self.makeRuntime("other", folder.appendingPathComponent("other"))
        for r in [runtime, other] { _ = try r.execute(BindingFixture.schema, chunkName: "=schema") }
        try handOver(try other.execute(BindingFixture.otherTenant, chunkName: "=other"))
        _ = try runtime.execute(BindingFixture.receivers, chunkName: "=receivers")
        try readReceivers()
        try readSchema()
        try readGlobals()
    }

    static func makeRuntime(_ user: String, _ folder: URL) throws -> RealmLuaRuntime {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let runtime = try RealmLuaRuntime(
            userName: user, folder: folder,
            defaultConfiguration: Realm.Configuration(fileURL: folder.appendingPathComponent("\(user).realm")),
            limits: limits)
        runtime.output = { _ in }
        runtime.syncProvider = OfflineSyncProvider()
        return runtime
    }

    func close() {
        runtime.rollbackOpenWrites()
        runtime.state.close()
        other.state.close()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The second tenant's realm, object, results and collections, as userdata of the first
    /// tenant's state (what a leak between tenants would look like): `R["other/<Type>"]`.
    private func handOver(_ values: [LuaValue]) throws {
        var handed: [String: LuaValue] = [:]
        for value in values {
            guard case .userdata(let ref) = value, let object = try other.state.hostObject(ref) else { continue }
            switch object {
            case let o as Realm: handed["Realm"] = .userdata(try runtime.state.makeUserdata(o))
            case let o as DynamicObject: handed["Object"] = .userdata(try runtime.state.makeUserdata(o))
            case let o as Results: handed["Results"] = .userdata(try runtime.state.makeUserdata(o))
            case let o as List: handed["List"] = .userdata(try runtime.state.makeUserdata(o))
            case let o as MutableSet: handed["Set"] = .userdata(try runtime.state.makeUserdata(o))
            case let o as Map: handed["Map"] = .userdata(try runtime.state.makeUserdata(o))
            default: continue
            }
        }
        try runtime.state.setGlobal("OTHER", .plainTable(LuaTable(array: [], hash: [:])))
        guard case .table(let table) = runtime.state.global("OTHER") else { return }
        for (type, value) in handed { try runtime.state.set(table, .string(type), value) }
    }

    private func strings(_ code: String, in state: LuaState? = nil) throws -> [String] {
        let state = state ?? runtime.state
        guard case .table(let ref)? = try state.execute(code, chunkName: "=list").first else { return [] }
        return try state.copy(ref, maxDepth: 1).array.compactMap(\.stringValue)
    }

    private func readReceivers() throws {
        _ = try runtime.execute("for k, v in pairs(OTHER) do R['other/' .. k] = v end OTHER = nil", chunkName: "=o")
        let pairs = try strings(
            "local out = {} for k, v in pairs(R) do out[#out + 1] = k .. '\\t' .. tostring(getmetatable(v)) end "
                + "table.sort(out) return out")
        receivers = pairs.map { line in
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
        receivers += [("Migration/active", "Migration"), ("MutableSubscriptionSet/active", "MutableSubscriptionSet")]
        for type in runtime.state.registeredTypeNames {
            members[type] = runtime.state.members(ofType: type)
        }
        let reached = Set(receivers.map(\.type))
        typesWithoutReceiver = members.keys.filter { !reached.contains($0) }.sorted()
    }

    private func readSchema() throws {
        for line in try strings(
            "local out = {} for _, c in ipairs(SCHEMA) do for p in pairs(c.properties) do "
                + "out[#out + 1] = c.name .. '.' .. p end end table.sort(out) return out")
        {
            let parts = line.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            properties[parts[0], default: []].append(parts[1])
            allProperties.append(parts[1])
        }
    }

    /// The globals a plain sandboxed state lacks (the API's), and one level of their fields.
    private func readGlobals() throws {
        let plain = try LuaState(limits: Self.limits)
        defer { plain.close() }
        let base = Set(try globalNames(in: plain))
        let fixture: Set<String> = ["R", "SCHEMA", "withMigration", "withSubscriptions", "OTHER"]
        let api = try globalNames(in: runtime.state).filter {
            !base.contains($0) && !fixture.contains($0)
        }
        var out = Set(api)
        for name in api {
            for field in try strings(
                "local out = {} local v = \(name) if type(v) == 'table' then for k in pairs(v) do "
                    + "if type(k) == 'string' then out[#out + 1] = '\(name).' .. k end end end return out")
            {
                out.insert(field)
            }
        }
        out.insert("Realm.Configuration.defaultConfiguration")
        globalCallables = out.sorted()
    }

    private func globalNames(in state: LuaState) throws -> [String] {
        try strings("local out = {} for k in pairs(_ENV) do out[#out + 1] = k end return out", in: state)
    }

    /// The properties of the class a receiver holds, else of every class.
    func properties(of key: String) -> [String] {
        if key.hasPrefix("Object/link") { return properties["Link"] ?? allProperties }
        if key.hasPrefix("Object/embedded") { return properties["Emb"] ?? allProperties }
        if key.hasPrefix("Object/") || key == "other/Object" { return properties["All"] ?? allProperties }
        return allProperties
    }
}
