import Foundation

/// The seed of a randomized test. CI runs are reproducible and local runs explore:
///
/// - `RELIABILITY_SEED=<n>` in the environment: that seed (to replay a failure);
/// - else `CI=true`: the test's pinned seed;
/// - else a random seed.
///
/// The seed is printed with the test's label, and the tests add it to their failure messages, so a
/// failing run is replayed with `RELIABILITY_SEED=<n> swift test --filter …`.
public enum TestSeed {
    /// The seed CI uses when a test pins none of its own.
    public static let pinned: UInt64 = 0x5EED_2026

    /// Where a seed came from, for the printed line.
    public enum Source: String, Sendable {
        case explicit = "RELIABILITY_SEED"
        case ci = "pinned, CI=true"
        case random = "random"
    }

    /// The seed for `environment`; `random` is asked only when neither variable decides.
    public static func choose(
        environment: [String: String], pinned: UInt64 = pinned, random: () -> UInt64
    ) -> (seed: UInt64, source: Source) {
        if let text = environment["RELIABILITY_SEED"], let seed = UInt64(text) { return (seed, .explicit) }
        if environment["CI"]?.lowercased() == "true" { return (pinned, .ci) }
        return (random(), .random)
    }

    /// The seed for this process's environment, printed as `<label>: RELIABILITY_SEED=<n> (<source>)`.
    public static func make(_ label: String, pinned: UInt64 = pinned) -> UInt64 {
        // At most Int64.max: every consumer (realm-fuzz's --seed, Lua integers) takes it as is.
        let (seed, source) = choose(environment: ProcessInfo.processInfo.environment, pinned: pinned) {
            UInt64.random(in: 1...UInt64(Int64.max))
        }
        print("\(label): RELIABILITY_SEED=\(seed) (\(source.rawValue))")
        return seed
    }
}
