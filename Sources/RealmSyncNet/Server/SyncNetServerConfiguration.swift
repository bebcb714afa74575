import Logging

/// Where and how the network server listens.
public struct SyncNetServerConfiguration: Sendable {
    /// The address to bind; tests and a default install use loopback.
    public var host: String
    /// 0: a free port, chosen by the system (`SyncNetServer.port` tells which).
    public var port: Int
    /// The WebSocket route.
    public var path: String
    public var limits: WireLimits
    /// How often the server pings an idle connection (WebSocket ping/pong); a peer that does not
    /// answer is closed.
    public var pingInterval: Duration
    /// How long a connection may stay open before its first successful bind (a token accepted):
    /// past it the server closes it (1008), so idle or token-less peers do not hold sockets.
    public var bindDeadline: Duration
    /// The most connections served at once; one more is closed (1013, try again later) at once.
    public var maxConnections: Int
    /// Several servers on one store: how often a server looks at the store without being woken (a
    /// notification lost with a connection, an integrator gone: the next one takes over then).
    public var sharedStorePoll: Duration
    /// How long a connection being closed may take: what is queued gets this long to be written
    /// once the connection ends (a close, 1008 for a peer over its queue, included), and the peer
    /// this long again to answer the close; then the socket is closed, so a peer that never
    /// reads does not hold it until the ping timeout.
    public var closeTimeout: Duration
    public var logLevel: Logger.Level

    public init(
        host: String = "127.0.0.1", port: Int = 7800, path: String = "/sync", limits: WireLimits = .standard,
        pingInterval: Duration = .seconds(30), bindDeadline: Duration = .seconds(30), maxConnections: Int = 1000,
        sharedStorePoll: Duration = .seconds(1), closeTimeout: Duration = .seconds(5),
        logLevel: Logger.Level = .warning
    ) {
        self.host = host
        self.port = port
        self.path = path
        self.limits = limits
        self.pingInterval = pingInterval
        self.bindDeadline = bindDeadline
        self.maxConnections = maxConnections
        self.sharedStorePoll = sharedStorePoll
        self.closeTimeout = closeTimeout
        self.logLevel = logLevel
    }
}
