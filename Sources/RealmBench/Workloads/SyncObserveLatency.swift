import Foundation
import RealmDatabase
import RealmSync
import RealmSyncNet

/// `sync_observe_latency/p50` and `/p99`: a write committed on host A, timed until the observer on
/// host B's replica of the same user fires, i.e. the download was applied there. A sync server on
/// 127.0.0.1 in this process; hosts A and B each carry one flexible-sync replica of `alice` over their
/// own WebSocket. Every round sets the probe's `seq` on A and flushes A's session (what a tenant's
/// session does after a commit); the observer on B reports when it reads that `seq`. After 20
/// untimed rounds, `size` rounds are timed one by one and the row reports their percentile.
/// Against the same commit seen by an observer on a second instance of one local file (refreshed
/// right after the commit): the ratio says what the network adds. The targets are absolute:
/// p50 ≤ 10 ms, p99 ≤ 50 ms.
struct SyncObserveLatency: Workload {
    let name = "sync_observe_latency"
    /// The ratio targets are the absolute ones over the baseline's ~0.3 ms here (as
    /// `sync_bootstrap`'s): p50 10 ms / 0.3 ms, p99 50 ms / 0.3 ms.
    let target = 30.0
    static let warmUpRounds = 20
    static let percentiles: [(row: String, fraction: Double, target: Double, maxSeconds: Double)] = [
        ("p50", 0.5, 30, 0.010), ("p99", 0.99, 150, 0.050),
    ]

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let rounds = context.scaled(500, minimum: 10)
        return Self.percentiles.map { percentile in
            Comparison(
                name: "\(name)/\(percentile.row)", target: percentile.target,
                baseline: "second instance, one local file",
                size: rounds, warmUpSize: nil, maxFigure: percentile.maxSeconds,
                ours: { size in try Self.networkSide(context, rounds: size, percentile: percentile.fraction) },
                raw: { size in
                    try ProbeRounds.localSide(
                        context, instances: 1, warmUp: Self.warmUpRounds, timed: size, percentile: percentile.fraction)
                })
        }
    }

    /// Hosts A and B, one replica each, both subscriptions complete; B's replica observed.
    static func networkSide(_ context: BenchContext, rounds: Int, percentile: Double) throws -> PreparedRun {
        let net = try NetBenchRun(context)
        do {
            let (a, b) = (try NetBench.replica(context), try NetBench.replica(context))
            let hostA = try net.host(carrying: [a])
            try net.host(carrying: [b])
            try net.waitUntilComplete([a, b])
            return try ProbeRounds.networkSide(
                net, writer: a, writerHost: hostA, observed: [b], warmUp: warmUpRounds, timed: rounds,
                percentile: percentile)
        } catch {
            net.stop()
            throw error
        }
    }
}
