import Foundation

/// Which seeds a simulation test runs (SimulationTests, ViewSimulationTests, and their runs on
/// PostgreSQL in RealmSyncPostgresTests), and how.
enum SimulationSeeds {
    /// The seeds to run, from the environment variables named `<prefix>_SEED`, `_SEEDS`, `_FIRST`.
    static func seeds(prefix: String = "SYNC_SIMULATION", ciSeeds: Int) -> [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["\(prefix)_SEED"], let seed = UInt64(text) { return [seed] }
        let count = environment["\(prefix)_SEEDS"].flatMap { Int($0) } ?? ciSeeds
        let first: UInt64
        if let text = environment["\(prefix)_FIRST"], let value = UInt64(text) {
            first = value
        } else if environment["CI"]?.lowercased() == "true" {
            first = 1
        } else {
            first = UInt64.random(in: 1...1_000_000_000)
        }
        return (0..<UInt64(max(count, 1))).map { first + $0 }
    }

    /// `body` for each seed, on `workers` threads (as many as the machine has cores by default:
    /// more where a run mostly waits on round trips to PostgreSQL); the results in seed order. A
    /// seed's run shares nothing with another's (its own folder, store, clocks and random
    /// generator), so running seeds side by side changes the time a test takes and nothing else.
    static func runEach<Outcome>(
        _ seeds: [UInt64], workers: Int = ProcessInfo.processInfo.activeProcessorCount,
        _ body: @escaping @Sendable (UInt64) -> Outcome
    ) -> [Outcome] {
        let outcomes = SeedOutcomes<Outcome>(count: seeds.count)
        let workers = min(max(1, workers), seeds.count)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let index = outcomes.nextIndex() { outcomes.record(body(seeds[index]), at: index) }
        }
        return outcomes.inOrder
    }
}

/// The outcomes of a run of seeds, filled from several threads under a lock.
private final class SeedOutcomes<Outcome>: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var outcomes: [Outcome?]

    init(count: Int) { outcomes = Array(repeating: nil, count: count) }

    /// The index of the next seed to run; nil once every seed was taken.
    func nextIndex() -> Int? {
        lock.withLock {
            guard next < outcomes.count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func record(_ outcome: Outcome, at index: Int) { lock.withLock { outcomes[index] = outcome } }

    var inOrder: [Outcome] { lock.withLock { outcomes.compactMap { $0 } } }
}
