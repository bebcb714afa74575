import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import RealmDatabase
import RealmHost
import ServiceLifecycle

/// `realm-host serve`'s process, less its command line: the apps' listener (`/v1`) and the
/// operators' listener (health, readiness, metrics, admin), both Hummingbird applications in one
/// service group, in front of the tenants of one `TenantHost`.
///
///     let server = try await ServeHost.make(host: host)
///     let (app, admin) = try await server.start()   // serving now
///     …
///     await server.stop()                            // calls in flight finished, tenants closed
public actor ServeHost {
    public nonisolated let host: TenantHost
    public nonisolated let lanes: TenantLanes
    public nonisolated let tokens: AppTokens
    public nonisolated let metrics = ServeMetrics()
    public nonisolated let options: HostServeOptions
    /// The admin token (`DATA/admin-token`).
    public nonisolated let adminToken: String
    /// Extra reasons the host is not ready (the sync connection, given by whoever made the transport).
    private let readinessProbe: @Sendable () async -> [String]
    private let log: @Sendable (String) -> Void
    private var serviceGroup: ServiceGroup?
    private var running: Task<Void, any Error>?

    public static let adminTokenFileName = "admin-token"
    /// The app listener's routes (method, path with Hummingbird's `:parameter`s).
    public static var appRoutes: [(method: String, path: String)] {
        AppRoutes.routes.map { ($0.method.rawValue, $0.path) }
    }
    /// The admin listener's routes (all GET).
    public static var adminRoutes: [String] { OperatorRoutes.routes }

    /// The server of `host`, with the app tokens of its `auth` options and its admin token
    /// (created, mode 0600, when missing). `log` receives one JSON line per request.
    public static func make(
        host: TenantHost, options: HostServeOptions? = nil,
        readiness: @escaping @Sendable () async -> [String] = { [] },
        log: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) async throws -> ServeHost {
        let tokens = try await AppTokens.make(auth: host.options.auth, dataFolder: host.dataFolder)
        let path = host.dataFolder.appendingPathComponent(adminTokenFileName).path
        let admin: String
        do {
            admin = try OwnerOnlyFile.readOrCreate(path, what: "the admin token file")
        } catch let failure as OwnerOnlyFile.Failure {
            throw HostError.configuration(failure.message)
        }
        return ServeHost(
            host: host, options: options ?? host.options.serve, tokens: tokens, adminToken: admin, readiness: readiness,
            log: log)
    }

    private init(
        host: TenantHost, options: HostServeOptions, tokens: AppTokens, adminToken: String,
        readiness: @escaping @Sendable () async -> [String],
        log: @escaping @Sendable (String) -> Void
    ) {
        self.host = host
        self.tokens = tokens
        self.adminToken = adminToken
        self.options = options
        lanes = TenantLanes(
            host: host, userQueue: options.userQueue, maxConcurrent: options.maxConcurrentCalls,
            consoleWait: options.consoleWriteTimeout + .seconds(1))
        readinessProbe = readiness
        self.log = log
    }

    /// Binds both listeners and serves; their ports (free ones where the options say port 0).
    public func start() async throws -> (app: Int, admin: Int) {
        guard running == nil else { throw HostError.configuration("the server is already started") }
        let appAddress = try ListenAddress(parsing: options.listen, what: "serve.listen", example: "127.0.0.1:8080")
        let adminAddress = try ListenAddress(
            parsing: options.adminListen, what: "serve.adminListen", example: "127.0.0.1:8081")
        let (ports, portsContinuation) = AsyncStream.makeStream(of: (String, Int).self)
        // Each request is logged by `RequestLog`; Hummingbird's own lines (a peer's bytes that are not
        // HTTP) would only repeat what a client did wrong.
        let logger = Logger(label: "realm-host-serve", factory: { _ in QuietLogHandler() })
        let watchResponder = watchRouter().buildResponder()
        let channelConfiguration = channel()
        let headLimit = TimeAmount(options.headerTimeout)
        // A first request may wait for a console's open write, then run a function up to the host's
        // time limit: its answer gets that and more.
        let answerLimit = TimeAmount(
            options.headerTimeout + options.consoleWriteTimeout + (host.options.limits.time ?? .seconds(60))
                + .seconds(1))
        let routes = appRoutes
        let app = Application(
            router: appRouter(),
            server: HTTPServerBuilder { responder in
                HeadDeadlineChannel(
                    base: WatchGateChannel(
                        base: HTTP1WebSocketUpgradeChannel(
                            responder: responder, webSocketResponder: watchResponder,
                            configuration: channelConfiguration),
                        path: WatchRoute.path,
                        check: { (try? await routes.caller(authorization: $0, accessToken: $1)) != nil }),
                    headLimit: headLimit, answerLimit: answerLimit)
            },
            configuration: ApplicationConfiguration(address: .hostname(appAddress.host, port: appAddress.port)),
            onServerRunning: { portsContinuation.yield(("app", $0.localAddress?.port ?? 0)) }, logger: logger)
        let admin = Application(
            router: adminRouter(),
            server: HTTPServerBuilder { responder in
                HeadDeadlineChannel(
                    base: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: .seconds(30))),
                    headLimit: headLimit, answerLimit: answerLimit)
            },
            configuration: ApplicationConfiguration(address: .hostname(adminAddress.host, port: adminAddress.port)),
            onServerRunning: { portsContinuation.yield(("admin", $0.localAddress?.port ?? 0)) }, logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: [app, admin], gracefulShutdownSignals: [], logger: logger))
        serviceGroup = group
        running = Task {
            defer { portsContinuation.finish() }
            try await group.run()
        }
        var bound = [String: Int]()
        for await (name, port) in ports {
            bound[name] = port
            if bound.count == 2 { break }
        }
        guard let appPort = bound["app"], let adminPort = bound["admin"], appPort > 0, adminPort > 0 else {
            let failure = await running?.result
            running = nil
            serviceGroup = nil
            var why = ""
            if case .failure(let error) = failure { why = ": \(error)" }
            throw HostError.configuration(
                "cannot listen on \(options.listen) and \(options.adminListen)\(why)")
        }
        return (appPort, adminPort)
    }

    /// Stops accepting, lets calls in flight finish (the service group's graceful shutdown), then
    /// closes every tenant.
    public func stop() async {
        guard let running, let serviceGroup else { return }
        await serviceGroup.triggerGracefulShutdown()
        _ = await running.result
        self.running = nil
        self.serviceGroup = nil
        host.closeAll()
    }

    // MARK: Routers

    private var appRoutes: AppRoutes {
        AppRoutes(lanes: lanes, tokens: tokens, options: options, metrics: metrics, log: log)
    }

    private func appRouter() -> Router<ServeRequestContext> {
        let router = Router(context: ServeRequestContext.self)
        router.add(middleware: RequestLog(metrics: metrics, write: log))
        appRoutes.add(to: router)
        return router
    }

    private func watchRouter() -> Router<ServeRequestContext> {
        // No request log here: a refused upgrade is answered (and logged) by the app router.
        let router = Router(context: ServeRequestContext.self)
        WatchRoute(app: appRoutes).add(to: router)
        return router
    }

    private func adminRouter() -> Router<ServeRequestContext> {
        let router = Router(context: ServeRequestContext.self)
        router.add(middleware: RequestLog(metrics: metrics, write: log))
        router.add(middleware: AdminTokenMiddleware(token: adminToken))
        let probe = readinessProbe
        let dataFolder = host.dataFolder
        let sync = host.syncTransport
        OperatorRoutes(lanes: lanes, metrics: metrics) {
            var reasons = await probe()
            if let sync, sync.connectionState != "connected" {
                reasons.append(
                    "the sync server \(sync.url) is \(sync.connectionState)"
                        + (sync.lastConnectionError.map { ": \($0)" } ?? ""))
            }
            if !FileManager.default.isWritableFile(atPath: dataFolder.path) {
                reasons.append("the data folder \(dataFolder.path) is not writable")
            }
            return reasons
        }.add(to: router)
        return router
    }

    private func channel() -> HTTP1WebSocketUpgradeChannel.Configuration {
        HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: .seconds(30)),
            ws: WebSocketServerConfiguration(
                maxFrameSize: options.maxBodyBytes, autoPing: .enabled(timePeriod: .seconds(30))))
    }
}

/// Keeps a logger's metadata and drops its lines. Hummingbird keeps each request's id in its
/// logger's metadata (and reads it back for `context.id`); the standard handler formats all of
/// its metadata at every set, which took a tenth of an event loop's time in `serve_read_call`.
struct QuietLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .critical

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {}
}
