import Foundation
import RealmDatabase
import RealmSync
import RealmSyncNet

/// `sync_fanout/p99`: one write seen by 100 subscribed sessions. A writer host and 100 flexible-sync
/// replicas of `alice` (10 hosts of 10 sessions each, every host its own WebSocket to the in-process
/// server on 127.0.0.1), each replica with an observer; each round sets the probe's `seq` on the
/// writer and is timed until the last of the 100 observers has read it. After 5 untimed rounds,
/// `rounds` rounds are timed; the row reports their p99 (the target: ≤ 100 ms). Against
/// the same commit seen by 100 observers on 100 instances of one local file, each refreshed in turn.
struct SyncFanout: Workload {
    let name = "sync_fanout"
    /// The 100 ms over the baseline's ~1.4 ms here (as `sync_bootstrap`'s ratio target).
    let target = 70.0
    static let maxSeconds = 0.100
    static let sessionsPerHost = 10
    static let warmUpRounds = 5

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let sessions = context.scaled(100, minimum: 3)
        let rounds = context.scaled(100, minimum: 5)
        return [
            Comparison(
                name: "\(name)/p99", target: target, baseline: "\(sessions) instances, one local file", size: sessions,
                warmUpSize: nil, maxFigure: Self.maxSeconds,
                ours: { size in try Self.networkSide(context, sessions: size, rounds: rounds) },
                raw: { size in
                    try ProbeRounds.localSide(
                        context, instances: size, warmUp: Self.warmUpRounds, timed: rounds, percentile: 0.99)
                })
        ]
    }

    /// The writer's host, then the replicas on hosts of `sessionsPerHost` sessions; all complete.
    static func networkSide(_ context: BenchContext, sessions: Int, rounds: Int) throws -> PreparedRun {
        let net = try NetBenchRun(context, maxConnections: sessions + 16)
        do {
            let writer = try NetBench.replica(context)
            let writerHost = try net.host(carrying: [writer])
            let replicas = try (0..<sessions).map { _ in try NetBench.replica(context) }
            for first in stride(from: 0, to: sessions, by: sessionsPerHost) {
                try net.host(carrying: Array(replicas[first..<min(first + sessionsPerHost, sessions)]))
            }
            try net.waitUntilComplete([writer] + replicas)
            return try ProbeRounds.networkSide(
                net, writer: writer, writerHost: writerHost, observed: replicas, warmUp: warmUpRounds, timed: rounds,
                percentile: 0.99)
        } catch {
            net.stop()
            throw error
        }
    }
}
