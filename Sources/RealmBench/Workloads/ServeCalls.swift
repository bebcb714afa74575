import CSQLite
import Foundation
import Hummingbird
import Logging
import RealmHost
import RealmServe
import RealmTestSupport
import Synchronization

/// `serve_read_call` and `serve_write_call` (docs/SERVE.md's speed table): 64 keep-alive connections
/// call a function for users spread over 1,000, each call reading one object by key (or, for
/// writes, creating one: an implicit write, durable), through `realm-host serve`'s whole path
/// (JWT, the user's lane, the tenant's Lua function, relaxed JSON). Against a handler on the same
/// HTTP stack (Hummingbird) that does the same read with a prepared SQLite statement on the user's
/// own file (or `BEGIN; INSERT; COMMIT` with the realm's pragmas). The row is the time for the same
/// calls: throughput ≥ 0.5× the handler's for reads (ratio ≤ 2), ≥ 0.8× for writes (ratio ≤ 1.25).
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
    static let connections = 64

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

    static func comparisons(_ context: BenchContext, name: String, target: Double, writes: Bool) throws -> [Comparison]
    {
        let users = context.scaled(1000, minimum: 8)
        return [
            Comparison(
                name: name, target: target, baseline: "Hummingbird handler, prepared SQLite",
                size: context.scaled(20_000, minimum: connections), warmUpSize: nil,
                ours: { calls in try oursSide(context, users: users, calls: calls, writes: writes) },
                raw: { calls in try baselineSide(context, users: users, calls: calls, writes: writes) })
        ]
    }

    /// The call number `i`: its user and the object's key (a fresh key for a write).
    static func call(_ i: Int, users: Int) -> (user: Int, key: Int) { (i % users, 1_000_000 + i) }

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

    static func oursSide(_ context: BenchContext, users: Int, calls: Int, writes: Bool) throws -> PreparedRun {
        let (server, port, tokens) = try startServe(context, users: users)
        let path = writes ? "/v1/functions/put" : "/v1/functions/get"
        return PreparedRun(
            run: {
                try load(port: port, calls: calls, context, side: "ours") { connection, i in
                    let (user, key) = call(i, users: users)
                    let body = writes ? #"{"id": \#(key), "value": "v"}"# : #"{"id": 1}"#
                    return try connection.request(
                        "POST", path, headers: ["Authorization": "Bearer \(tokens[user])"], body: body)
                }
            },
            release: {
                _ = try? awaitBlocking("stopping serve") { await server.stop() }
            })
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

    static func baselineSide(_ context: BenchContext, users: Int, calls: Int, writes: Bool) throws -> PreparedRun {
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
        return PreparedRun(
            run: {
                try load(port: port, calls: calls, context, side: "baseline") { connection, i in
                    let (user, key) = call(i, users: users)
                    return try connection.request(
                        "POST", "/call/\(user)/\(op)", body: writes ? #"{"id": \#(key)}"# : #"{"id": 1}"#)
                }
            },
            release: { task.cancel() })
    }

    struct CallBody: Decodable { let id: Int }

    // MARK: Load

    /// `calls` calls over `connections` keep-alive connections (a thread each); the number of 2xx
    /// answers (the checksum both sides must agree on). Each call's latency is kept and the run's
    /// p50 and p99 logged (docs/SERVE.md: p99 ≤ 10 ms for reads).
    static func load(
        port: Int, calls: Int, _ context: BenchContext, side: String,
        _ send: @escaping @Sendable (KeepAliveConnection, Int) throws -> HTTPTestClient.Response
    ) throws -> Int64 {
        let ok = Atomic<Int>(0)
        let failure = Mutex<String?>(nil)
        let latencies = Mutex(LatencySamples())
        let group = DispatchGroup()
        for c in 0..<connections {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let connection = try KeepAliveConnection(port: port)
                    var mine = LatencySamples()
                    defer { latencies.withLock { $0.add(mine) } }
                    var i = c
                    while i < calls {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let answer = try send(connection, i)
                        mine.add(from: start, to: DispatchTime.now().uptimeNanoseconds)
                        if (200..<300).contains(answer.status) {
                            ok.add(1, ordering: .relaxed)
                        } else {
                            failure.withLock { $0 = $0 ?? "\(answer)" }
                        }
                        i += connections
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? "\(error)" }
                }
            }
            thread.start()
        }
        group.wait()
        context.log("serve calls, \(side): \(latencies.withLock { $0.summary })")
        if let failure = failure.withLock({ $0 }) {
            throw RawSQLiteError(code: 0, message: "a call failed: \(failure)")
        }
        return Int64(ok.load(ordering: .relaxed))
    }
}
