import RealmSync

/// A transport that carries `SyncClient` sessions to a sync server: the seam between the host, which
/// has no network, and the network layer (RealmSyncNet implements it over one `SyncNetClient` per
/// host, carrying every open tenant's session on one connection). Its members answer at once; what
/// it does on the network happens in order, in the background.
public protocol SyncSessionTransport: AnyObject, Sendable {
    /// The server's address (`ws://127.0.0.1:7800/sync`).
    var url: String { get }
    /// False when the host has no secret to sign its users' tokens with.
    var canSign: Bool { get }
    /// `disconnected`, `connecting` or `connected`.
    var connectionState: String { get }
    /// Why the last connection attempt failed or ended, if it did.
    var lastConnectionError: String? { get }
    /// Carries `endpoint` (one realm file's session) for `user` from now on; the handle reaches it
    /// and closes it.
    func carry(_ endpoint: TenantSyncEndpoint, user: String) -> any SyncSessionHandle
}

/// One session a transport carries.
public protocol SyncSessionHandle: AnyObject, Sendable {
    /// Runs `body` with the endpoint, with no use by the network in between (the endpoint's realm is
    /// used by one thread at a time).
    func withEndpoint<Result: Sendable>(_ body: (TenantSyncEndpoint) throws -> Result) rethrows -> Result
    /// Sends the local commits not sent yet (and the marks asked for).
    func flush()
    /// Stops carrying the session until `resume` (the server is told; local commits wait in the file).
    func pause()
    func resume()
    /// Stops carrying the session for good.
    func close()
}
