import RealmDatabase
import RealmSync

/// One synced realm file's endpoint as a transport carries it: its `SyncClient`, and the marks a
/// script's `waitForDownload` asks for. A mark goes to the server once this connection's first
/// download arrived (before it, the server would answer before sending the file's data); the
/// server answers it after everything it had for the session, so its answer means "downloaded".
/// At most one mark is outstanding: its answer answers every request made before it was sent, and
/// requests made after it wait for the next one. Requests are numbers, not a queue, so waits that
/// time out while offline leave nothing behind.
///
/// `@unchecked Sendable`: it is used only under its handle's lock (`SyncSessionHandle.withEndpoint`),
/// by the network or by the tenant, one at a time.
public final class TenantSyncEndpoint: SyncClientEndpoint, @unchecked Sendable {
    public let client: SyncClient
    let errors: SyncErrorEvents
    private var session: UInt32?
    private var downloadedOnConnection = false
    /// The last request handed out; requests through `answeredThrough` are answered.
    private var lastRequest: UInt64 = 0
    private var answeredThrough: UInt64 = 0
    /// The mark sent on this connection and not answered yet: the last request when it was sent.
    private var markInFlight: UInt64?
    /// Why the session failed on this connection, if it did (a refused bind, a message it could not apply).
    private(set) var sessionError: String?

    init(client: SyncClient, errors: SyncErrorEvents) {
        self.client = client
        self.errors = errors
    }

    /// A new mark, sent with the next uploads; `isAnswered` tells when the server answered it.
    func requestMark() -> UInt64 {
        lastRequest += 1
        return lastRequest
    }

    func isAnswered(_ mark: UInt64) -> Bool { mark <= answeredThrough }

    // MARK: SyncClientEndpoint

    public func connect(session: UInt32) throws -> [SyncMessage] {
        self.session = session
        downloadedOnConnection = false
        // A reset the application must handle (`manual`) keeps the session stopped, and says why.
        sessionError = client.clientResetRequired?.message
        return try recordingFailure { try client.connect(session: session) }
    }

    public func receive(_ message: SyncMessage) throws -> [SyncMessage] {
        if case .mark(_, let mark) = message, mark == markInFlight {
            markInFlight = nil
            answeredThrough = max(answeredThrough, mark)
            return []
        }
        let replies = try recordingFailure { try client.receive(message) }
        if let reset = client.clientResetRequired { sessionError = reset.message }
        switch message {
        case .download: downloadedOnConnection = true
        case .bootstrap(_, _, _, _, _, let isLast, _, _, _): if isLast { downloadedOnConnection = true }
        default: break
        }
        return replies
    }

    public func pendingUploads() throws -> [SyncMessage] {
        let uploads = try recordingFailure { try client.pendingUploads() }
        guard downloadedOnConnection, let session, markInFlight == nil, lastRequest > answeredThrough else {
            return uploads
        }
        markInFlight = lastRequest
        return uploads + [.mark(session: session, requestID: lastRequest)]
    }

    public var maxUploadBytes: Int? {
        get { client.maxUploadBytes }
        set { client.maxUploadBytes = newValue }
    }

    public var isBusy: Bool { client.isBusy }

    public func transportFailed(_ error: SyncError) {
        _ = try? recordingFailure { () throws -> Void in throw error }
    }

    public func disconnect() {
        client.disconnect()
        session = nil
        downloadedOnConnection = false
        // The mark in flight is lost with the connection: the next one covers its requests.
        markInFlight = nil
    }

    /// A failure ends the session on this connection: recorded for `asyncOpen`, and reported to
    /// the script's `errorHandler`.
    private func recordingFailure<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            let syncError = error as? SyncError
            sessionError = "\(syncError?.message ?? "\(error)")"
            errors.append(
                SyncErrorEvent(
                    code: Int(syncError?.code.rawValue ?? SyncErrorCode.otherError.rawValue),
                    message: sessionError ?? "\(error)", compensatingWrites: []))
            throw error
        }
    }
}
