import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The sync route's request context: Hummingbird's WebSocket context and the connection's
/// channel, so that a connection whose writer is stuck (a peer that never reads) can be closed:
/// the WebSocket layer's own close would wait to write its close frame as long as the writer.
struct SyncRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
