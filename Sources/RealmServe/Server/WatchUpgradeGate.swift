import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Lets a WebSocket upgrade of `/v1/watch` reach the upgrader only with a valid token, so that a
/// refused one is answered as every other route answers it: 401 with the error body naming why.
///
/// Hummingbird answers any upgrade its `shouldUpgrade` refuses with an empty 400 and offers no hook
/// there. This handler sits between the HTTP decoder and the upgrade handler: it holds the first
/// request's parts while the token is checked, then passes them on, when the token is refused
/// without `Upgrade` and with `Connection: close`. The upgrader then sees a plain GET, which the app
/// router answers 401 (and logs). No WebSocket frame is read from a peer without a valid token.
/// Only a connection's first request can upgrade (NIO's upgrade handler leaves after it), so the
/// gate leaves after that request too.
final class WatchUpgradeGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// Whether the value of an `Authorization` header and the `access_token` query parameter (nil:
    /// none) name a caller.
    typealias Check = @Sendable (_ authorization: String?, _ accessToken: String?) async -> Bool

    private let path: String
    private let check: Check
    /// The parts of the request held while its token is checked.
    private var held: [HTTPServerRequestPart] = []
    private var checking = false

    init(path: String, check: @escaping Check) {
        self.path = path
        self.check = check
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if checking {
            held.append(part)
            return
        }
        guard case .head(let head) = part, isWatchUpgrade(head) else {
            return leave(context, passing: [part])
        }
        checking = true
        held = [part]
        let authorization = head.headers.first(name: "authorization")
        let accessToken = URI(head.uri).queryParameters["access_token"].map(String.init)
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        let check = check
        Task {
            let valid = await check(authorization, accessToken)
            loop.execute {
                let (gate, context) = bound.value
                gate.release(context, tokenValid: valid)
            }
        }
    }

    /// The token was checked: the held parts go on (without the upgrade when it was refused).
    private func release(_ context: ChannelHandlerContext, tokenValid: Bool) {
        guard context.channel.isActive else { return }
        var parts = held
        held = []
        checking = false
        if !tokenValid, case .head(var head) = parts.first {
            // The decoder paused at the upgrade: nothing more is read on this connection, so its
            // answer closes it.
            head.headers.remove(name: "upgrade")
            head.headers.replaceOrAdd(name: "connection", value: "close")
            parts[0] = .head(head)
        }
        leave(context, passing: parts)
    }

    /// Passes `parts` on, then leaves the pipeline: nothing after the first request concerns it.
    private func leave(_ context: ChannelHandlerContext, passing parts: [HTTPServerRequestPart]) {
        for part in parts { context.fireChannelRead(wrapInboundOut(part)) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func isWatchUpgrade(_ head: HTTPRequestHead) -> Bool {
        let target = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        return head.method == .GET && target == path
            && head.headers["upgrade"].contains { $0.lowercased() == "websocket" }
    }
}

/// A server child channel with a `WatchUpgradeGate` after the HTTP decoder of another.
struct WatchGateChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let path: String
    let check: WatchUpgradeGate.Check

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(WatchUpgradeGate(path: path, check: check), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
