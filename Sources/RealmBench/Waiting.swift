import Foundation
import Synchronization

// The runner is synchronous; the network workloads drive actors (the sync server, the hosts). These
// bridges block the benchmark's own thread, never one of the concurrency pool's, and every wait is
// bounded: a workload that waits too long fails with what it was waiting for.

/// Runs `body` as a task and waits for it at most `timeout`; what it returned or threw.
func awaitBlocking<T: Sendable>(
    _ what: String, timeout: Duration = .seconds(30), _ body: @escaping @Sendable () async throws -> T
) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let task = Task {
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
    guard done.wait(timeout: .now() + timeout.timeInterval) == .success, let result = outcome.withLock({ $0 }) else {
        task.cancel()
        throw WorkloadSkipped(reason: "\(what) did not finish within \(timeout)")
    }
    return try result.get()
}

/// Checks `condition` every millisecond until it holds; throws naming `what` after `timeout`.
func waitUntil(_ what: String, timeout: Duration = .seconds(30), _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else {
            throw WorkloadSkipped(reason: "\(what) did not happen within \(timeout)")
        }
        Thread.sleep(forTimeInterval: 0.001)
    }
}

extension Duration {
    /// Seconds as a `TimeInterval`, for the dispatch and thread APIs.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// Where observers meet: each round awaits a value (a sequence number, an object count); every
/// observer reports what it sees after each commit, and the round is reached when all of them have
/// seen the value or a later one. The time it was reached is what the latency workloads measure.
final class ObservationBarrier: Sendable {
    private struct Round {
        var awaited = Int64.max
        var seen: [Bool]
        var remaining: Int
        var reachedAt: UInt64?
    }

    let observers: Int
    private let round: Mutex<Round>
    private let reached = DispatchSemaphore(value: 0)

    init(observers: Int) {
        self.observers = observers
        round = Mutex(Round(seen: Array(repeating: false, count: observers), remaining: observers))
    }

    /// Starts a round awaiting `value`.
    func expect(_ value: Int64) {
        round.withLock { round in
            round = Round(awaited: value, seen: Array(repeating: false, count: observers), remaining: observers)
        }
    }

    /// Observer `index` sees `value` (called from its commit's notification).
    func observed(_ value: Int64, by index: Int) {
        let isLast = round.withLock { round -> Bool in
            guard value >= round.awaited, round.seen.indices.contains(index), !round.seen[index] else { return false }
            round.seen[index] = true
            round.remaining -= 1
            guard round.remaining == 0 else { return false }
            round.reachedAt = monotonicNanoseconds()
            return true
        }
        if isLast { reached.signal() }
    }

    /// Waits for the round; the monotonic time (ns) its last observer saw the value.
    func wait(_ what: String, timeout: Duration = .seconds(10)) throws -> UInt64 {
        if reached.wait(timeout: .now() + timeout.timeInterval) == .success,
            let at = round.withLock({ $0.reachedAt })
        {
            return at
        }
        let remaining = round.withLock { $0.remaining }
        throw WorkloadSkipped(
            reason: "\(what): \(remaining) of \(observers) observers had not seen it after \(timeout)")
    }
}

/// Latency samples in nanoseconds and their percentiles.
struct LatencySamples {
    private(set) var nanoseconds: [UInt64] = []

    mutating func add(from start: UInt64, to end: UInt64) { nanoseconds.append(end >= start ? end - start : 0) }

    /// Another set's samples (one thread's, merged at the end of a run).
    mutating func add(_ other: LatencySamples) { nanoseconds += other.nanoseconds }

    /// p50, p99 and the slowest round in milliseconds, for the log: the row keeps one percentile.
    var summary: String {
        let ms = { (fraction: Double) in percentile(fraction).value * 1000 }
        return String(
            format: "p50 %.2f ms, p99 %.2f ms, max %.2f ms over %d samples", ms(0.5), ms(0.99), ms(1), nanoseconds.count
        )
    }

    /// The nearest-rank percentile (`fraction` 0.5 for p50) in seconds, with the sample count.
    func percentile(_ fraction: Double) -> RunFigure {
        let sorted = nanoseconds.sorted()
        guard !sorted.isEmpty else { return RunFigure(value: .infinity, events: 0) }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        let index = min(max(rank - 1, 0), sorted.count - 1)
        return RunFigure(value: Double(sorted[index]) / 1e9, events: sorted.count)
    }
}
