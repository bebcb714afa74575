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

/// What the network client needs of a session, whatever its endpoint's type.
protocol SessionLink: Sendable {
    func connect(session: UInt32) throws -> [SyncMessage]
    func receive(_ message: SyncMessage) throws -> [SyncMessage]
    func pendingUploads() throws -> [SyncMessage]
    func disconnect()
    func limitUploads(toBytes bytes: Int)
    func transportFailed(_ error: SyncError)
}

extension SharedSyncEndpoint: SessionLink {
    func connect(session: UInt32) throws -> [SyncMessage] { try withEndpoint { try $0.connect(session: session) } }
    func receive(_ message: SyncMessage) throws -> [SyncMessage] { try withEndpoint { try $0.receive(message) } }
    func pendingUploads() throws -> [SyncMessage] { try withEndpoint { try $0.pendingUploads() } }
    func disconnect() { withEndpoint { $0.disconnect() } }
    func limitUploads(toBytes bytes: Int) { withEndpoint { $0.maxUploadBytes = bytes } }
    func transportFailed(_ error: SyncError) { withEndpoint { $0.transportFailed(error) } }
}
