import Foundation
import RealmHost
import RealmSync
import RealmSyncNet
import Synchronization

/// The host's transport to a sync server (`SyncSessionTransport`, RealmHost's seam) over one
/// `SyncNetClient`: one WebSocket carrying every open tenant's session. The host's calls return at
/// once; what they ask of the client (register, unregister, flush) runs in order on one task.
public final class NetSyncTransport: SyncSessionTransport {
    /// Every server, in the order the client tries them.
    public var urls: [String] { client.urls }
    public let canSign: Bool
    public let client: SyncNetClient
    private let commands: AsyncStream<NetSyncCommand>.Continuation
    private let pump: Task<Void, Never>
    private let watcher: Task<Void, Never>
    private let status = ConnectionStatus()
    private let sessionNumbers = Mutex<UInt32>(0)

    /// A transport to `url` signing tokens with `secret` (nil: the host cannot sign, and every
    /// bind fails until it can), connecting now.
    public convenience init(url: String, secret: [UInt8]?, options: SyncNetClientOptions = .init()) throws {
        try self.init(url: url, fallbackURLs: [], secret: secret, options: options)
    }

    /// A transport to `url`, failing over to `fallbackURLs` in turn (`SyncNetClient`).
    public init(url: String, fallbackURLs: [String], secret: [UInt8]?, options: SyncNetClientOptions = .init())
        throws
    {
        let signer = try secret.map { try SyncToken(secret: $0) }
        let client = SyncNetClient(
            url: url, fallbackURLs: fallbackURLs,
            tokens: { user in
                guard let signer else {
                    throw SyncError(.badAuthentication, "the host has no sync secret to sign a token for '\(user)'")
                }
                return try await signer.sign(user: user)
            }, options: options)
        status.value.withLock { $0.url = url }
        self.client = client
        canSign = signer != nil
        let (stream, commands) = AsyncStream.makeStream(of: NetSyncCommand.self)
        self.commands = commands
        pump = Task {
            await client.start()
            for await command in stream { await command.run(on: client) }
        }
        let status = status
        watcher = Task {
            for await state in await client.stateUpdates() {
                let error = await client.lastConnectionError
                let url = await client.currentURL
                status.value.withLock { $0 = (state, error, url) }
            }
        }
    }

    /// A transport for a host's options: the secret from `REALMHOST_SYNC_SECRET`, else from
    /// `options.secretFile` (text without surrounding white space, mode 0600, as the server's).
    public static func make(
        _ options: HostSyncOptions, environment: [String: String] = ProcessInfo.processInfo.environment,
        clientOptions: SyncNetClientOptions = .init()
    ) throws -> NetSyncTransport {
        guard let url = options.urls.first else { throw SyncError(.otherError, "no sync URL given") }
        return try NetSyncTransport(
            url: url, fallbackURLs: Array(options.urls.dropFirst()),
            secret: try secret(options, environment: environment),
            options: clientOptions)
    }

    /// The secret as the server reads it (`SyncSharedSecret`): a file others may read is refused.
    static func secret(_ options: HostSyncOptions, environment: [String: String]) throws -> [UInt8]? {
        if let shared = try SyncSharedSecret.fromEnvironment(environment) { return shared.bytes }
        guard let file = options.secretFile else { return nil }
        return try SyncSharedSecret.read(file: file.path).bytes
    }

    /// A transport dropped without `stop()` stops its client anyway: nothing would use the connection.
    deinit {
        commands.finish()
        watcher.cancel()
        Task { [client] in await client.stop() }
    }

    /// The server connected to, or tried last.
    public var url: String { status.value.withLock { $0.url } }
    public var connectionState: String { status.value.withLock { $0.state.rawValue } }
    public var lastConnectionError: String? { status.value.withLock { $0.error } }

    public func carry(_ endpoint: TenantSyncEndpoint, user: String) -> any SyncSessionHandle {
        let number = sessionNumbers.withLock { n in
            n &+= 1
            return n
        }
        let handle = NetSyncSessionHandle(
            shared: SharedSyncEndpoint(endpoint), number: number, user: user, commands: commands)
        commands.yield(.register(handle.shared, number, user))
        return handle
    }

    /// Sends what was asked, closes the connection and stops reconnecting.
    public func stop() async {
        commands.finish()
        await pump.value
        await client.stop()
        watcher.cancel()
    }
}

/// The client's connection state, last connection error and server, as the watcher last saw them.
private final class ConnectionStatus: Sendable {
    let value = Mutex<(state: SyncConnectionState, error: String?, url: String)>((.disconnected, nil, ""))
}

/// What the host asks of the network client, run in order.
enum NetSyncCommand: Sendable {
    case register(SharedSyncEndpoint<TenantSyncEndpoint>, UInt32, String)
    case unregister(UInt32)
    case flush(UInt32)

    func run(on client: SyncNetClient) async {
        switch self {
        case .register(let endpoint, let number, let user):
            // Refused only for a number in use, which `carry` never hands out twice.
            try? await client.register(endpoint, session: number, user: user)
        case .unregister(let number): await client.unregister(session: number)
        case .flush(let number): await client.flush(session: number)
        }
    }
}

/// One tenant session on the network client.
final class NetSyncSessionHandle: SyncSessionHandle {
    let shared: SharedSyncEndpoint<TenantSyncEndpoint>
    let number: UInt32
    let user: String
    private let commands: AsyncStream<NetSyncCommand>.Continuation
    private let closed = Mutex(false)

    init(
        shared: SharedSyncEndpoint<TenantSyncEndpoint>, number: UInt32, user: String,
        commands: AsyncStream<NetSyncCommand>.Continuation
    ) {
        self.shared = shared
        self.number = number
        self.user = user
        self.commands = commands
    }

    func withEndpoint<Result: Sendable>(_ body: (TenantSyncEndpoint) throws -> Result) rethrows -> Result {
        try shared.withEndpoint(body)
    }

    func flush() { commands.yield(.flush(number)) }
    func pause() { commands.yield(.unregister(number)) }
    func resume() { commands.yield(.register(shared, number, user)) }

    func close() {
        let wasOpen = closed.withLock { isClosed in
            defer { isClosed = true }
            return !isClosed
        }
        guard wasOpen else { return }
        commands.yield(.unregister(number))
    }
}
