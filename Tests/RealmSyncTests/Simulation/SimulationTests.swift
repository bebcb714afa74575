import Foundation
import RealmTestSupport
import XCTest

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
        try run(Self.seeds(), servers: 1, name: "sync simulation")
    }

    /// Three servers on one store (docs/SYNC.md "Several servers on one store"): uploads through the
    /// inbox, an integrator elected anew every round, a replica served by another server after each
    /// reconnection. `SYNC_SHARED_SIMULATION_SEED(S)`/`_FIRST` as above; 50 seeds in CI.
    func testThreeServersOnOneStoreConvergeAsOne() throws {
        try run(Self.seeds(prefix: "SYNC_SHARED_SIMULATION", ciSeeds: 50), servers: 3, name: "shared-store simulation")
    }

    private func run(_ seeds: [UInt64], servers: Int, name: String) throws {
        print("\(name): seeds \(seeds.first ?? 0)…\(seeds.last ?? 0) (\(seeds.count)), \(Self.steps) steps each")
        var totals = Simulation.Figures()
        var failed: [UInt64] = []
        for seed in seeds {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-sim-\(seed)-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let simulation = try Simulation(seed: seed, folder: folder, servers: servers)
            do {
                try simulation.run(steps: Self.steps)
            } catch {
                // Every failing seed is reported (a long run counts them), each replayable alone.
                XCTFail("\(error)")
                failed.append(seed)
                continue
            }
            totals.add(simulation.figures)
        }
        print("\(name): \(totals); \(failed.count) of \(seeds.count) seeds failed \(failed)")
        guard failed.isEmpty else { return }
        XCTAssertGreaterThan(totals.commits, seeds.count * Self.steps / 8, "the workload made too few commits")
        XCTAssertGreaterThan(totals.transport.dropped, 0, "no connection was ever dropped")
    }

    /// The seeds to run, from the environment variables named `<prefix>_SEED`, `_SEEDS`, `_FIRST`.
    static func seeds(prefix: String = "SYNC_SIMULATION", ciSeeds: Int = ciSeeds) -> [UInt64] {
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
}

extension Simulation.Figures: CustomStringConvertible {
    mutating func add(_ other: Simulation.Figures) {
        replicas += other.replicas
        commits += other.commits
        steps += other.steps
        clientCrashes += other.clientCrashes
        serverCrashes += other.serverCrashes
        integratedChangesets += other.integratedChangesets
        transport.delivered += other.transport.delivered
        transport.duplicated += other.transport.duplicated
        transport.dropped += other.transport.dropped
        transport.lost += other.transport.lost
    }

    var description: String {
        "\(replicas) replicas, \(steps) steps, \(commits) commits, \(integratedChangesets) changesets integrated, "
            + "\(transport.delivered) messages delivered, \(transport.duplicated) uploads duplicated, "
            + "\(transport.dropped) connections dropped (\(transport.lost) messages lost), "
            + "\(clientCrashes) client crashes, \(serverCrashes) server crashes"
    }
}
