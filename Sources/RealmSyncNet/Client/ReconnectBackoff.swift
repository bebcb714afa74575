/// How long a client waits before connecting again: realm-core's defaults, 1 s doubling to 5 min,
/// each delay scaled by a random factor in [0.5, 1) so hosts cut off together do not return together.
public struct ReconnectBackoff: Sendable {
    public var initial: Duration
    public var maximum: Duration
    /// A number in [0, 1) per delay (injectable so tests can fix it).
    public var random: @Sendable () -> Double

    public init(
        initial: Duration = .seconds(1), maximum: Duration = .seconds(300),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.initial = initial
        self.maximum = maximum
        self.random = random
    }

    /// The delay after `failures` attempts in a row that did not connect (0: the first retry).
    public func delay(afterFailures failures: Int) -> Duration {
        var base = initial
        for _ in 0..<min(max(failures, 0), 32) where base < maximum { base = base * 2 }
        let capped = min(base, maximum)
        let factor = 0.5 + 0.5 * min(max(random(), 0), 1)
        return capped * factor
    }
}
