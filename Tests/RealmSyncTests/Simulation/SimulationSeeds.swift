import Foundation

/// Which seeds a simulation test runs (SimulationTests, ViewSimulationTests, and their runs on
/// PostgreSQL in RealmSyncPostgresTests).
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
}
