import Foundation
import JWTKit
import RealmDatabase
import RealmHost
import RealmServe
import RealmTestSupport
import XCTest

/// A served host for one test: a data folder of its own with the repository's doggo plugin and
/// the test plugin below, `host.lua` as the test gives it, a `ServeHost` on free ports of
/// 127.0.0.1, and clients for both listeners. `stop()` ends it.
final class ServeFixture: @unchecked Sendable {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Functions and a class the tests need beyond doggo's.
    static let testPlugin = """
        return {
          name = "servetest", version = "1.0.0",
          schema = {
            { name = "Note", primaryKey = "id", properties = {
                { name = "id", type = "int" },
                { name = "text", type = "string" },
                { name = "tags", type = "string[]" },
                { name = "when", type = "date?" },
                { name = "price", type = "decimal128?" },
                { name = "blob", type = "data?" },
                { name = "score", type = "double", default = 0 },
            } },
            { name = "Secret", primaryKey = "id", properties = { { name = "id", type = "int" } } },
          },
          api = { Note = "readwrite" },
          functions = {
            spin = { run = function() while true do end end, limits = { timeSeconds = 0.3 } },
            busy = function(realm, args)
              local stop = os.clock() + (args.seconds or 0.5)
              while os.clock() < stop do end
              return "done"
            end,
            writeThenFail = function(realm, args)
              realm:write(function() realm:create("Note", { id = args.id, text = "kept" }) end)
              realm:beginWrite()
              realm:create("Note", { id = args.id + 1, text = "dropped" })
              error("boom after a commit and an open write")
            end,
            note = function(realm, args) return realm:objects("Note"):where("id == $0", args.id)[1] end,
            echo = function(realm, args) return args end,
          },
        }
        """

    let root: URL
    let data: URL
    let server: ServeHost
    let app: HTTPTestClient
    let admin: HTTPTestClient
    let appPort: Int
    let logLines = LogLines()

    /// A new folder with the doggo plugin and the test plugin.
    static func makePlugins() throws -> URL {
        let plugins = FileManager.default.temporaryDirectory.appendingPathComponent(
            "serve-plugins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: plugins.appendingPathComponent("servetest"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.repository.appendingPathComponent("plugins/doggo"), to: plugins.appendingPathComponent("doggo"))
        try Self.testPlugin.write(
            to: plugins.appendingPathComponent("servetest/plugin.lua"), atomically: true, encoding: .utf8)
        return plugins
    }

    /// `plugins`: a folder from `makePlugins()` (a new one when nil). `sync`: a transport to a sync
    /// server for the host, made from its options (none: the host does not sync).
    init(
        hostLua: String? = nil, plugins: URL? = nil,
        sync: ((HostSyncOptions) throws -> any SyncSessionTransport)? = nil, syncURL: String? = nil,
        serve: ((inout HostServeOptions) -> Void)? = nil, beforeStart: ((URL) throws -> Void)? = nil
    ) async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        data = root.appendingPathComponent("data")
        let plugins = try plugins ?? Self.makePlugins()
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        if let hostLua {
            try hostLua.write(to: data.appendingPathComponent("host.lua"), atomically: true, encoding: .utf8)
        }
        try beforeStart?(data)
        var hostOptions = HostOptions(dataFolder: data, pluginFolders: [plugins])
        hostOptions.sync.url = syncURL
        let host = try TenantHost(options: hostOptions, syncTransport: sync)
        var options = host.options.serve
        options.listen = "127.0.0.1:0"
        options.adminListen = "127.0.0.1:0"
        serve?(&options)
        let lines = logLines
        server = try await ServeHost.make(host: host, options: options, log: { lines.append($0) })
        let ports = try await server.start()
        appPort = ports.app
        app = HTTPTestClient(port: ports.app)
        admin = HTTPTestClient(port: ports.admin)
    }

    func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// A development token for `user` (HS256 with the data folder's secret).
    func token(_ user: String, lifetime: TimeInterval = 600, claims: [String: String] = [:]) async throws -> String {
        try await server.tokens.sign(user: user, lifetime: lifetime, claims: claims)
    }

    /// Runs blocking client calls off the cooperative pool.
    func call<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// The request log's lines, as the server wrote them.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines = [String]()
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
