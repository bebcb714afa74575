import RealmDatabase
import RealmLua
import RealmSync

/// A tenant's session for one synced realm file, as its scripts see it (`realm.syncSession`):
/// each member asks the endpoint under the handle's lock, or the transport.
final class TenantSyncSession: LuaSyncSession {
    let handle: any SyncSessionHandle
    private let transport: any SyncSessionTransport
    private let errors: SyncErrorEvents
    private var paused = false

    init(handle: any SyncSessionHandle, transport: any SyncSessionTransport, errors: SyncErrorEvents) {
        self.handle = handle
        self.transport = transport
        self.errors = errors
    }

    /// The session ends with the tenant (evicted from the cache, or the host closing): its commits
    /// not yet acknowledged are in the file's history and go with the next session on the file.
    deinit { handle.close() }

    /// `inactive` while paused, and after a reset the application must handle (`manual`), as
    /// realm-core deactivates a session on a fatal error: it syncs nothing until the file is
    /// opened again.
    var state: String { paused || resetRequired ? "inactive" : "active" }
    var connectionState: String { paused || resetRequired ? "disconnected" : transport.connectionState }
    private var resetRequired: Bool { handle.withEndpoint { $0.client.clientResetRequired != nil } }
    var lastConnectionError: String? { transport.lastConnectionError }
    var sessionError: String? { handle.withEndpoint { $0.sessionError } }

    var bootstrapProgress: Double? { handle.withEndpoint { $0.client.bootstrapProgress } }

    func flush() { handle.flush() }

    var isUploaded: Bool { !handle.withEndpoint { $0.client.hasUnacknowledgedChanges } }

    func requestDownloadMark() -> UInt64 { handle.withEndpoint { $0.requestMark() } }

    func isMarkAnswered(_ mark: UInt64) -> Bool { handle.withEndpoint { $0.isAnswered(mark) } }

    func takeErrorReports() -> [LuaSyncErrorReport] { errors.take().map(Self.report) }

    /// The latest errors as `.sync` lists them.
    var recentErrorLines: [String] { errors.recent.map(Self.report).flatMap(\.lines) }

    private static func report(_ event: SyncErrorEvent) -> LuaSyncErrorReport {
        LuaSyncErrorReport(
            code: event.code, message: event.message,
            compensatingWrites: event.compensatingWrites.map {
                LuaCompensatingWrite(
                    className: $0.object.className,
                    primaryKey: $0.object.primaryKey.value.primitiveRealmValue ?? .null, reason: $0.reason)
            })
    }

    func pause() {
        guard !paused else { return }
        paused = true
        handle.pause()
    }

    func resume() {
        guard paused else { return }
        paused = false
        handle.resume()
    }
}
