import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// Bounds a new connection's first exchange (slowloris-style slow headers, bytes that are not
/// HTTP). Hummingbird's idle timeout covers later requests, but on a channel that can upgrade to
/// WebSocket it is installed only once the first head has been parsed, so a peer trickling header
/// bytes, or sending a head the parser refuses (Hummingbird's upgrade channel then neither answers
/// nor closes), would hold a connection forever. This handler sits first in the pipeline and sees
/// the raw bytes: the connection is closed when no blank line (the end of a head) came within
/// `headLimit`, or when no byte of an answer was written within `answerLimit` after it (longer: a
/// first request may run a function up to its time limit). After the first answer it only passes
/// bytes on.
final class FirstHeadDeadline: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let headLimit: TimeAmount
    private let answerLimit: TimeAmount
    private var timer: Scheduled<Void>?
    /// The last bytes seen, to find "\r\n\r\n" across reads.
    private var tail: [UInt8] = []
    private var headSeen = false
    private var answered = false

    init(headLimit: TimeAmount, answerLimit: TimeAmount) {
        self.headLimit = headLimit
        self.answerLimit = answerLimit
    }

    func handlerAdded(context: ChannelHandlerContext) { arm(context, headLimit) }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !headSeen && !answered && endsHead(unwrapInboundIn(data)) {
            headSeen = true
            arm(context, answerLimit)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !answered {
            answered = true
            timer?.cancel()
            timer = nil
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ limit: TimeAmount) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: limit) { context.close(promise: nil) }
    }

    /// Whether the bytes so far hold the blank line that ends a request head.
    private func endsHead(_ buffer: ByteBuffer) -> Bool {
        let bytes = tail + buffer.readableBytesView
        let crlfcrlf: [UInt8] = [13, 10, 13, 10]
        if bytes.count >= 4 {
            for i in 0...(bytes.count - 4) where bytes[i] == 13 && Array(bytes[i..<(i + 4)]) == crlfcrlf {
                return true
            }
        }
        tail = Array(bytes.suffix(3))
        return false
    }
}

/// A server child channel with `FirstHeadDeadline` in front of another, closing the connection once
/// the other's handling of it ends: when the request head is not HTTP, Hummingbird's upgrade channel
/// logs the failed negotiation and returns, leaving the socket open and silent (found by
/// `SlowAndMalformedPeerTests`).
struct HeadDeadlineChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let headLimit: TimeAmount
    let answerLimit: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(
                FirstHeadDeadline(headLimit: headLimit, answerLimit: answerLimit), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
        try? await value.channel.close()
    }
}
