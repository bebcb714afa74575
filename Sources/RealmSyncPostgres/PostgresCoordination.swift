import Logging
import PostgresNIO
import RealmSync

/// How the sync servers sharing one PostgreSQL store coordinate (docs/SYNC.md "Several servers on
/// one store"): the integrator is whoever holds a session-level advisory lock on a connection of its
/// own (PostgreSQL releases it when that session ends: a server that stops, crashes or loses its
/// link gives the role up, and another takes it at its next wake-up), and a second connection
/// LISTENs to the store's channels (`PostgresStoreSchema.inboxChannel`, `.historyChannel`), turning
/// each notification into a wake-up. A lost listening connection is opened again after a second,
/// with an `everything` wake-up: what was notified meanwhile is read then.
public actor PostgresCoordination: SharedStoreCoordination {
    private let location: PostgresStoreLocation
    private let logger = Logger(label: "realm-sync-postgres") { _ in SwiftLogNoOpLogHandler() }
    private var lockConnection: PostgresConnection?
    private var holding = false
    private var stopped = false
    private var listening: Task<Void, Never>?
    private var checking: Task<Bool, Never>?
    /// Told when this server takes the role or loses it (the CLI says so on standard error).
    private let roleChanged: @Sendable (Bool) -> Void
    private nonisolated let wakeUpStream = AsyncStream.makeStream(
        of: SharedStoreWakeUp.self, bufferingPolicy: .bufferingNewest(16))

    /// The coordination of the servers on the store at `location`; it listens once started, and
    /// takes the role at a wake-up.
    public init(location: PostgresStoreLocation, roleChanged: @escaping @Sendable (Bool) -> Void = { _ in }) {
        self.location = location
        self.roleChanged = roleChanged
    }

    public func holdIntegratorRole() async -> Bool {
        // One check at a time: a second one entering while the first waits on PostgreSQL would open a
        // second lock connection, and the first one's lock would stay held by a connection forgotten.
        if let checking { return await checking.value }
        let check = Task { await self.checkRole() }
        checking = check
        let result = await check.value
        checking = nil
        return result
    }

    private func checkRole() async -> Bool {
        if holding, let lockConnection, !lockConnection.isClosed { return true }
        let held = holding
        holding = false
        if !stopped {
            do {
                let connection = try await openLockConnection()
                let rows = try await connection.query(
                    "SELECT pg_try_advisory_lock(\(PostgresStoreSchema.integratorLock))", logger: logger)
                for try await taken in rows.decode(Bool.self) { holding = taken }
            } catch {
                // PostgreSQL is away: not the integrator until it answers again.
                await closeLockConnection()
            }
        }
        if holding != held { roleChanged(holding) }
        return holding
    }

    public nonisolated func wakeUps() -> AsyncStream<SharedStoreWakeUp> { wakeUpStream.stream }

    public func stop() async {
        stopped = true
        listening?.cancel()
        listening = nil
        if holding { roleChanged(false) }
        await closeLockConnection()
        wakeUpStream.continuation.finish()
    }

    // MARK: Connections

    private func openLockConnection() async throws -> PostgresConnection {
        if let lockConnection, !lockConnection.isClosed { return lockConnection }
        let connection = try await connect(id: 1)
        lockConnection = connection
        return connection
    }

    private func closeLockConnection() async {
        holding = false
        if let lockConnection { try? await lockConnection.close() }
        lockConnection = nil
    }

    private func connect(id: Int) async throws -> PostgresConnection {
        try await PostgresConnection.connect(configuration: location.connectionConfiguration, id: id, logger: logger)
    }

    public func start() {
        guard listening == nil, !stopped else { return }
        let continuation = wakeUpStream.continuation
        listening = Task {
            while !Task.isCancelled {
                // Not reachable now, or the connection ended (PostgreSQL restarted): again in a second.
                if let connection = try? await self.connect(id: 2) {
                    continuation.yield(.everything)
                    try? await Self.listen(on: connection, continuation)
                    // Closed however listening ended: postgres-nio requires it before a connection goes.
                    try? await connection.close()
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Yields a wake-up per notification on the store's two channels until the connection ends.
    private static func listen(
        on connection: PostgresConnection, _ continuation: AsyncStream<SharedStoreWakeUp>.Continuation
    ) async throws {
        try await connection.listen(on: PostgresStoreSchema.inboxChannel) { inbox in
            try await connection.listen(on: PostgresStoreSchema.historyChannel) { history in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { for try await _ in inbox { continuation.yield(.inbox) } }
                    group.addTask { for try await _ in history { continuation.yield(.history) } }
                    // One sequence ending means the connection did: both go.
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
        }
    }
}
