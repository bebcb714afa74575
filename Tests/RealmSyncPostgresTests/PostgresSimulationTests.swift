import Foundation
import RealmTestSupport
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// Part 1's and part 2's simulations (RealmSyncTests/Simulation) on PostgreSQL: each seed runs on
/// a SQLite store and on a PostgreSQL store and must pass on both with identical figures (every
/// commit, integration, message and crash the seed decides alike).
///
/// - `SYNC_POSTGRES_SIMULATION_SEEDS=<count>` (default 20 each, about two and a half minutes in all),
///   `_FIRST`, `_SEED`: as SimulationTests' variables (fixed seeds from 1 under `CI=true`). The SQLite
///   runs of seeds 1–200 are SimulationTests'; these check that PostgreSQL decides every step alike.
///   20, not 25, since 2026-12-02: CI was at its 20 minutes, and the store conformance cases run
///   every shared store case on PostgreSQL too.
final class PostgresSimulationTests: XCTestCase {
    static let ciSeeds = 20
    static let steps = 300

    func testSimulationSeedsRunAlikeOnBothStores() throws {
        try runAlike("postgres simulation") { seed, folder, place in
            let simulation = try Simulation(seed: seed, folder: folder, place: place)
            try simulation.run(steps: Self.steps)
            return "\(simulation.figures)"
        }
    }

    func testViewSimulationSeedsRunAlikeOnBothStores() throws {
        try runAlike("postgres view simulation") { seed, folder, place in
            let simulation = try ViewSimulation(seed: seed, folder: folder, place: place)
            try simulation.run(steps: Self.steps)
            return "\(simulation.figures)"
        }
    }

    /// Each seed run by `simulate` on a SQLite place and on a PostgreSQL one, the two at once, and
    /// two seeds per core at once (the PostgreSQL runs wait on round trips, which the others fill):
    /// the figures it returns must be the same.
    private func runAlike(
        _ name: String, _ simulate: @escaping @Sendable (UInt64, URL, TestStorePlace) throws -> String
    ) throws {
        let seeds = SimulationSeeds.seeds(prefix: "SYNC_POSTGRES_SIMULATION", ciSeeds: Self.ciSeeds)
        print("\(name): seeds \(seeds.first ?? 0)…\(seeds.last ?? 0) (\(seeds.count))")
        let outcomes = SimulationSeeds.runEach(seeds, workers: 2 * ProcessInfo.processInfo.activeProcessorCount) {
            seed in
            Result {
                let runs = SeedRuns(
                    places: [try TestStorePlace("psim", kind: .sqlite), try TestStorePlace("psim", kind: .postgres)],
                    folders: [try ClientTestFolder(), try ClientTestFolder()])
                DispatchQueue.concurrentPerform(iterations: 2) { index in
                    runs.record(index) { try simulate(seed, runs.folders[index].url, runs.places[index]) }
                }
                return try runs.figures()
            }
        }
        for (seed, outcome) in zip(seeds, outcomes) {
            let figures = try outcome.get()
            XCTAssertEqual(
                figures[1], figures[0], "seed \(seed) on PostgreSQL (replay: SYNC_POSTGRES_SIMULATION_SEED=\(seed))")
        }
    }
}

/// The two runs of one seed, written from their two threads.
private final class SeedRuns: @unchecked Sendable {
    let places: [TestStorePlace]
    let folders: [ClientTestFolder]
    private let lock = NSLock()
    private var results: [Int: Result<String, any Error>] = [:]

    init(places: [TestStorePlace], folders: [ClientTestFolder]) {
        self.places = places
        self.folders = folders
    }

    func record(_ index: Int, _ run: () throws -> String) {
        let result = Result { try run() }
        lock.withLock { results[index] = result }
    }

    /// The figures of both runs, in place order; the first failure is thrown.
    func figures() throws -> [String] {
        try lock.withLock { try places.indices.map { try results[$0]?.get() ?? "" } }
    }
}
