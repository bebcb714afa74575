import Foundation
import Logging
import NIOCore
import RealmDatabase
import RealmTestSupport
import Synchronization
import WSClient

/// A WebSocket client on `/v1/watch`: sends what the test says, collects the server's messages,
/// and lets the test wait for the next ones. Everything is bounded by timeouts.
final class WatchClient: Sendable {
    private let received = Received()
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Task<WebSocketCloseFrame?, any Error>

    /// `tokenInQuery`: the token as the `access_token` query parameter (as a browser sends it),
    /// not in an `Authorization` header.
    init(port: Int, token: String, tokenInQuery: Bool = false) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        outgoing = continuation
        var logger = Logger(label: "watch-client")
        logger.logLevel = .critical
        let received = self.received
        self.task = Task { [logger] in
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/v1/watch" + (tokenInQuery ? "?access_token=\(token)" : ""),
                configuration: WebSocketClientConfiguration(
                    maxFrameSize: 1 << 22,
                    additionalHeaders: tokenInQuery ? [:] : [.authorization: "Bearer \(token)"]),
                logger: logger
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in stream { try await outbound.write(.text(text)) }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    for try await message in inbound.messages(maxSize: 1 << 22) {
                        if case .text(let text) = message, let json = try? JSONValue.parse(Data(text.utf8)) {
                            received.append(json)
                        }
                    }
                    group.cancelAll()
                }
            }
        }
    }

    func send(_ text: String) { outgoing.yield(text) }

    /// Waits until `count` messages arrived in all; returns them all.
    func messages(atLeast count: Int, within seconds: Double = 5) async throws -> [JSONValue] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let all = received.all
            if all.count >= count { return all }
            try await Task.sleep(for: .milliseconds(10))
        }
        let all = received.all
        throw TestFailure("\(all.count) watch messages after \(seconds) s, expected \(count): \(all.map { $0.text() })")
    }

    var all: [JSONValue] { received.all }

    /// Closes the socket; the close frame the server sent, if any.
    func close() async throws -> WebSocketCloseFrame? {
        outgoing.finish()
        return try await task.value
    }
}

/// The messages a watch client received (a class: a Mutex cannot be captured by the escaping handler).
final class Received: Sendable {
    private let storage = Mutex<[JSONValue]>([])
    func append(_ value: JSONValue) { storage.withLock { $0.append(value) } }
    var all: [JSONValue] { storage.withLock { $0 } }
}
