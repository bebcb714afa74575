import CLuaShim
import Foundation

/// What a wait outside Lua (on the network, say) may do while a Lua call is running: sleep without
/// the time counting against the call's limits, and see whether the call was cancelled (Ctrl-C).
public struct LuaOffBudgetWait {
    fileprivate let raw: OpaquePointer

    /// True once the call is cancelled: a wait gives up.
    public var isCancelled: Bool { rh_control_cancel_requested(raw) != 0 }

    /// Sleeps `duration`; the call's deadline moves on by the time slept. Only the sleep is credited:
    /// whatever the wait does between sleeps (Lua callbacks among it) counts as the call's time.
    public func sleep(_ duration: Duration) {
        let start = ContinuousClock.now
        Thread.sleep(forTimeInterval: Self.seconds(duration))
        rh_control_extend_deadline(raw, Self.seconds(ContinuousClock.now - start))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension LuaState {
    /// Runs `body`, a wait outside Lua, whose sleeps (`LuaOffBudgetWait.sleep`) are not charged to
    /// the running call's time limit: a script waiting `timeout` ms is bounded by that timeout alone,
    /// while any Lua the wait runs between sleeps (an `errorHandler`, an `onState`) still counts.
    public func waitingOffBudget<R>(_ body: (LuaOffBudgetWait) throws -> R) rethrows -> R {
        try body(LuaOffBudgetWait(raw: control.raw))
    }
}
