import RealmSync
import WSCore

/// The server's engine and its connections, behind one actor: it serializes every call into the
/// engine (`SyncServer` is not thread-safe, and never leaves this actor), groups integrations (the
/// uploads that arrived while one was scheduled are integrated together) and routes what the
/// engine sends to each connection's outbox.
actor SyncServerHub {
    private let engine: SyncServer
    private let codec: WireCodec
    private let maxConnections: Int
    private var connections: [ConnectionID: Outbox] = [:]
    /// The connections that bound a session at least once (a token accepted).
    private var bound: Set<ConnectionID> = []
    private var nextConnection: UInt64 = 1
    private var integrationScheduled = false

    init(engine: sending SyncServer, codec: WireCodec, maxConnections: Int) {
        self.engine = engine
        self.codec = codec
        self.maxConnections = maxConnections
    }

    /// A new connection, its id naming it in the engine; nil when `maxConnections` are open.
    func open(_ outbox: Outbox) -> ConnectionID? {
        guard connections.count < maxConnections else { return nil }
        let connection = ConnectionID(rawValue: nextConnection)
        nextConnection += 1
        connections[connection] = outbox
        return connection
    }

    /// Whether `connection` bound a session yet (one that is gone counts as bound: nothing to close).
    func hasBound(_ connection: ConnectionID) -> Bool { bound.contains(connection) || connections[connection] == nil }

    /// A message from `connection`. A bind reaches the engine only when its token names the user it
    /// binds as; otherwise the session gets an `error` and the engine never hears of it.
    func receive(_ message: SyncMessage, authorization: BindAuthorization?, on connection: ConnectionID) {
        guard connections[connection] != nil else { return }
        if case .bind(let session, let user, _) = message {
            switch authorization {
            case .user(let tokenUser) where tokenUser == user:
                bound.insert(connection)
            case .user(let tokenUser):
                return refuse(
                    session, on: connection, code: .userMismatch,
                    "the token is for user '\(tokenUser)', the bind asks for '\(user)'")
            case .refused(let reason):
                return refuse(session, on: connection, code: .badAuthentication, reason)
            case nil:
                return refuse(session, on: connection, code: .badAuthentication, "a bind needs the user's token")
            }
        }
        route(engine.receive(message, on: connection))
        if engine.hasPendingUploads { scheduleIntegration() }
    }

    /// `connection` is gone: the engine forgets its sessions and their uploads not yet integrated.
    func close(_ connection: ConnectionID) {
        guard let outbox = connections.removeValue(forKey: connection) else { return }
        bound.remove(connection)
        outbox.finish()
        engine.disconnect(connection)
    }

    /// Integrates what is pending now (a stop does this before closing the connections).
    func integrateNow() {
        integrationScheduled = false
        route(engine.integratePending())
    }

    /// Closes every connection, telling the peers why.
    func closeAll(reason: String) {
        for (connection, outbox) in connections {
            outbox.close(.goingAway, reason: reason)
            engine.disconnect(connection)
        }
        connections.removeAll()
        bound.removeAll()
    }

    var connectionCount: Int { connections.count }

    var queuedBytes: Int { connections.values.reduce(0) { $0 + $1.queuedBytes } }

    // MARK: Plumbing

    /// One integration after the calls already queued on this actor: uploads arriving together
    /// share one store transaction (group commit).
    private func scheduleIntegration() {
        guard !integrationScheduled else { return }
        integrationScheduled = true
        Task { self.integrateScheduled() }
    }

    private func integrateScheduled() {
        guard integrationScheduled else { return }
        integrateNow()
    }

    private func refuse(_ session: UInt32, on connection: ConnectionID, code: SyncErrorCode, _ reason: String) {
        route([
            Outgoing(
                connection: connection,
                message: .error(session: session, code: code, message: "bind refused: \(reason)", tryAgain: false))
        ])
    }

    /// Sends each message on its connection; one for a connection that is gone is dropped (the
    /// client gets it again after it reconnects). A message too large for a frame becomes an
    /// `error` to its session.
    private func route(_ deliveries: [Outgoing]) {
        for delivery in deliveries {
            guard let outbox = connections[delivery.connection] else { continue }
            do {
                outbox.send(try codec.encode(delivery.message))
            } catch {
                let session = delivery.message.session
                let failure = SyncMessage.error(
                    session: session, code: .limitsExceeded, message: "\(error)", tryAgain: false)
                if let bytes = try? codec.encode(failure) { outbox.send(bytes) }
            }
        }
    }
}
