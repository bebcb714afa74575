import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOWebSocket
import RealmSync
import Synchronization
import WSClient

/// A host's connection to the sync server: one WebSocket carrying every registered session (one
/// per realm file), kept up with reconnection (`ReconnectBackoff`). On each connection every
/// session is opened again (`SyncClientEndpoint.connect`: bind with a fresh token, identify, the
/// uploads not yet acknowledged), so what was in flight when a connection fell is sent again.
///
///     let client = try SyncNetClient(url: "ws://127.0.0.1:7800/sync", secret: secret)
///     try await client.register(shared, session: 1, user: "alice")
///     await client.start()
///     shared.withEndpoint { try $0.realm.write { ... } }; await client.flush()
public actor SyncNetClient {
    /// Signs a token for a user (the host holds the shared secret).
    public typealias TokenSource = @Sendable (_ user: String) async throws -> String

    private struct Session {
        let link: any SessionLink
        let user: String
        /// Runs the session's endpoint work, off this actor.
        let worker: SessionWorker
        /// The open on the current connection (`opens` when it began); 0: not open.
        var open = 0
        var isOpen: Bool { open != 0 }
    }

    /// The first server.
    public nonisolated let url: String
    /// Every server, in the order they are tried: after a refused attempt or a dropped connection
    /// the next one is (round robin), with the backoff as for one server.
    public nonisolated let urls: [String]
    /// The server of the current (or last) connection attempt.
    public private(set) var currentURL: String
    private var serverIndex = 0
    private let tokens: TokenSource
    private let codec: WireCodec
    private let backoff: ReconnectBackoff
    private let pingInterval: Duration
    private let handshakeTimeout: Duration
    private var sessions: [UInt32: Session] = [:]
    private var outbox: Outbox?
    /// Counts connections, so work resumed after an await knows whether its connection is still up.
    private var generation = 0
    private var failures = 0
    /// Counts session opens, so a step of an earlier open knows it is stale.
    private var opens = 0
    private var running: Task<Void, Never>?
    private var stopping = false
    public private(set) var state = SyncConnectionState.disconnected
    private var observers: [UUID: AsyncStream<SyncConnectionState>.Continuation] = [:]
    /// The last error of each session that failed (a refused bind, a message it could not apply):
    /// the session is closed until the next connection.
    public private(set) var sessionErrors: [UInt32: String] = [:]
    /// Why the last connection attempt failed or ended.
    public private(set) var lastConnectionError: String?

    /// `fallbackURLs`: servers to fail over to, in turn, after `url`.
    public init(
        url: String, fallbackURLs: [String] = [], tokens: @escaping TokenSource, options: SyncNetClientOptions = .init()
    ) {
        self.url = url
        urls = [url] + fallbackURLs
        currentURL = url
        self.tokens = tokens
        codec = WireCodec(limits: options.limits)
        backoff = options.backoff
        pingInterval = options.pingInterval
        handshakeTimeout = options.handshakeTimeout
    }

    /// A client signing its users' tokens with `secret`.
    public init(
        url: String, fallbackURLs: [String] = [], secret: [UInt8], options: SyncNetClientOptions = .init()
    ) throws {
        let signer = try SyncToken(secret: secret)
        self.init(url: url, fallbackURLs: fallbackURLs, tokens: { try await signer.sign(user: $0) }, options: options)
    }

    // MARK: Sessions

    /// Adds a session (a realm file of `user`) under the number `session`; opened at once when
    /// connected, else on the next connection.
    public func register<Endpoint>(_ endpoint: SharedSyncEndpoint<Endpoint>, session: UInt32, user: String) async throws
    {
        guard sessions[session] == nil else { throw SyncError(.badSession, "session \(session) is already registered") }
        let worker = SessionWorker(label: "realm-sync-session-\(session)")
        let budget = codec.limits.messageBudget
        let link: any SessionLink = endpoint
        worker.enqueue {
            link.withClient { $0.maxUploadBytes = budget }
            return .done
        }
        sessions[session] = Session(link: link, user: user, worker: worker)
        guard outbox != nil else { return }
        let current = generation
        let token = await token(for: user, session: session)
        guard current == generation, let token else { return }
        open(session, token: token)
    }

    /// Removes a session: the server is told (unbind) and the endpoint disconnected.
    public func unregister(session: UInt32) {
        guard let removed = sessions.removeValue(forKey: session) else { return }
        if removed.isOpen, let wire = wire(session, removed) {
            removed.worker.setLive(0)
            wire.enqueueClose(tellServer: true)
        }
        sessionErrors[session] = nil
    }

    /// Uploads the local commits of every open session made since the last call (after a write).
    public func flush() {
        for number in sessions.keys.sorted() { flush(session: number) }
    }

    public func flush(session number: UInt32) {
        guard let session = sessions[number], session.isOpen else { return }
        wire(number, session)?.enqueue { try $0.pendingUploads() }
    }

    // MARK: Running

    /// Connects, and keeps connecting after every loss until `stop`.
    public func start() {
        guard running == nil else { return }
        stopping = false
        running = Task { await self.connectionLoop() }
    }

    /// Closes the connection and stops reconnecting; the sessions stay registered.
    public func stop() async {
        stopping = true
        outbox?.close(.goingAway, reason: "the host is stopping")
        running?.cancel()
        await running?.value
        running = nil
    }

    /// The connection state now, then each change.
    public func stateUpdates() -> AsyncStream<SyncConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncConnectionState.self)
        let id = UUID()
        observers[id] = continuation
        continuation.yield(state)
        continuation.onTermination = { _ in Task { await self.removeObserver(id) } }
        return stream
    }

    private func removeObserver(_ id: UUID) { observers[id] = nil }

    private func setState(_ new: SyncConnectionState) {
        guard new != state else { return }
        state = new
        for observer in observers.values { observer.yield(new) }
    }

    private func connectionLoop() async {
        while !stopping && !Task.isCancelled {
            setState(.connecting)
            let url = currentURL
            var failure: (any Error)?
            do {
                try await connectOnce(to: url)
            } catch {
                failure = error
            }
            // Decided before the state changes, so that whoever reads the error with the
            // `disconnected` state also reads when the next attempt is.
            let delay = backoff.delay(afterFailures: failures)
            if let failure {
                let next = Date().addingTimeInterval(
                    Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
                lastConnectionError =
                    ConnectionFailure.describe(failure, url: url) + "; next try at \(ConnectionFailure.clockTime(next))"
            }
            connectionEnded()
            failOver()
            guard !stopping else { break }
            failures += 1
            try? await Task.sleep(for: delay)
        }
        setState(.disconnected)
    }

    /// One connection: its writer, the sessions opened, then every frame read until it ends (or a
    /// malformed one: nothing after it reaches a session). The next frame is read only once what is
    /// queued to send is under the outbox's low-water mark.
    private nonisolated func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let outbox = Outbox(maxQueuedBytes: codec.limits.maxQueuedBytes)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await outbox.writeAll(to: outbound) }
            await connected(outbox)
            do {
                await outbox.waitForRoom()
                for try await message in inbound.messages(maxSize: codec.limits.maxFrameBytes) {
                    guard !outbox.hasEnded else { break }
                    guard case .binary(let buffer) = message else {
                        outbox.close(.unacceptableData, reason: "text messages are not part of the sync protocol")
                        break
                    }
                    guard await deliver(Array(buffer.readableBytesView)) else { break }
                    await outbox.waitForRoom()
                }
            } catch {
                await recordConnectionError(error)
            }
            outbox.finish()
            await group.waitForAll()
        }
    }

    /// One connection, on an event loop of its own: when the upgrade has not happened within
    /// `handshakeTimeout`, or the client stops first, the attempt is abandoned (`abandon`) and fails.
    private nonisolated func connectOnce(to url: String) async throws {
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let handshake = HandshakeState()
        let socket = AttemptSocket()
        let timeout = handshakeTimeout
        let isPlain = PlainWebSocketTarget(url) != nil
        // A `ws://` attempt is abandoned by closing its socket; a `wss://` one (swift-websocket's
        // client offers no other way) by shutting its loop down.
        let abandon: @Sendable () -> Void = {
            if isPlain { socket.abandon() } else { Task { try? await loop.shutdownGracefully() } }
        }
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            guard handshake.timeOut() else { return }
            abandon()
        }
        defer { watchdog.cancel() }
        do {
            // A stop during the handshake abandons it at once; once upgraded, `serve` ends the connection.
            _ = try await withTaskCancellationHandler {
                try await openWebSocket(url, on: loop, socket: socket) { inbound, outbound in
                    guard handshake.upgrade() else { return }
                    await self.serve(inbound: inbound, outbound: outbound)
                }
            } onCancel: {
                if handshake.timeOut() { abandon() }
            }
        } catch {
            watchdog.cancel()
            try? await loop.shutdownGracefully()
            if handshake.hasTimedOut { throw HandshakeTimeout(url: url, timeout: timeout) }
            throw error
        }
        watchdog.cancel()
        try? await loop.shutdownGracefully()
        if handshake.hasTimedOut { throw HandshakeTimeout(url: url, timeout: timeout) }
    }

    private func recordConnectionError(_ error: any Error) { lastConnectionError = "\(error)" }

    /// The socket is up: tokens for every user first (signing may wait), then every session opened
    /// in one step, so nothing (a flush) can slip a session's uploads before its bind. A session
    /// registered meanwhile (its `register` saw no connection yet) is opened after.
    private func connected(_ newOutbox: Outbox) async {
        generation += 1
        let current = generation
        let known = Set(sessions.keys)
        var signed: [String: String] = [:]
        for (number, session) in sessions where signed[session.user] == nil {
            signed[session.user] = await token(for: session.user, session: number)
        }
        guard current == generation, !stopping else { return }
        outbox = newOutbox
        failures = 0
        lastConnectionError = nil
        setState(.connected)
        for (number, session) in sessions.sorted(by: { $0.key < $1.key }) {
            guard let token = signed[session.user] else { continue }
            open(number, token: token)
        }
        await openLateSessions(on: current, signed: signed, tried: known)
    }

    /// Opens the sessions registered while `connected` waited for tokens, signing the tokens they
    /// miss; stops when the connection `current` is gone. Each session is tried once (a token that
    /// cannot be signed is recorded in `sessionErrors`).
    private func openLateSessions(on current: Int, signed: [String: String], tried: Set<UInt32>) async {
        var signed = signed
        var tried = tried
        while current == generation,
            let (number, session) = sessions.sorted(by: { $0.key < $1.key }).first(where: {
                !$0.value.isOpen && !tried.contains($0.key)
            })
        {
            tried.insert(number)
            if signed[session.user] == nil { signed[session.user] = await token(for: session.user, session: number) }
            guard current == generation, let token = signed[session.user] else { continue }
            open(number, token: token)
        }
    }

    /// The next server, after an attempt refused or a connection dropped (none with one server).
    private func failOver() {
        guard urls.count > 1 else { return }
        serverIndex = (serverIndex + 1) % urls.count
        currentURL = urls[serverIndex]
    }

    private func connectionEnded() {
        generation += 1
        for (number, session) in sessions where session.isOpen {
            session.worker.setLive(0)
            wire(number, session)?.enqueueClose(tellServer: false)
            sessions[number]?.open = 0
        }
        outbox = nil
        setState(.disconnected)
    }

    // MARK: Messages

    private func token(for user: String, session: UInt32) async -> String? {
        do {
            return try await tokens(user)
        } catch {
            sessionErrors[session] = "cannot sign a token for user '\(user)': \(error)"
            return nil
        }
    }

    /// Opens a session on the current connection: its opening messages, the bind with `token`
    /// (on the session's worker).
    private func open(_ number: UInt32, token: String) {
        guard outbox != nil, var session = sessions[number], !session.isOpen else { return }
        opens += 1
        session.open = opens
        sessions[number] = session
        sessionErrors[number] = nil
        session.worker.setLive(opens)
        wire(number, session)?.enqueue(token: token) { try $0.connect(session: number) }
    }

    /// A frame from the server: to its session's worker, which applies it and sends the replies,
    /// then the uploads it may now send (a new file holds its commits until its first download;
    /// commits made offline wait for the session to be identified again). A malformed frame closes
    /// the connection (the server is not speaking this protocol).
    /// False when the frame was malformed: the connection is closing and reads no further.
    private func deliver(_ bytes: [UInt8]) -> Bool {
        let message: SyncMessage
        do {
            message = try codec.decodeMessage(bytes).message
        } catch {
            lastConnectionError = "\(error)"
            outbox?.close(.protocolError, reason: "\(error)")
            return false
        }
        guard let session = sessions[message.session], session.isOpen else { return true }
        let (number, user) = (message.session, session.user)
        wire(number, session)?.enqueue { endpoint in
            let replies = try endpoint.receive(message)
            // A client reset starts the session again from a bind, which needs a token: it opens anew.
            if case .bind? = replies.first {
                Task { await self.reopen(number, user: user) }
                return []
            }
            return replies + (try endpoint.pendingUploads())
        }
        return true
    }

    /// Opens the session again on this connection with a fresh token (after a client reset).
    private func reopen(_ number: UInt32, user: String) async {
        guard sessions[number]?.isOpen == true else { return }
        sessions[number]?.open = 0
        let current = generation
        guard let token = await token(for: user, session: number), current == generation else { return }
        open(number, token: token)
    }

    /// The session's open on the current connection, as its worker's steps need it.
    private func wire(_ number: UInt32, _ session: Session) -> SessionWire? {
        guard let outbox, session.isOpen else { return nil }
        return SessionWire(
            number: number, open: session.open, link: session.link, worker: session.worker, outbox: outbox,
            codec: codec,
            failed: { open, reason in Task { await self.sessionFailed(number, open: open, reason) } })
    }

    /// A session failed on its worker (which told the server): closed until the next connection;
    /// the others go on. Nothing is recorded for an open that has ended since.
    private func sessionFailed(_ number: UInt32, open: Int, _ reason: String) {
        guard sessions[number]?.open == open else { return }
        sessions[number]?.open = 0
        sessionErrors[number] = reason
    }

    /// Connects to `url` on `loop` and runs `serve` once upgraded: a `ws://` URL through
    /// `SyncClientChannel` (a server's end of input ends the attempt at once), a `wss://` one
    /// through swift-websocket's client (TLS). Pongs are automatic; pings of its own let the client
    /// notice a server that went silent.
    private nonisolated func openWebSocket(
        _ url: String, on loop: any EventLoopGroup, socket: AttemptSocket,
        _ serve: @escaping @Sendable (WebSocketInboundStream, WebSocketOutboundWriter) async throws -> Void
    ) async throws {
        let autoPing = AutoPingSetup.enabled(timePeriod: pingInterval)
        guard let target = PlainWebSocketTarget(url) else {
            let configuration = WebSocketClientConfiguration(
                maxFrameSize: codec.limits.maxFrameBytes, autoPing: autoPing)
            try await WebSocketClient.connect(
                url: url, configuration: configuration, eventLoopGroup: loop, logger: Self.logger
            ) { inbound, outbound, _ in try await serve(inbound, outbound) }
            return
        }
        let channel = SyncClientChannel(
            target: target, maxFrameSize: codec.limits.maxFrameBytes, autoPing: autoPing, socket: socket,
            handler: { inbound, outbound, _ in try await serve(inbound, outbound) })
        _ = try await ClientConnection(
            channel, address: .hostname(target.host, port: target.port), eventLoopGroup: loop, logger: Self.logger
        ).run()
    }

    private static let logger: Logger = {
        var logger = Logger(label: "realm-sync-client")
        logger.logLevel = .warning
        return logger
    }()
}
