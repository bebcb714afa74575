/// What a transport needs of a sync client (the client engine conforms).
public protocol SyncClientEndpoint: AnyObject {
    /// The connection is up: the messages (a thrown error ends the connection) that open `session` (BIND, IDENTIFY, pending uploads…).
    func connect(session: UInt32) throws -> [SyncMessage]
    /// A message from the server; the replies. A thrown error ends the connection.
    func receive(_ message: SyncMessage) throws -> [SyncMessage]
    /// Uploads of local commits made since the last call (empty when there are none).
    func pendingUploads() throws -> [SyncMessage]
    /// The connection is gone; messages in flight are lost.
    func disconnect()
    /// The most bytes an upload message may take (a transport's frame limit); nil: no limit.
    var maxUploadBytes: Int? { get set }
    /// The transport could not carry a message of this session (one too large for its frames): the
    /// session ends on this connection, as when one of the calls above throws.
    func transportFailed(_ error: SyncError)
    /// True while a call that writes the endpoint's file would wait for another writer (one of this
    /// process holds the file's write lock): a transport that must not block tries again later.
    var isBusy: Bool { get }
}

extension SyncClientEndpoint {
    /// Endpoints that do not split their uploads ignore the limit.
    public var maxUploadBytes: Int? {
        get { nil }
        set {}
    }

    public func transportFailed(_ error: SyncError) {}

    /// Endpoints without a file of their own never wait for one.
    public var isBusy: Bool { false }
}

/// What a transport needs of the sync server (the server engine conforms).
public protocol SyncServerEndpoint: AnyObject {
    /// A message from a client on `connection`; the messages to send in reply (to any connection).
    func receive(_ message: SyncMessage, on connection: ConnectionID) -> [Outgoing]
    /// Integrates what was received and not yet integrated; the downloads and acks that follow.
    func integratePending() -> [Outgoing]
    /// `connection` is gone.
    func disconnect(_ connection: ConnectionID)
}

extension SyncServer: SyncServerEndpoint {}
