/// How a network client connects: frame limits, reconnection delays, pings.
public struct SyncNetClientOptions: Sendable {
    public var limits: WireLimits
    public var backoff: ReconnectBackoff
    /// How often the client pings; a server that does not answer before the next ping is dropped
    /// (and reconnected to), so a silent half-open connection does not hold sessions forever.
    public var pingInterval: Duration

    public init(
        limits: WireLimits = .standard, backoff: ReconnectBackoff = .init(), pingInterval: Duration = .seconds(30)
    ) {
        self.limits = limits
        self.backoff = backoff
        self.pingInterval = pingInterval
    }
}
