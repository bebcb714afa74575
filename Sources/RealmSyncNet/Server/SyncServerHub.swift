import Logging
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
    /// Several servers on one store: who integrates, and the wake-ups (nil: this server alone
    /// integrates what it receives).
    private let coordination: (any SharedStoreCoordination)?
    /// Where a failure nobody's session hears of is told (an inbox the integrator cannot drain).
    private let logger: Logger
    private var coordinating: Task<Void, Never>?
    /// Set by `stopCoordinating`: a wake-up already on its way must not take the role again.
    private var coordinationStopped = false
    /// Inbox batches (of up to 1,000 uploads) the integrator takes per wake-up.
    private static let batchesPerWakeUp = 8

    init(
        engine: sending SyncServer, codec: WireCodec, maxConnections: Int,
        coordination: (any SharedStoreCoordination)? = nil, logger: Logger = Logger(label: "realm-sync-server")
    ) {
        self.logger = logger
        engine.maxMessageBytes = codec.limits.messageBudget
        self.engine = engine
        self.codec = codec
        self.maxConnections = maxConnections
        self.coordination = coordination
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

    /// Integrates what is pending now (a stop does this before closing the connections). On a shared
    /// store the uploads go to the inbox, and this server integrates them at once when it is the
    /// integrator (the others are woken by the store).
    func integrateNow() async {
        integrationScheduled = false
        route(engine.integratePending())
        if coordination != nil { await wake(.inbox) }
    }

    // MARK: Several servers on one store

    /// Starts following the shared store's wake-ups, and a timer (`poll`) for whatever a lost
    /// notification would leave waiting; nothing without a coordination.
    func startCoordinating(poll: Duration) {
        guard let coordination, coordinating == nil else { return }
        coordinating = Task {
            await coordination.start()
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await wakeUp in coordination.wakeUps() { await self.wake(wakeUp) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: poll)
                        await self.wake(.everything)
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    func stopCoordinating() async {
        coordinationStopped = true
        coordinating?.cancel()
        coordinating = nil
        await coordination?.stop()
    }

    /// The integrator drains the inbox (when it has work); every server then routes the history to
    /// its sessions. A store failure leaves the uploads in the inbox for the next wake-up.
    private func wake(_ wakeUp: SharedStoreWakeUp) async {
        guard let coordination, !coordinationStopped else { return }
        if wakeUp != .history, await coordination.holdIntegratorRole(), !coordinationStopped {
            // A bounded number of batches per wake-up, so this server's own sessions are served
            // between them; the uploads left are announced again (every add notifies) or polled.
            for _ in 0..<Self.batchesPerWakeUp {
                do {
                    guard try engine.integrateInbox() > 0 else { break }
                } catch {
                    // Nothing was integrated; the uploads wait in the inbox for the next wake-up.
                    logger.error("sync server: cannot integrate the store's inbox: \(error)")
                    break
                }
            }
        }
        route(engine.catchUp())
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
        Task { await self.integrateScheduled() }
    }

    private func integrateScheduled() async {
        guard integrationScheduled else { return }
        await integrateNow()
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
