import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// A server on 127.0.0.1 that accepts every WebSocket upgrade and then fails its client the way a
/// server killed at that moment does: the upgrade answered, then the socket closed (the peer's FIN),
/// with or without part of a frame first, or before it answered. It counts the attempts (upgrades, or
/// requests when it dies before answering), so a test sees whether a client
/// keeps coming back.
final class DyingPeer: Sendable {
    enum Death: Sendable {
        /// The upgrade request read, then the close, unanswered.
        case beforeUpgrade
        /// The 101 answer, then the close.
        case afterUpgrade
        /// The 101 answer, the first bytes of a binary frame, then the close.
        case midFrame
    }

    let channel: any Channel
    private let upgrades: UpgradeCounter

    var port: Int { channel.localAddress?.port ?? 0 }
    var upgradeCount: Int { upgrades.count }

    private init(channel: any Channel, upgrades: UpgradeCounter) {
        self.channel = channel
        self.upgrades = upgrades
    }

    static func start(_ death: Death) async throws -> DyingPeer {
        let upgrades = UpgradeCounter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                if case .beforeUpgrade = death {
                    return channel.pipeline.addHandler(CloseOnFirstRead(upgrades))
                }
                let upgrader = NIOWebSocketServerUpgrader(
                    shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                    upgradePipelineHandler: { channel, _ in
                        upgrades.add()
                        return die(channel, death)
                    })
                return channel.pipeline.configureHTTPServerPipeline(
                    withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return DyingPeer(channel: channel, upgrades: upgrades)
    }

    private static func die(_ channel: any Channel, _ death: Death) -> EventLoopFuture<Void> {
        switch death {
        case .afterUpgrade, .beforeUpgrade:
            return channel.close()
        case .midFrame:
            // A binary frame announcing 100 bytes, 3 of them sent.
            // Written below the frame encoder, which only takes whole frames.
            let partial = ByteBuffer(bytes: [0x82, 100, 1, 2, 3])
            do {
                let encoder = try channel.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
                return encoder.writeAndFlush(NIOAny(partial)).flatMap { channel.close() }
            } catch {
                return channel.close()
            }
        }
    }

    func stop() async throws { try await channel.close() }
}

final class UpgradeCounter: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// Reads the first bytes of a connection (the upgrade request), counts it, and closes.
private final class CloseOnFirstRead: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    private let attempts: UpgradeCounter

    init(_ attempts: UpgradeCounter) { self.attempts = attempts }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        attempts.add()
        context.close(promise: nil)
    }
}
