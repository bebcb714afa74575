import CLuaShim
import Foundation

extension LuaState {
    /// Runs `body`, a wait outside Lua (on the network, say), without charging it to the running
    /// call's limits: no Lua instruction runs meanwhile, and the call's deadline moves on by the
    /// time the wait took, so a script waiting `timeout` ms is bounded by that timeout alone.
    /// `body` is given a check that turns true once the call is cancelled (Ctrl-C): a wait polls
    /// it and gives up.
    public func waitingOffBudget<R>(_ body: (_ isCancelled: () -> Bool) throws -> R) rethrows -> R {
        let start = ContinuousClock.now
        let raw = control.raw
        defer {
            let (seconds, attoseconds) = (ContinuousClock.now - start).components
            rh_control_extend_deadline(raw, Double(seconds) + Double(attoseconds) / 1e18)
        }
        return try body { rh_control_cancel_requested(raw) != 0 }
    }
}
