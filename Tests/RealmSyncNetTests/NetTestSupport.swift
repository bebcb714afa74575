import Foundation
import Logging
import NIOCore
import NIOWebSocket
import RealmDatabase
import RealmSync
import Synchronization
import WSClient
import XCTest

@testable import RealmSyncNet

/// A folder with a server store and replicas, a server on 127.0.0.1 and clients that reconnect fast.
final class NetFixture: @unchecked Sendable {
    let folder: URL
    let secret = Array("a secret shared by the test's hosts and server".utf8)

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-net-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Item { _id: string (pk), text: string }.
    static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Item",
                properties: [Property(name: "_id", type: .string), Property(name: "text", type: .string)],
                primaryKey: "_id")
        ])
    }

    var storePath: String { folder.appendingPathComponent("sync.sqlite").path }

    /// A server on the store, listening on `port` (0: a free one), started.
    func startServer(
        port: Int = 0, limits: WireLimits = .standard,
        configure: (inout SyncNetServerConfiguration) -> Void = { _ in }
    ) async throws -> SyncNetServer {
        var configuration = SyncNetServerConfiguration(host: "127.0.0.1", port: port, limits: limits)
        configure(&configuration)
        let server = try SyncNetServer(
            configuration: configuration, storePath: storePath, schema: Self.schema, secret: secret)
        try await server.start()
        return server
    }

    func url(of server: SyncNetServer) async throws -> String {
        let url = await server.url
        return try XCTUnwrap(url, "the server is not started")
    }

    /// The server's state read from its store file (another connection to it).
    func serverState() throws -> CanonicalState {
        let store = try SQLiteSyncStore(path: storePath, schema: Self.schema)
        return try ServerState(store: store, schema: Self.schema).canonicalState(classes: ["Item"])
    }

    func latestServerVersion() throws -> UInt64 {
        let store = try SQLiteSyncStore(path: storePath, schema: Self.schema)
        return try ServerState(store: store, schema: Self.schema).latestServerVersion()
    }

    /// A replica file of `user`, shared with a network client.
    func replica(_ name: String, user: String) throws -> SharedSyncEndpoint<SyncClient> {
        let configuration = Realm.Configuration(
            fileURL: folder.appendingPathComponent("\(name).realm"), schema: Self.schema)
        return SharedSyncEndpoint(
            try SyncClient(configuration: configuration, user: user, wallClock: SystemWallClock()))
    }

    /// Two hosts of `user` on `url`, each carrying one replica of theirs (files "a" and "b") as
    /// session 1, started.
    func twoHosts(url: String, user: String = "alice") async throws -> (
        a: SharedSyncEndpoint<SyncClient>, b: SharedSyncEndpoint<SyncClient>, hostA: SyncNetClient,
        hostB: SyncNetClient
    ) {
        let (a, b) = (try replica("a", user: user), try replica("b", user: user))
        let (hostA, hostB) = (try client(url: url), try client(url: url))
        try await hostA.register(a, session: 1, user: user)
        try await hostB.register(b, session: 1, user: user)
        await hostA.start()
        await hostB.start()
        return (a, b, hostA, hostB)
    }

    /// A client of `url` retrying every 20–40 ms, signing with `tokens` (the shared secret by default).
    func client(url: String, tokens: SyncNetClient.TokenSource? = nil, limits: WireLimits = .standard) throws
        -> SyncNetClient
    {
        let backoff = ReconnectBackoff(initial: .milliseconds(40), maximum: .milliseconds(40))
        let signer = try SyncToken(secret: secret)
        return SyncNetClient(
            url: url, tokens: tokens ?? { try await signer.sign(user: $0) },
            options: SyncNetClientOptions(limits: limits, backoff: backoff))
    }
}

extension SharedSyncEndpoint where Endpoint == SyncClient {
    func write(_ id: String, _ text: String) throws {
        try withEndpoint { client in
            try client.realm.write {
                _ = try client.realm.create("Item", value: ["_id": .string(id), "text": .string(text)])
            }
        }
    }

