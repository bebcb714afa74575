import Hummingbird
import HummingbirdWebSocket
import Synchronization

/// The context of one request on either listener: Hummingbird's core, the WebSocket upgrade's
/// handler slot, and the notes the request log reads after the handler ran (who called, which
/// function, the error code), kept in a box the handler and the middleware share.
struct ServeRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let notes = RequestNotes()

    init(source: Source) {
        coreContext = .init(source: source)
        webSocket = .init()
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
