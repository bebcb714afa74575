/// One connection between a client endpoint and the server, as the transport numbers them. A
/// reconnection gets a new id, so that the server never mistakes a new connection for an old one.
public struct TransportConnectionID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    public init(_ rawValue: Int) { self.rawValue = rawValue }

    public static func < (a: TransportConnectionID, b: TransportConnectionID) -> Bool { a.rawValue < b.rawValue }

    public var description: String { "connection \(rawValue)" }
}

/// A message the server sends on one of its connections.
public struct ServerDelivery: Hashable, Sendable {
    public var connection: TransportConnectionID
    public var message: SyncMessage

    public init(_ connection: TransportConnectionID, _ message: SyncMessage) {
        self.connection = connection
        self.message = message
    }
}

/// What a transport needs of a sync client (the client engine conforms).
public protocol SyncClientEndpoint: AnyObject {
    /// The connection is up: the messages that open `session` (BIND, IDENTIFY, pending uploads…).
    func connect(session: UInt32) -> [SyncMessage]
    /// A message from the server; the replies. A thrown error ends the connection.
    func receive(_ message: SyncMessage) throws -> [SyncMessage]
    /// Uploads of local commits made since the last call (empty when there are none).
    func pendingUploads() -> [SyncMessage]
    /// The connection is gone; messages in flight are lost.
    func disconnect()
}

/// What a transport needs of the sync server (the server engine conforms).
public protocol SyncServerEndpoint: AnyObject {
    /// A message from a client on `connection`; the messages to send in reply (to any connection).
    func receive(_ message: SyncMessage, on connection: TransportConnectionID) -> [ServerDelivery]
    /// Integrates what was received and not yet integrated; the downloads and acks that follow.
    func integratePending() -> [ServerDelivery]
    /// `connection` is gone.
    func disconnect(_ connection: TransportConnectionID)
}
