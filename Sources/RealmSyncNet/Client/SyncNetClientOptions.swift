/// How a network client connects: frame limits, reconnection delays, pings.
public struct SyncNetClientOptions: Sendable {
    public var limits: WireLimits
    public var backoff: ReconnectBackoff
    /// How often the client pings; a server that does not answer before the next ping is dropped
    /// (and reconnected to), so a silent half-open connection does not hold sessions forever.
    public var pingInterval: Duration
    /// How long an attempt may take from the TCP connect to the WebSocket upgrade: a server that
    /// accepts the connection and never answers (stopped, overloaded) is left after it, and the
    /// client backs off as for a failed connect.
    public var handshakeTimeout: Duration

    public init(
        limits: WireLimits = .standard, backoff: ReconnectBackoff = .init(), pingInterval: Duration = .seconds(30),
        handshakeTimeout: Duration = .seconds(10)
    ) {
        self.limits = limits
        self.backoff = backoff
        self.pingInterval = pingInterval
        self.handshakeTimeout = handshakeTimeout
    }
}
