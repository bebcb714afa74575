import Dispatch
import Foundation
import RealmHost
import Synchronization

/// Where the app API's work for tenants runs: one serial lane per user (a dispatch queue), so one
/// user's calls, watch deliveries and refreshes happen in order, different users' in parallel; off
/// Swift's cooperative pool, which a Lua call or a SQLite commit would otherwise block.
///
/// Bounded: a user with `userQueue` calls queued or running gets `ServeError.busy` (429) for the
/// next; at most `maxConcurrent` calls run at once over all users (the others wait in their lanes).
/// A lane is dropped when its last call ends, so memory follows the work in hand, not the users seen.
public final class TenantLanes: Sendable {
    public let host: TenantHost
    private let userQueue: Int
    private let running: DispatchSemaphore
    private let lanes = Mutex<[String: Lane]>([:])

    /// One user's serial queue and how many calls it holds.
    private final class Lane: Sendable {
        let queue: DispatchQueue
        let pending = Atomic<Int>(0)
        init(user: String) { queue = DispatchQueue(label: "realm-host.tenant.\(user)") }
    }

    /// How long a call waits for a console's open write on its user (see `run`).
    private let consoleWait: Duration

    public init(host: TenantHost, userQueue: Int, maxConcurrent: Int, consoleWait: Duration = .seconds(31)) {
        self.host = host
        self.userQueue = userQueue
        self.consoleWait = consoleWait
        running = DispatchSemaphore(value: maxConcurrent)
    }

    /// Runs `body` in the user's lane with the user's tenant (`TenantHost.withTenant`), and returns
    /// what it returns. Throws `ServeError.busy` at once when the user's lane is full.
    public func run<T: Sendable>(
        _ user: String, _ body: @escaping @Sendable (TenantSession) throws -> T
    ) async throws -> T {
        let lane = try enter(user)
        return try await withCheckedThrowingContinuation { continuation in
            lane.queue.async { [self] in
                running.wait()
                defer {
                    running.signal()
                    leave(user, lane)
                }
                let session = TenantSession(host: host, user: user, output: { _ in }, warning: { _ in })
                continuation.resume(
                    with: Result {
                        try waitForConsoleWrites(session)
                        return try body(session)
                    })
            }
        }
    }

    /// Schedules `body` in the user's lane without waiting and without a bound (watch deliveries,
    /// refreshes after another instance's commit: work the host itself owes the user's watchers).
    public func schedule(_ user: String, _ body: @escaping @Sendable (TenantSession) -> Void) {
        let lane = lanes.withLock { lanes in
            let lane = lanes[user] ?? Lane(user: user)
            lanes[user] = lane
            lane.pending.add(1, ordering: .relaxed)
            return lane
        }
        lane.queue.async { [self] in
            defer { leave(user, lane) }
            body(TenantSession(host: host, user: user, output: { _ in }, warning: { _ in }))
        }
    }

    /// A console attached to the host (`repl --connect`) may leave a write open at its prompt; an API
    /// call must not join it (its 2xx would then depend on the console's commit). The call waits,
    /// outside the user's lock, until that write ends; the console rolls it back after its
    /// `consoleWriteTimeout`, so the wait is bounded. Past `consoleWait` the call is refused, 429.
    private func waitForConsoleWrites(_ session: TenantSession) throws {
        let deadline = ContinuousClock.now + consoleWait
        while host.hasOpenWrite(session.user) {
            guard ContinuousClock.now < deadline else {
                throw ServeError.busy(
                    "a console attached to this host holds a write open on user '\(session.user)'; retry when it ends")
            }
            usleep(10_000)
        }
    }

    /// Calls queued or running for `user` (for tests and metrics).
    public func pending(_ user: String) -> Int { lanes.withLock { $0[user]?.pending.load(ordering: .relaxed) ?? 0 } }

    private func enter(_ user: String) throws -> Lane {
        try lanes.withLock { lanes in
            let lane = lanes[user] ?? Lane(user: user)
            lanes[user] = lane
            guard lane.pending.load(ordering: .relaxed) < userQueue else {
                throw ServeError.busy(
                    "user '\(user)' has \(userQueue) calls queued or running; retry when they are done")
            }
            lane.pending.add(1, ordering: .relaxed)
            return lane
        }
    }

    private func leave(_ user: String, _ lane: Lane) {
        lanes.withLock { lanes in
            let left = lane.pending.subtract(1, ordering: .relaxed).newValue
            if left == 0, lanes[user] === lane { lanes[user] = nil }
        }
    }
}
