import Foundation
import Logging
import RealmDatabase
import RealmServe
import WSClient

/// `serve_idle_watch`: the heap one idle watch costs `realm-host serve` (docs/SERVE.md: ≤ 50 KB).
/// A served host with 50 users whose tenants are open; after 20 watches as a warm-up, the heap in
/// use is read, `size` more WebSockets are opened, each with one watch (`Item` where `id == 1`,
/// users in turn) whose initial results arrived, and the heap is read again: the growth over `size`.
/// The clients' ends are in this process, so the figure is an upper bound of the host's share.
/// Against the same number of WebSockets on the same route that watch nothing: what a watch adds to
/// an idle connection.
struct ServeIdleWatch: Workload {
    let name = "serve_idle_watch"
    /// A watch (its observer, queue and objects) over a bare socket: loose, the absolute bound is
    /// the target that counts.
    let target = 4.0
    static let maxKilobytes = 50.0
    static let users = 50
    static let warmUp = 20

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let watches = context.scaled(500, minimum: 10)
        return [
            Comparison(
                name: name, target: target, baseline: "the same WebSockets, no watch", size: watches,
                warmUpSize: nil, maxFigure: Self.maxKilobytes, unit: .kilobytes,
                ours: { size in try Self.side(context, sockets: size, watching: true) },
                raw: { size in try Self.side(context, sockets: size, watching: false) })
        ]
    }

    static func side(_ context: BenchContext, sockets: Int, watching: Bool) throws -> PreparedRun {
        let (server, port, tokens) = try ServeCalls.startServe(context, users: users)
        let opened = DispatchSemaphore(value: 0)
        var tasks: [Task<Void, any Error>] = []
        let release = {
            tasks.forEach { $0.cancel() }
            _ = try? awaitBlocking("stopping serve") { await server.stop() }
        }
        func open(_ range: Range<Int>) throws {
            for i in range {
                tasks.append(socket(port: port, token: tokens[i % users], watching: watching, opened: opened))
            }
            for _ in range where opened.wait(timeout: .now() + 30) != .success {
                throw WorkloadSkipped(reason: "a WebSocket on /v1/watch did not answer within 30 s")
            }
        }
        do {
            try open(0..<warmUp)
            var figure: RunFigure?
            return PreparedRun(
                run: {
                    let start = try SyncIdleSession.MemoryReading()
                    try open(warmUp..<(warmUp + sockets))
                    figure = try SyncIdleSession.MemoryReading().kilobytesEach(
                        since: start, sessions: sockets, context, side: watching ? "ours" : "bare sockets",
                        row: "serve_idle_watch", each: "watch")
                    return Int64(sockets)
                },
                figure: { try figure.unwrapped("no memory was measured") }, release: release)
        } catch {
            release()
            throw error
        }
    }

    /// One client: with `watching`, a watch whose initial results signal `opened`; without, the
    /// upgrade alone does.
    static func socket(port: Int, token: String, watching: Bool, opened: DispatchSemaphore) -> Task<Void, any Error> {
        var logger = Logger(label: "serve-idle-watch-bench")
        logger.logLevel = .critical
        return Task { [logger] in
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/v1/watch",
                configuration: WebSocketClientConfiguration(
                    maxFrameSize: 1 << 20, additionalHeaders: [.authorization: "Bearer \(token)"]),
                logger: logger
            ) { inbound, outbound, _ in
                guard watching else {
                    opened.signal()
                    for try await _ in inbound.messages(maxSize: 1 << 20) {}
                    return
                }
                try await outbound.write(.text(#"{"watch": 1, "class": "Item", "where": "id == 1"}"#))
                var answered = false
                for try await message in inbound.messages(maxSize: 1 << 20) where !answered {
                    if case .text(let text) = message, (try? JSONValue.parse(Data(text.utf8)))?[field: "objects"] != nil
                    {
                        answered = true
                        opened.signal()
                    }
                }
            }
        }
    }
}
