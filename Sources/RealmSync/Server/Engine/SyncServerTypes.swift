/// One connection of the server: many sessions (one per realm file) are multiplexed on it.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public var description: String { "connection \(rawValue)" }
}

/// A message the server sends, and the connection it goes to.
public struct Outgoing: Hashable, Sendable {
    public let connection: ConnectionID
    public let message: SyncMessage

    public init(connection: ConnectionID, message: SyncMessage) {
        self.connection = connection
        self.message = message
    }
}

/// The server engine's limits.
public struct SyncServerOptions: Hashable, Sendable {
    /// Objects per `bootstrap` message.
    public var bootstrapBatchSize: Int
    /// Changesets per `download` message.
    public var downloadBatchSize: Int
    /// How far (milliseconds) a changeset's clock may be ahead of the server's wall clock.
    public var clockSkewTolerance: UInt64
    /// Several servers share the store (docs/SYNC.md "Several servers on one store"): uploads go to
    /// its inbox, the elected integrator integrates them (`integrateInbox`), and every server routes
    /// what was integrated to its sessions (`catchUp`).
    public var sharedStore: Bool

    public init(
        bootstrapBatchSize: Int = 1000, downloadBatchSize: Int = 1000, clockSkewTolerance: UInt64 = 300_000,
        sharedStore: Bool = false
    ) {
        self.bootstrapBatchSize = max(1, bootstrapBatchSize)
        self.downloadBatchSize = max(1, downloadBatchSize)
        self.clockSkewTolerance = clockSkewTolerance
        self.sharedStore = sharedStore
    }
}

/// A session as the server knows it: where it is, who it is once identified, and what it awaits.
struct ServerSession {
    let connection: ConnectionID
    let id: UInt32
    let user: String
    /// Set by `identify`; nil until then.
    var clientFileID: UInt64?
    /// What it sees: its subscription set compiled, with the user's read rules.
    var view = SessionView(queryVersion: 0, predicates: [:])
    /// The server version everything up to which the session was sent.
    var downloadCursor: UInt64 = 0
    /// The acknowledgement last sent to it.
    var acknowledged: UInt64 = 0
    /// Marks received while its uploads wait for integration: answered after them.
    var pendingMarks: [UInt64] = []

    init(connection: ConnectionID, id: UInt32, user: String) {
        self.connection = connection
        self.id = id
        self.user = user
    }
}

/// A change to what a replica holds, waiting for `SyncServer.recordHeldWrites`.
struct HeldWrite {
    let fileID: UInt64
    let ref: ObjectRef
    let held: Bool
    /// Where it is logged.
    let at: ViewPosition
}

/// A session's address: its connection and its number there.
struct SessionKey: Hashable {
    let connection: ConnectionID
    let session: UInt32
}
