import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import RealmDatabase
import RealmSync
import ServiceLifecycle

/// The sync server on the network: a Hummingbird application whose WebSocket route carries every
/// session of a host on one connection, in front of the engine (`SyncServer`, owned by a hub actor).
///
///     let server = try SyncNetServer(configuration: .init(port: 0), engine: engine, secret: secret)
///     let port = try await server.start()   // serving now
///     ...
///     await server.stop()                   // connections closed, the last uploads integrated
public actor SyncNetServer {
    public nonisolated let configuration: SyncNetServerConfiguration
    private let hub: SyncServerHub
    private let tokens: SyncToken
    private var serviceGroup: ServiceGroup?
    private var running: Task<Void, any Error>?
    /// The port bound, once started.
    public private(set) var port: Int?

    /// `engine`: the server's engine (on its store, schema and permissions), owned by the server
    /// from now on. `secret`: the secret shared with the hosts, which signs the users' tokens.
    /// `coordination`: several servers share the engine's store (its options say `sharedStore`): who
    /// integrates, and the store's wake-ups.
    public init(
        configuration: SyncNetServerConfiguration, engine: sending SyncServer, secret: [UInt8],
        coordination: (any SharedStoreCoordination)? = nil
    ) throws {
        self.configuration = configuration
        tokens = try SyncToken(secret: secret)
        var logger = Logger(label: "realm-sync-server")
        logger.logLevel = configuration.logLevel
        hub = SyncServerHub(
            engine: engine, codec: WireCodec(limits: configuration.limits),
            maxConnections: configuration.maxConnections, coordination: coordination, logger: logger)
    }

    /// A server on a SQLite store at `storePath` (created if missing): what `realm-host sync-server`
    /// starts. `permissions` nil: every user reads and writes everything.
    public init(
        configuration: SyncNetServerConfiguration, storePath: String, schema: sending Schema,
        permissions: SyncPermissions? = nil, secret: [UInt8]
    ) throws {
        let store = try SQLiteSyncStore(path: storePath, historySalt: UInt64.random(in: 1...UInt64.max), schema: schema)
        let engine = try SyncServer(
            store: store, schema: schema, wallClock: SystemWallClock(), permissions: permissions,
            salts: { UInt64.random(in: 1...UInt64.max) })
        try self.init(configuration: configuration, engine: engine, secret: secret)
    }

    /// `ws://HOST:PORT/PATH` once started.
    public var url: String? { port.map { "ws://\(configuration.host):\($0)\(configuration.path)" } }

    /// Binds and serves; returns the port bound (a free one when the configuration says 0). Throws
    /// when the address cannot be bound or the server is already started.
    @discardableResult
    public func start() async throws -> Int {
        guard running == nil else { throw SyncError(.otherError, "the sync server is already started") }
        let (bound, boundContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "realm-sync-server")
        logger.logLevel = configuration.logLevel
        let application = Application(
            router: Router(context: BasicWebSocketRequestContext.self),
            server: .http1WebSocketUpgrade(webSocketRouter: webSocketRouter(), configuration: channelConfiguration()),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                boundContinuation.yield(channel.localAddress?.port ?? 0)
                boundContinuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        serviceGroup = group
        running = Task {
            defer { boundContinuation.finish() }
            try await group.run()
        }
        var iterator = bound.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            let failure = await running?.result
            running = nil
            serviceGroup = nil
            if case .failure(let error) = failure {
                throw SyncError(.otherError, "cannot listen on \(configuration.host):\(configuration.port): \(error)")
            }
            throw SyncError(.otherError, "cannot listen on \(configuration.host):\(configuration.port)")
        }
        self.port = port
        await hub.startCoordinating(poll: configuration.sharedStorePoll)
        return port
    }

    /// Integrates what arrived, closes every connection and stops listening. The store stays as the
    /// last integration left it.
    public func stop() async {
        guard let running, let serviceGroup else { return }
        await hub.integrateNow()
        await hub.stopCoordinating()
        await hub.closeAll(reason: "the sync server is stopping")
        await serviceGroup.triggerGracefulShutdown()
        _ = await running.result
        self.running = nil
        self.serviceGroup = nil
        port = nil
    }

    /// Open connections (for tests and the server's status).
    public var connectionCount: Int { get async { await hub.connectionCount } }

    /// The bytes queued on the connections, not written yet (for tests and the server's status): at
    /// most `limits.maxQueuedBytes` each.
    public var queuedBytes: Int { get async { await hub.queuedBytes } }

    private func webSocketRouter() -> Router<SyncRequestContext> {
        let router = Router(context: SyncRequestContext.self)
        let connection = ServerConnection(
            hub: hub, codec: WireCodec(limits: configuration.limits), tokens: tokens,
            bindDeadline: configuration.bindDeadline, closeTimeout: configuration.closeTimeout)
        router.ws(RouterPath(configuration.path)) { _, _ in
            .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            try await connection.serve(inbound: inbound, outbound: outbound, channel: context.requestContext.channel)
        }
        return router
    }

    private func channelConfiguration() -> HTTP1WebSocketUpgradeChannel.Configuration {
        HTTP1WebSocketUpgradeChannel.Configuration(
            ws: WebSocketServerConfiguration(
                maxFrameSize: configuration.limits.maxFrameBytes,
                autoPing: .enabled(timePeriod: configuration.pingInterval), closeTimeout: configuration.closeTimeout))
    }
}
