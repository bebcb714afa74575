import Foundation

/// State behind a plain mutex (Foundation's `NSLock`, a pthread mutex), for state many threads
/// touch on every call: the tenant cache, the serve lanes, the verified-token cache.
///
/// Why not `Synchronization.Mutex`: on Linux it spins before it sleeps, then sleeps on a
/// priority-inheritance futex. With a lane thread per busy user on a machine with two cores, a
/// holder is often preempted inside its few instructions and every waiter spins through its time
/// slice: measured as 5% of all CPU in `serve_read_call` (perf, `_MutexHandle._lockSlow`), gone
/// with this lock.
///
/// `@unchecked Sendable`: `state` is read and written only inside `withLock`.
public final class PlainLock<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    public init(_ state: State) { self.state = state }

    /// Runs `body` with the state, holding the lock. Keep it short: no I/O, no Lua.
    public func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
