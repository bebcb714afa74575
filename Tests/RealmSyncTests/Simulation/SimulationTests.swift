import Foundation
import RealmTestSupport
import XCTest

@testable import SyncStoreConformance

/// The deterministic simulation over many seeds (docs/SYNC.md, "The simulation").
///
/// - CI (`CI=true`): seeds 1…200, fixed, so a run is reproducible.
/// - `SYNC_SIMULATION_SEED=<n>`: that one seed (replays a failure).
/// - `SYNC_SIMULATION_SEEDS=<count>` (and optionally `SYNC_SIMULATION_FIRST=<n>`): that many seeds.
/// - Otherwise 200 seeds from a random start, printed.
final class SimulationTests: XCTestCase {
    static let ciSeeds = 200
    static let steps = 300

    func testReplicasConvergeOnTheServerAndTheServerOnTheOracle() throws {
        try run(SimulationSeeds.seeds(ciSeeds: Self.ciSeeds), servers: 1, name: "sync simulation")
    }

    /// Three servers on one store (docs/SYNC.md "Several servers on one store"): uploads through the
    /// inbox, an integrator elected anew every round, a replica served by another server after each
    /// reconnection. `SYNC_SHARED_SIMULATION_SEED(S)`/`_FIRST` as above; 50 seeds in CI.
    func testThreeServersOnOneStoreConvergeAsOne() throws {
        try run(
            SimulationSeeds.seeds(prefix: "SYNC_SHARED_SIMULATION", ciSeeds: 50), servers: 3,
            name: "shared-store simulation")
    }

    private func run(_ seeds: [UInt64], servers: Int, name: String) throws {
        print("\(name): seeds \(seeds.first ?? 0)…\(seeds.last ?? 0) (\(seeds.count)), \(Self.steps) steps each")
        let outcomes = SimulationSeeds.runEach(seeds) { seed in Result { try Self.simulate(seed, servers: servers) } }
        var totals = Simulation.Figures()
        var failed: [UInt64] = []
        for (seed, outcome) in zip(seeds, outcomes) {
            switch outcome {
            case .success(let figures): totals.add(figures)
            case .failure(let error):
                // Every failing seed is reported (a long run counts them), each replayable alone.
                XCTFail("\(error)")
                failed.append(seed)
            }
        }
        print("\(name): \(totals); \(failed.count) of \(seeds.count) seeds failed \(failed)")
        guard failed.isEmpty else { return }
        XCTAssertGreaterThan(totals.commits, seeds.count * Self.steps / 8, "the workload made too few commits")
        XCTAssertGreaterThan(totals.transport.dropped, 0, "no connection was ever dropped")
    }

    /// One seed's run in a folder of its own; its figures.
    private static func simulate(_ seed: UInt64, servers: Int) throws -> Simulation.Figures {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-sim-\(seed)-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let simulation = try Simulation(
            seed: seed, folder: folder, place: try TestStorePlace("sim", waitsForTheDisk: false), servers: servers)
        try simulation.run(steps: steps)
        return simulation.figures
    }
}
