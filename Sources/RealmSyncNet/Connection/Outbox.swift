import NIOCore
import NIOWebSocket
import WSCore

/// What one connection's writer sends, in order: frames, then perhaps a close with its reason.
enum OutboundItem: Sendable {
    case frame([UInt8])
    /// Closes the connection, telling the peer why (a malformed frame, a stop).
    case close(code: WebSocketErrorCode, reason: String)
}

/// One connection's queue of outbound items and the loop that writes them. Callers that must not
/// wait on a socket (the server's and the client's actors) only enqueue; the writer awaits the
/// socket, so a slow peer delays only its own connection.
struct Outbox: Sendable {
    let items: AsyncStream<OutboundItem>
    let continuation: AsyncStream<OutboundItem>.Continuation

    init() { (items, continuation) = AsyncStream.makeStream(of: OutboundItem.self) }

    func send(_ bytes: [UInt8]) { continuation.yield(.frame(bytes)) }

    /// Queues a close after what is queued; nothing after it is written.
    func close(_ code: WebSocketErrorCode, reason: String) {
        continuation.yield(.close(code: code, reason: reason))
        continuation.finish()
    }

    /// Ends the writer once what is queued is written.
    func finish() { continuation.finish() }

    /// Writes every item until the queue ends or a close is written. A write that fails (the
    /// socket is gone) ends the loop; the reader sees the connection end.
    func writeAll(to outbound: WebSocketOutboundWriter) async {
        for await item in items {
            do {
                switch item {
                case .frame(let bytes):
                    try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
                case .close(let code, let reason):
                    try await outbound.close(code, reason: Self.closeReason(reason))
                    return
                }
            } catch {
                return
            }
        }
    }

    /// A close reason fits in a control frame (125 bytes with the code): cut on a character boundary.
    static func closeReason(_ reason: String) -> String {
        var cut = reason.prefix(120)
        while cut.utf8.count > 120 { cut = cut.dropLast() }
        return String(cut)
    }
}
