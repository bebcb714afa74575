import RealmSync
import Synchronization

/// The simulation's time: one shared millisecond counter the scheduler advances, so a run does not
/// depend on the machine's clock or speed.
final class SimulatedTime: Sendable {
    private let now: Mutex<UInt64>

    init(start: UInt64) { now = Mutex(start) }

    var milliseconds: UInt64 { now.withLock { $0 } }

    func advance(by milliseconds: UInt64) { now.withLock { $0 += milliseconds } }
}

/// A replica's (or the server's) wall clock: the simulated time plus this machine's skew.
struct SkewedClock: WallClock {
    let time: SimulatedTime
    let skew: Int64

    func nowMilliseconds() -> UInt64 {
        let now = time.milliseconds
        return skew >= 0 ? now &+ UInt64(skew) : now &- min(now, skew.magnitude)
    }
}
