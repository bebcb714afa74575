import CSQLite
import Foundation
import Hummingbird
import Logging
import RealmHost
import RealmServe

/// `serve_read_call` and `serve_write_call` (docs/SERVE.md's speed table): 64 keep-alive connections
/// call a function for users spread over 1,000, each call reading one object by key (or, for
/// writes, creating one: an implicit write, durable), through `realm-host serve`'s whole path
/// (JWT, the user's lane, the tenant's Lua function, relaxed JSON). Against a handler on the same
/// HTTP stack (Hummingbird) that does the same read with a prepared SQLite statement on the user's
/// own file (or `BEGIN; INSERT; COMMIT` with the realm's pragmas). The row is the time for the same
/// calls at each side's rate: throughput ≥ 0.5× the handler's for reads (ratio ≤ 2), ≥ 0.8× for
/// writes (ratio ≤ 1.25). `serve_read_call/p99` is the reads' p99 under the same load: ≤ 10 ms.
/// The load is wrk's when it is installed (`ServeLoad`).
struct ServeReadCall: Workload {
    let name = "serve_read_call"
    let target = 2.0

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        try ServeCalls.comparisons(context, name: name, target: target, writes: false)
    }
}

struct ServeWriteCall: Workload {
    let name = "serve_write_call"
    let target = 1.25

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        try ServeCalls.comparisons(context, name: name, target: target, writes: true)
    }
}

enum ServeCalls {
    static let plugin = """
        return {
          name = "servebench", schema = {
            { name = "Item", primaryKey = "id", properties = { { name = "id", type = "int" }, { name = "value", type = "string" } } },
          },
          api = { Item = "readwrite" },
          functions = {
            get = function(realm, args) return realm:object("Item", args.id) end,
            put = function(realm, args) return realm:objects("Item"):append{ id = args.id, value = args.value } end,
          },
        }
        """

    /// What a row reports of a side's load.
    enum Figure {
        /// The time the row's calls take at the side's rate.
        case time
        /// The calls' p99 latency.
        case p99
    }

    /// The reads' p99 the contract allows (docs/SERVE.md).
    static let readP99 = 0.010

    static func comparisons(_ context: BenchContext, name: String, target: Double, writes: Bool) throws -> [Comparison]
    {
        let users = context.scaled(1000, minimum: 8)
        let size = context.scaled(20_000, minimum: ServeLoad.connections)
        func row(_ name: String, _ target: Double, _ figure: Figure, maxFigure: Double? = nil) -> Comparison {
            Comparison(
                name: name, target: target, baseline: "Hummingbird handler, prepared SQLite", size: size,
                warmUpSize: nil, maxFigure: maxFigure,
                ours: { calls in try oursSide(context, users: users, calls: calls, writes: writes, figure: figure) },
                raw: { calls in try baselineSide(context, users: users, calls: calls, writes: writes, figure: figure) })
        }
        var rows = [row(name, target, .time)]
        // The ratio of p99s is loose: the absolute bound is the target that counts.
        if !writes { rows.append(row("\(name)/p99", 4, .p99, maxFigure: readP99)) }
        return rows
    }

    /// A side's run: the load, then the figure the row reports. The checksum is the calls asked
    /// for (a failed call throws).
    static func loadRun(_ load: ServeLoad, calls: Int, figure: Figure, release: @escaping () -> Void) -> PreparedRun {
        var result: ServeLoad.Result?
        return PreparedRun(
            run: {
                result = try load.run(calls: calls)
                return Int64(calls)
            },
            figure: {
                let result = try result.unwrapped("the load measured nothing")
                switch figure {
                case .time: return RunFigure(value: Double(calls) / result.callsPerSecond, events: calls)
                case .p99: return RunFigure(value: result.p99, events: result.calls)
                }
            }, release: release)
    }

    // MARK: Ours

