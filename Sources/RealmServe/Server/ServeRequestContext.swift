import Hummingbird
import HummingbirdWebSocket
import NIOCore
import Synchronization

/// The context of one request on either listener: Hummingbird's core, the WebSocket upgrade's
/// handler slot, and the notes the request log reads after the handler ran (who called, which
/// function, the error code), kept in a box the handler and the middleware share.
struct ServeRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let notes = RequestNotes()
    /// The connection, so that a watch whose writer is stuck (a client that never reads) can be closed:
    /// the WebSocket layer's own close would wait to write its close frame as long as the writer.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}

/// What a handler learned that the request's log line names.
final class RequestNotes: Sendable {
    struct Values: Sendable {
        var user: String?
        var function: String?
        var errorCode: String?
    }
    private let values = Mutex(Values())

    func set(_ change: (inout Values) -> Void) { values.withLock { change(&$0) } }
    var current: Values { values.withLock { $0 } }
}
