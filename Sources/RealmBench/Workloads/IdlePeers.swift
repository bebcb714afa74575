import Foundation
import Logging
import NIOCore
import RealmSync
import RealmSyncNet
import WSClient

/// Idle sync sessions for `sync_idle_session`: each peer is a WebSocket of its own on NIO's shared
/// event loops (never shut down, so no late close lands on a stopped loop), speaking the protocol
/// as a host's first session would: a bind with its user's token, the identify of a fresh file, a
/// mark; once the mark comes back it reads and ignores whatever arrives until the server closes.
final class IdlePeers {
    let url: String
    private let codec = WireCodec()
    private var tasks: [Task<Void, Never>] = []

    init(url: String) { self.url = url }

    /// Opens `count` peers (users `idle<first>`, …) and waits until each has had its mark answered.
    func open(_ count: Int, first: Int) throws {
        guard count > 0 else { return }
        let ready = ObservationBarrier(observers: count)
        ready.expect(1)
        let signer = try SyncToken(secret: NetBench.secret)
        for index in 0..<count {
            let peer = Peer(url: url, user: "idle\(first + index)", codec: codec, signer: signer)
            tasks.append(Task { await peer.serve { ready.observed(1, by: index) } })
        }
        _ = try ready.wait("\(count) idle sessions opening", timeout: .seconds(120))
    }

    /// One peer's connection.
    struct Peer: Sendable {
        let url: String
        let user: String
        let codec: WireCodec
        let signer: SyncToken

        /// Connects, opens the session, calls `marked` when the mark comes back, then reads until
        /// the server closes. A peer that fails is gone: `open` reports the sessions never ready.
        func serve(marked: @escaping @Sendable () -> Void) async {
            do {
                let token = try await signer.sign(user: user)
                let (user, codec) = (user, codec)
                try await WebSocketClient.connect(url: url, logger: IdlePeers.logger) {
                    inbound, outbound, _ in
                    let bind = SyncMessage.bind(session: 1, user: user, needsClientFileID: true)
                    try await outbound.write(.binary(ByteBuffer(bytes: try codec.encode(bind, token: token))))
                    for try await message in inbound.messages(maxSize: codec.limits.maxFrameBytes) {
                        guard case .binary(let buffer) = message else { continue }
                        let received = try codec.decodeMessage(Array(buffer.readableBytesView)).message
                        if case .mark = received { marked() }
                        for reply in IdlePeers.answer(received) {
                            try await outbound.write(.binary(ByteBuffer(bytes: try codec.encode(reply))))
                        }
                    }
                }
            } catch {
                return
            }
        }
    }

    /// An idle replica's answer: to its file id, the identify of an empty file and a mark.
    static func answer(_ message: SyncMessage) -> [SyncMessage] {
        guard case .ident(let session, let fileID, let salt) = message else { return [] }
        return [
            .identify(
                session: session, clientFileID: fileID, salt: salt, downloadCursor: 0,
                query: .allObjects(of: ["Probe"])),
            .mark(session: session, requestID: 1),
        ]
    }

    /// Ends the peers (after the server closed their connections); bounded.
    func stop() {
        let tasks = tasks
        _ = try? awaitBlocking("closing the idle peers") {
            for task in tasks { task.cancel() }
            for task in tasks { await task.value }
        }
        self.tasks = []
    }

    static let logger: Logger = {
        var logger = Logger(label: "realm-bench-idle-peer")
        logger.logLevel = .critical
        return logger
    }()
}
