import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import WSClient
@_spi(WSInternal) import WSCore

/// The client's WebSocket connection on a `ws://` URL, set up as swift-websocket's client sets it
/// up, with one handler more: the end of the server's input closes the connection.
///
/// swift-websocket's client allows half-closed connections, and NIO's client upgrade handler
/// ignores the end of input (its server twin fails the upgrade, swift-nio #2756): a server killed
/// after accepting the TCP connection and before answering the upgrade left the attempt waiting for
/// good, its socket in CLOSE-WAIT (the hang `SyncServerKillTests` found; the handshake timeout only
/// bounded it). Closing at the end of input fails the upgrade at once; after the upgrade it ends
/// the connection as the server's own close would (a sync peer never half-closes).
struct SyncClientChannel: ClientConnectionChannel {
    enum Upgrade: Sendable {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case notUpgraded
    }

    typealias Value = EventLoopFuture<Upgrade>

    let target: PlainWebSocketTarget
    let maxFrameSize: Int
    let autoPing: AutoPingSetup
    /// Told of the channel, so that the attempt can be abandoned by closing it.
    let socket: AttemptSocket
    let handler: WebSocketDataHandler<SyncClientContext>

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let maxFrameSize = maxFrameSize
        socket.opened(channel)
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(CloseAtEndOfInput())
            let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
                maxFrameSize: maxFrameSize,
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        .webSocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                    }
                })
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: target.hostHeader)
            headers.add(name: "Origin", value: "ws://\(target.host)")
            let upgrade = NIOTypedHTTPClientUpgradeConfiguration(
                upgradeRequestHead: HTTPRequestHead(
                    version: .http1_1, method: .GET, uri: target.path, headers: headers),
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(.notUpgraded) })
            var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgrade)
            configuration.leftOverBytesStrategy = .forwardBytes
            return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                configuration: configuration)
        }
    }

    func handle(value: Value, logger: Logger) async throws -> WebSocketCloseFrame? {
        switch try await value.get() {
        case .webSocket(let channel):
            return try await WebSocketHandler.handle(
                type: .client,
                configuration: .init(
                    extensions: [], autoPing: autoPing, validateUTF8: false, maxFrameSize: maxFrameSize),
                asyncChannel: channel, context: SyncClientContext(logger: logger), handler: handler)
        case .notUpgraded:
            throw WebSocketClientError.webSocketUpgradeFailed
        }
    }
}

/// What the connection's handler is given besides its streams.
struct SyncClientContext: WebSocketContext {
    let logger: Logger
}

/// Closes the channel when the peer ends its output (see `SyncClientChannel`).
final class CloseAtEndOfInput: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if case ChannelEvent.inputClosed = event { context.close(promise: nil) }
    }
}

/// A `ws://` URL's host, port (80 when absent) and path with its query; nil for any other URL
/// (`wss://` goes through swift-websocket's own client, which brings TLS).
struct PlainWebSocketTarget: Sendable, Equatable {
    let host: String
    let port: Int
    let path: String

    init?(_ url: String) {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "ws",
            let host = components.host, !host.isEmpty
        else { return nil }
        self.host = host
        port = components.port ?? 80
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.path = path + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
    }

    /// `host:port`, an IPv6 address in brackets.
    var hostHeader: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
}
