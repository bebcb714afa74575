import Foundation
import RealmTestSupport
import XCTest

@testable import RealmSync

/// Part 1's and part 2's simulations (RealmSyncTests/Simulation) on PostgreSQL: each seed runs on
/// a SQLite store and on a PostgreSQL store and must pass on both with identical figures (every
/// commit, integration, message and crash the seed decides alike).
///
/// - `SYNC_POSTGRES_SIMULATION_SEEDS=<count>` (default 6 each, a minute or so), `_FIRST`, `_SEED`:
///   as SimulationTests' variables (fixed seeds from 1 under `CI=true`).
final class PostgresSimulationTests: XCTestCase {
    static let ciSeeds = 6
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

    /// Each seed run by `simulate` on a SQLite place and on a PostgreSQL one: the figures it returns
    /// must be the same.
    private func runAlike(_ name: String, _ simulate: (UInt64, URL, TestStorePlace) throws -> String) throws {
        let seeds = SimulationSeeds.seeds(prefix: "SYNC_POSTGRES_SIMULATION", ciSeeds: Self.ciSeeds)
        print("\(name): seeds \(seeds.first ?? 0)…\(seeds.last ?? 0) (\(seeds.count))")
        for seed in seeds {
            let figures = try [TestStorePlace.Kind.sqlite, .postgres].map { kind in
                let folder = try ClientTestFolder()
                return try simulate(seed, folder.url, try TestStorePlace("psim", kind: kind))
            }
            XCTAssertEqual(
                figures[1], figures[0], "seed \(seed) on PostgreSQL (replay: SYNC_POSTGRES_SIMULATION_SEED=\(seed))")
        }
    }
}
