import RealmSync
import Synchronization

/// A client endpoint (a `SyncClient`: one realm file's session) shared by the host, which writes to
/// its realm, and the network client, which feeds it messages. A realm is used by one thread at a
/// time, so every use of the endpoint, by either, holds this lock.
public final class SharedSyncEndpoint<Endpoint: SyncClientEndpoint>: Sendable {
    private let endpoint: Mutex<Endpoint>

    public init(_ endpoint: sending Endpoint) { self.endpoint = Mutex(endpoint) }

    /// Runs `body` with the endpoint, no other use in between (a local write: then call the network
    /// client's `flush` so the commit is uploaded).
    public func withEndpoint<Result: Sendable>(_ body: (Endpoint) throws -> Result) rethrows -> Result {
        try endpoint.withLock { endpoint in try body(endpoint) }
    }
}

/// What the network client needs of a session, whatever its endpoint's type: the endpoint, under
/// its lock.
protocol SessionLink: Sendable {
    func withClient<Result: Sendable>(_ body: (any SyncClientEndpoint) throws -> Result) rethrows -> Result
}

extension SharedSyncEndpoint: SessionLink {
    func withClient<Result: Sendable>(_ body: (any SyncClientEndpoint) throws -> Result) rethrows -> Result {
        try withEndpoint { try body($0) }
    }
}