    /// A served host with the bench plugin, `users` users with one object each, and a token for each.
    static func startServe(_ context: BenchContext, users: Int) throws -> (
        server: ServeHost, port: Int, tokens: [String]
    ) {
        let root = context.freshURL("serve").deletingPathExtension()
        let plugins = root.appendingPathComponent("plugins/servebench")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        try plugin.write(to: plugins.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
        let data = root.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try """
        return { cacheSize = \(users + 16), serve = { listen = "127.0.0.1:0", adminListen = "127.0.0.1:0",
          userQueue = 1000 } }
        """.write(to: data.appendingPathComponent("host.lua"), atomically: true, encoding: .utf8)
        let host = try TenantHost(
            options: HostOptions(dataFolder: data, pluginFolders: [plugins.deletingLastPathComponent()]))
        for user in 0..<users {
            try host.withTenant("u\(user)") { tenant in
                try tenant.realm.write {
                    _ = try tenant.realm.create("Item", value: ["id": .int(1), "value": .string("one")])
                }
            }
        }
        return try awaitBlocking("starting serve", timeout: .seconds(120)) {
            let server = try await ServeHost.make(host: host, log: { _ in })
            let ports = try await server.start()
            var tokens = [String]()
            for user in 0..<users { tokens.append(try await server.tokens.sign(user: "u\(user)", lifetime: 3600)) }
            return (server, ports.app, tokens)
        }
    }

    static func oursSide(_ context: BenchContext, users: Int, calls: Int, writes: Bool, figure: Figure) throws
        -> PreparedRun
    {
        let (server, port, tokens) = try startServe(context, users: users)
        let path = writes ? "/v1/functions/put" : "/v1/functions/get"
        let call = ServeLoad.Call(
            users: tokens.map { (path: path, headers: ["Authorization": "Bearer \($0)"]) }, writes: writes)
        return loadRun(
            ServeLoad(port: port, call: call, context: context, side: "ours"), calls: calls, figure: figure,
            release: { _ = try? awaitBlocking("stopping serve") { await server.stop() } })
    }

    // MARK: Baseline

    /// One user's file in the baseline: a connection and its two prepared statements, behind a lock.
    final class UserFile: @unchecked Sendable {
        let lock = NSLock()
        let db: RawDatabase
        let select: RawStatement
        let insert: RawStatement
        init(path: String) throws {
            db = try RawDatabase.openConfigured(path)
            try db.exec("CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
            select = try db.prepare("SELECT id, value FROM items WHERE id = ?")
            insert = try db.prepare("INSERT INTO items (id, value) VALUES (?, ?)")
        }
    }

    static func baselineSide(_ context: BenchContext, users: Int, calls: Int, writes: Bool, figure: Figure) throws
        -> PreparedRun
    {
        let root = context.freshURL("serve-baseline").deletingPathExtension()
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var files = [UserFile]()
        for user in 0..<users {
            let file = try UserFile(path: root.appendingPathComponent("u\(user).sqlite").path)
            try file.db.exec("INSERT INTO items (id, value) VALUES (1, 'one')")
            files.append(file)
        }
        let userFiles = files
        let router = Router()
        router.post("/call/:user/:op") { request, context -> Response in
            guard let user = context.parameters.get("user", as: Int.self), user < userFiles.count else {
                return Response(status: .badRequest)
            }
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            let id = try JSONDecoder().decode(CallBody.self, from: Data(buffer: body)).id
            let file = userFiles[user]
            let text: String = try file.lock.withLock {
                if context.parameters.get("op") == "put" {
                    try file.db.exec("BEGIN")
                    sqlite3_bind_int64(file.insert.handle, 1, Int64(id))
                    sqlite3_bind_text(file.insert.handle, 2, "v", -1, SQLITE_TRANSIENT)
                    let rc = sqlite3_step(file.insert.handle)
                    sqlite3_reset(file.insert.handle)
                    guard rc == SQLITE_DONE else { throw RawSQLiteError(code: rc, message: "insert") }
                    try file.db.exec("COMMIT")
                    return #"{"result": {"id": \#(id), "value": "v"}}"#
                }
                sqlite3_bind_int64(file.select.handle, 1, Int64(id))
                defer { sqlite3_reset(file.select.handle) }
                guard sqlite3_step(file.select.handle) == SQLITE_ROW else { return #"{"result": null}"# }
                let value = String(cString: sqlite3_column_text(file.select.handle, 1))
                return #"{"result": {"id": \#(sqlite3_column_int64(file.select.handle, 0)), "value": "\#(value)"}}"#
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        var logger = Logger(label: "serve-baseline")
        logger.logLevel = .critical
        let (bound, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let task = Task { try await app.runService() }
        let port = try awaitBlocking("starting the baseline server") {
            var iterator = bound.makeAsyncIterator()
            return await iterator.next() ?? 0
        }
        let op = writes ? "put" : "get"
        let call = ServeLoad.Call(users: (0..<users).map { (path: "/call/\($0)/\(op)", headers: [:]) }, writes: writes)
        return loadRun(
            ServeLoad(port: port, call: call, context: context, side: "baseline"), calls: calls, figure: figure,
            release: { task.cancel() })
    }

    struct CallBody: Decodable { let id: Int }
}
