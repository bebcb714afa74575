import Foundation
import Logging
import NIOCore
import RealmSync
import WSClient
import XCTest

@testable import RealmSyncNet

/// A peer that speaks the protocol by hand on one WebSocket connection: it sends what a test tells it
/// (well formed or not) and reads the server's answers in turn, never trusting them to come.
final class HostilePeer {
    private var inbound: WebSocketInboundMessageStream.AsyncIterator
    private let outbound: WebSocketOutboundWriter
    let codec = WireCodec()

    private init(inbound: WebSocketInboundMessageStream, outbound: WebSocketOutboundWriter) {
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// Connects to `url` and runs `body` with the peer; the connection closes when it returns. Bounded
    /// by `timeout` as a whole: a server that stops answering fails the test instead of hanging it.
    static func converse(
        url: String, timeout: Duration = .seconds(20), _ body: @escaping @Sendable (HostilePeer) async throws -> Void
    ) async throws {
        var logger = Logger(label: "hostile-peer")
        logger.logLevel = .critical
        let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { [logger] in
                _ = try await WebSocketClient.connect(
                    url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 24), logger: logger
                ) { inbound, outbound, _ in
                    try await body(HostilePeer(inbound: inbound.messages(maxSize: 1 << 24), outbound: outbound))
                }
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        XCTAssertTrue(finished, "the conversation with \(url) did not end within \(timeout)")
    }

    func send(_ message: SyncMessage, token: String? = nil) async throws {
        try await sendBytes(try codec.encode(message, token: token))
    }

    func sendBytes(_ bytes: [UInt8]) async throws {
        try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
    }

    /// The server's next message; nil once it closed the connection.
    func receive() async throws -> SyncMessage? {
        while let message = try await inbound.next() {
            if case .binary(let buffer) = message {
                return try codec.decodeMessage(Array(buffer.readableBytesView)).message
            }
        }
        return nil
    }

    /// The messages up to and including the first `wanted` accepts; what came, in order (the last not
    /// wanted when the connection closed first).
    func receive(until wanted: (SyncMessage) -> Bool) async throws -> [SyncMessage] {
        var received: [SyncMessage] = []
        while let message = try await receive() {
            received.append(message)
            if wanted(message) { break }
        }
        return received
    }

    /// Sends `mark` after what was sent so far and reads until the server answers it: everything
    /// the server had to say about the messages before it (an upload's download, an error).
    func settle(session: UInt32, request: UInt64) async throws -> [SyncMessage] {
        try await send(.mark(session: session, requestID: request))
        return try await receive { message in
            if case .mark(session, request) = message { return true }
            if case .error(session, _, _, _) = message { return true }
            return false
        }
    }
}

extension SyncMessage {
    /// The error's code and whether the client may try again, when this is an `error`.
    var errorCode: SyncErrorCode? {
        if case .error(_, let code, _, _) = self { return code }
        return nil
    }

    var errorText: String {
        if case .error(_, _, let text, _) = self { return text }
        return ""
    }

    /// The acknowledged client version, when this is a `download`.
    var acknowledged: UInt64? {
        if case .download(_, _, let acknowledged, _, _, _, _) = self { return acknowledged }
        return nil
    }

    var compensatingWrites: [CompensatingWrite] {
        if case .download(_, _, _, _, _, _, let compensating) = self { return compensating }
        return []
    }
}
