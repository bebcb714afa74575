import NIOCore
import NIOWebSocket
import Synchronization
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
///
/// The bytes queued are counted: a peer that does not read cannot make this side hold more than
/// `maxQueuedBytes`. Past it the connection is closed (1008, the reason) and what is queued is
/// dropped; the reader waits (`waitForRoom`) while more than half of it is queued, so a peer's own
/// requests cannot fill the queue faster than it reads the answers.
final class Outbox: Sendable {
    let items: AsyncStream<OutboundItem>
    private let continuation: AsyncStream<OutboundItem>.Continuation
    let maxQueuedBytes: Int
    private let state = Mutex(State())

    private struct State {
        var queuedBytes = 0
        var ended = false
        var overflowed = false
        /// Readers waiting for the queue to drain below the low-water mark.
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Tasks waiting for the queue to end.
        var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    init(maxQueuedBytes: Int) {
        self.maxQueuedBytes = max(maxQueuedBytes, 1)
        (items, continuation) = AsyncStream.makeStream(of: OutboundItem.self)
    }

    /// Under this many queued bytes the reader reads on.
    var lowWaterBytes: Int { maxQueuedBytes / 2 }

    var queuedBytes: Int { state.withLock { $0.queuedBytes } }

    /// True once the queue ended: closed, finished, or over its limit.
    var hasEnded: Bool { state.withLock { $0.ended } }

    /// Queues a frame; false when it is not sent (the queue ended, or this frame put it over its limit,
    /// which closes the connection).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        let accepted: Bool = state.withLock { state in
            guard !state.ended else { return false }
            guard state.queuedBytes + bytes.count <= maxQueuedBytes else {
                state.ended = true
                state.overflowed = true
                return false
            }
            state.queuedBytes += bytes.count
            return true
        }
        guard accepted else {
            if isOverflowed { closeOverflowed(adding: bytes.count) }
            return false
        }
        continuation.yield(.frame(bytes))
        return true
    }

    private var isOverflowed: Bool { state.withLock { $0.overflowed } }

    /// The close an overflow queues: after it the writer skips the frames still queued.
    private func closeOverflowed(adding count: Int) {
        let queued = queuedBytes
        continuation.yield(
            .close(
                code: .policyViolation,
                reason: "the peer reads too slowly: \(queued + count) bytes to send, over \(maxQueuedBytes)"))
        continuation.finish()
        wakeWaiters()
    }

    /// Queues a close after what is queued; nothing after it is written.
    func close(_ code: WebSocketErrorCode, reason: String) {
        let first = state.withLock { state in
            defer { state.ended = true }
            return !state.ended
        }
        guard first else { return }
        continuation.yield(.close(code: code, reason: reason))
        continuation.finish()
        wakeWaiters()
    }

    /// Ends the writer once what is queued is written.
    func finish() {
        state.withLock { $0.ended = true }
        continuation.finish()
        wakeWaiters()
    }

    /// Returns once the queue is under its low-water mark, or ended (the caller then stops reading).
    func waitForRoom() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                guard !state.ended, state.queuedBytes > lowWaterBytes else { return true }
                state.waiters.append(waiter)
                return false
            }
            if ready { waiter.resume() }
        }
    }

    /// Returns once the queue ended (closed, finished, over its limit, or its writer stopped).
    func waitForEnd() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state in
                if !state.ended { state.endWaiters.append(waiter) }
                return state.ended
            }
            if ended { waiter.resume() }
        }
    }

    /// Writes every item until the queue ends or a close is written. A write that fails (the socket
    /// is gone) ends the loop; the reader sees the connection end.
    func writeAll(to outbound: WebSocketOutboundWriter) async {
        await writeAll { item in
            switch item {
            case .frame(let bytes): try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
            case .close(let code, let reason): try await outbound.close(code, reason: Self.closeReason(reason))
            }
        }
    }

    /// The writer's loop over any socket: after an overflow the frames still queued are dropped, the
    /// close goes at once.
    func writeAll(_ write: (OutboundItem) async throws -> Void) async {
        defer { writerEnded() }
        for await item in items {
            switch item {
            case .frame(let bytes):
                var sent = true
                if !isOverflowed { sent = (try? await write(item)) != nil }
                written(bytes.count)
                guard sent else { return }
            case .close:
                try? await write(item)
                return
            }
        }
    }

    /// Nothing more is written: senders are refused and readers stop waiting.
    private func writerEnded() {
        state.withLock { $0.ended = true }
        wakeWaiters()
    }

    private func written(_ count: Int) {
        let drained = state.withLock { state in
            state.queuedBytes -= count
            return state.queuedBytes <= lowWaterBytes
        }
        if drained { wakeWaiters() }
    }

    /// Wakes the readers waiting for room, and once the queue ended, the tasks waiting for that.
    private func wakeWaiters() {
        let waiters = state.withLock { state in
            var woken = state.waiters
            state.waiters = []
            if state.ended {
                woken += state.endWaiters
                state.endWaiters = []
            }
            return woken
        }
        for waiter in waiters { waiter.resume() }
    }

    /// A close reason fits in a control frame (125 bytes with the code): cut on a character boundary.
    static func closeReason(_ reason: String) -> String {
        var cut = reason.prefix(120)
        while cut.utf8.count > 120 { cut = cut.dropLast() }
        return String(cut)
    }
}
