import Foundation
import Logging
import NIOCore
import RealmDatabase
import RealmServe
import RealmTestSupport
import WSClient

/// `serve_watch_latency/p50` and `/p99`: a write through the app API (`PATCH /v1/objects/Item/1`
/// on a keep-alive connection), timed until the watcher's WebSocket message carrying the new value
/// arrives. Against the same commit seen by an observer on a second instance of one local file
/// (refreshed right after the commit), as `sync_observe_latency`'s baseline. The targets are
/// absolute (docs/SERVE.md): p50 ≤ 5 ms, p99 ≤ 20 ms.
struct ServeWatchLatency: Workload {
    let name = "serve_watch_latency"
    /// The ratios are the absolute targets over the baseline's ~0.3 ms.
    let target = 17.0
    static let warmUpRounds = 20
    static let percentiles: [(row: String, fraction: Double, target: Double, maxSeconds: Double)] = [
        ("p50", 0.5, 17, 0.005), ("p99", 0.99, 67, 0.020),
    ]

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let rounds = context.scaled(500, minimum: 10)
        return Self.percentiles.map { percentile in
            Comparison(
                name: "\(name)/\(percentile.row)", target: percentile.target,
                baseline: "second instance, one local file", size: rounds, warmUpSize: nil,
                maxFigure: percentile.maxSeconds,
                ours: { size in try Self.oursSide(context, rounds: size, percentile: percentile.fraction) },
                raw: { size in
                    try ProbeRounds.localSide(
                        context, instances: 1, warmUp: Self.warmUpRounds, timed: size, percentile: percentile.fraction)
                })
        }
    }

    static func oursSide(_ context: BenchContext, rounds: Int, percentile: Double) throws -> PreparedRun {
        let (server, port, tokens) = try ServeCalls.startServe(context, users: 1)
        let probe = ProbeRounds(
            warmUp: warmUpRounds, timed: rounds, barrier: ObservationBarrier(observers: 1),
            observersName: "a watch on /v1/watch")
        let watching = DispatchSemaphore(value: 0)
        var logger = Logger(label: "serve-watch-bench")
        logger.logLevel = .critical
        let token = tokens[0]
        let barrier = probe.barrier
        let socket = Task { [logger] in
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/v1/watch",
                configuration: WebSocketClientConfiguration(
                    maxFrameSize: 1 << 20, additionalHeaders: [.authorization: "Bearer \(token)"]),
                logger: logger
            ) { inbound, outbound, _ in
                try await outbound.write(.text(#"{"watch": 1, "class": "Item", "where": "id == 1"}"#))
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message, let json = try? JSONValue.parse(Data(text.utf8)) else {
                        continue
                    }
                    if json[field: "deletions"] == nil {
                        watching.signal()
                        continue
                    }
                    if case .array(let objects)? = json[field: "objects"],
                        case .string(let value)? = objects.first?[field: "value"], let seq = Int64(value)
                    {
                        barrier.observed(seq, by: 0)
                    }
                }
            }
        }
        guard watching.wait(timeout: .now() + 10) == .success else {
            socket.cancel()
            throw WorkloadSkipped(reason: "the watch did not answer within 10 s")
        }
        let connection = try KeepAliveConnection(port: port)
        var samples = LatencySamples()
        return PreparedRun(
            run: {
                try probe.run(into: &samples) { seq in
                    let answer = try connection.request(
                        "PATCH", "/v1/objects/Item/1", headers: ["Authorization": "Bearer \(token)"],
                        body: #"{"value": "\#(seq)"}"#)
                    guard answer.status == 200 else { throw WorkloadSkipped(reason: "PATCH answered \(answer)") }
                }
                return Int64(rounds)
            },
            check: { _ in Int64(samples.nanoseconds.count) },
            figure: {
                context.log("a watch on /v1/watch: \(samples.summary)")
                return samples.percentile(percentile)
            },
            release: {
                socket.cancel()
                _ = try? awaitBlocking("stopping serve") { await server.stop() }
            })
    }
}
