/// What several servers on one store share besides the data (docs/SYNC.md "Several servers on one
/// store"): which of them integrates, and news that the inbox or the history moved. On PostgreSQL it
/// is an advisory lock held on a dedicated connection and LISTEN/NOTIFY (RealmSyncPostgres); the
/// network layer's hub drives the engine with it (`SyncServer.integrateInbox`, `catchUp`).
public protocol SharedStoreCoordination: AnyObject, Sendable {
    /// Starts following the store (its notifications); called once, when the server starts serving.
    func start() async
    /// Tries to take the integrator role, or checks that this server still holds it: true while it
    /// does. Called at every wake-up; cheap when nothing changed.
    func holdIntegratorRole() async -> Bool
    /// Wake-ups: the inbox or the history moved, or the link behind them came back (`everything`:
    /// read all again). Finishes after `stop`.
    func wakeUps() -> AsyncStream<SharedStoreWakeUp>
    /// Gives up the role and the notifications.
    func stop() async
}

/// Why a server of a shared store looks at the store again.
public enum SharedStoreWakeUp: Sendable, Hashable {
    /// Another server put uploads in the inbox: the integrator has work.
    case inbox
    /// The history moved or uploads were settled: every server routes.
    case history
    /// Something may have been missed (a reconnection, a timer): both.
    case everything
}