    func text(_ id: String) throws -> String? {
        try withEndpoint { client in
            try client.realm.object(ofType: "Item", forPrimaryKey: .string(id))?.value(forKey: "text").stringValue
        }
    }

    var count: Int { (try? withEndpoint { try $0.realm.objects("Item").count }) ?? -1 }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; whether it held.
func eventually(timeout: Duration = .seconds(15), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// A peer speaking raw bytes: sends `frames`, collects what comes back until the server closes,
/// `replies` frames came back, or `timeout` passed. What the server answered and how it closed.
struct RawPeerResult: Sendable {
    var received: [[UInt8]] = []
    var closeCode: WebSocketErrorCode?
    var closeReason: String?
}

func rawPeer(url: String, send frames: [[UInt8]], replies: Int = .max, timeout: Duration = .seconds(10)) async throws
    -> RawPeerResult
{
    let logger = {
        var logger = Logger(label: "raw-peer")
        logger.logLevel = .critical
        return logger
    }()
    let collected = ReceivedFrames()
    let close = try await withThrowingTaskGroup(of: WebSocketCloseFrame?.self) { group in
        group.addTask {
            try await WebSocketClient.connect(
                url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 24), logger: logger
            ) { inbound, outbound, _ in
                for frame in frames { try await outbound.write(.binary(ByteBuffer(bytes: frame))) }
                for try await message in inbound.messages(maxSize: 1 << 24) {
                    if case .binary(let buffer) = message { collected.append(Array(buffer.readableBytesView)) }
                    if collected.frames.count >= replies { break }
                }
            }
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
    return RawPeerResult(received: collected.frames, closeCode: close?.closeCode, closeReason: close?.reason)
}

final class ReceivedFrames: Sendable {
    private let storage = Mutex<[[UInt8]]>([])
    func append(_ frame: [UInt8]) { storage.withLock { $0.append(frame) } }
    var frames: [[UInt8]] { storage.withLock { $0 } }
}

/// The states `updates` yields until `last` (included) or `timeout`.
func states(
    _ updates: AsyncStream<SyncConnectionState>, until last: SyncConnectionState, timeout: Duration = .seconds(15)
) async -> [SyncConnectionState] {
    await withTaskGroup(of: [SyncConnectionState]?.self) { group in
        group.addTask {
            var seen: [SyncConnectionState] = []
            for await state in updates {
                seen.append(state)
                if state == last { break }
            }
            return seen
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first ?? []
    }
}

/// Sends one text message; the close code the server answers with (nil: none within `timeout`).
func rawText(url: String, _ text: String, timeout: Duration = .seconds(10)) async throws -> WebSocketErrorCode? {
    let logger = Logger(label: "raw-text")
    return try await within(timeout) {
        let close = try await WebSocketClient.connect(url: url, logger: logger) { inbound, outbound, _ in
            try await outbound.write(.text(text))
            for try await _ in inbound {}
        }
        return close?.closeCode
    }
}

/// What `body` returns, or nil when it has not returned within `timeout` (it is cancelled then).
func within<Value: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> Value?) async throws
    -> Value?
{
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Sends one binary message in `fragments` (each its own WebSocket frame); the close code the server
/// answers with (nil: none within `timeout`).
func rawFragments(url: String, _ fragments: [[UInt8]], timeout: Duration = .seconds(10)) async throws
    -> WebSocketErrorCode?
{
    let logger = {
        var logger = Logger(label: "raw-fragments")
        logger.logLevel = .critical
        return logger
    }()
    let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 24)
    return try await within(timeout) {
        let close = try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
            inbound, outbound, _ in
            try await outbound.withBinaryMessageWriter { writer in
                for fragment in fragments { try await writer(ByteBuffer(bytes: fragment)) }
            }
            for try await _ in inbound {}
        }
        return close?.closeCode
    }
}
