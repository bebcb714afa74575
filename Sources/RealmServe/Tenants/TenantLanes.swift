import Foundation
import RealmHost

/// Where the app API's work for tenants runs: one lane per user, so one user's calls, watch
/// deliveries and refreshes happen in order, different users' in parallel on a pool of worker
/// threads; off the event loops and Swift's cooperative pool, which a Lua call or a SQLite commit
/// would otherwise block.
///
/// Bounded: a user with `userQueue` calls queued or running gets `ServeError.busy` (429) for the
/// next; at most `maxConcurrent` calls run at once over all users (that many workers at most; the
/// other lanes wait their turn, first ready first served). A lane is dropped when its last call
/// ends, so memory follows the work in hand, not the users seen; a worker idle for ten seconds ends.
///
/// Why a pool of its own rather than a dispatch queue per user: with GCD every call woke a worker
/// through `_dispatch_root_queue_poke_slow` and created a queue; a third of the lane threads' time
/// in `serve_read_call` was futex waits and wakes (perf). Here a worker that finishes a call takes
/// the next ready lane without sleeping, and an enqueue wakes one worker at most.
public final class TenantLanes: Sendable {
    public let host: TenantHost
    private let userQueue: Int
    private let pool: LanePool

    /// How long a call waits for a console's open write on its user (see `run`).
    private let consoleWait: Duration

    public init(host: TenantHost, userQueue: Int, maxConcurrent: Int, consoleWait: Duration = .seconds(31)) {
        self.host = host
        self.userQueue = userQueue
        self.consoleWait = consoleWait
        pool = LanePool(maxWorkers: max(1, maxConcurrent))
    }

    /// Runs `body` in the user's lane with the user's tenant (`TenantHost.withTenant`), and returns
    /// what it returns. Throws `ServeError.busy` at once when the user's lane is full.
    public func run<T: Sendable>(
        _ user: String, _ body: @escaping @Sendable (TenantSession) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = pool.enqueue(user, limit: userQueue) { [self] in
                let session = TenantSession(host: host, user: user, output: { _ in }, warning: { _ in })
                continuation.resume(
                    with: Result {
                        try waitForConsoleWrites(session)
                        return try body(session)
                    })
            }
            if !accepted {
                continuation.resume(
                    throwing: ServeError.busy(
                        "user '\(user)' has \(userQueue) calls queued or running; retry when they are done"))
            }
        }
    }

    /// Schedules `body` in the user's lane without waiting and without a bound (watch deliveries,
    /// refreshes after another instance's commit: work the host itself owes the user's watchers).
    public func schedule(_ user: String, _ body: @escaping @Sendable (TenantSession) -> Void) {
        _ = pool.enqueue(user, limit: nil) { [self] in
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
    public func pending(_ user: String) -> Int { pool.pending(user) }
}

/// The lanes' queues and their workers. Invariants (under `condition`'s lock): a lane is in `lanes`
/// while it has jobs queued or running (`pending > 0`); it is in `ready` exactly when it has queued
/// jobs and none running (`scheduled`); a lane's jobs run one at a time, in the order enqueued.
///
/// `@unchecked Sendable`: every stored property is reached only under `condition`'s lock.
final class LanePool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    private final class Lane {
        let user: String
        var jobs: [Job] = []
        var next = 0
        /// Jobs queued or running.
        var pending = 0
        /// In `ready`, or its job running: a worker owns it.
        var scheduled = false
        init(user: String) { self.user = user }
    }

    private let condition = NSCondition()
    private let maxWorkers: Int
    private var lanes: [String: Lane] = [:]
    private var ready: [Lane] = []
    private var readyHead = 0
    private var workers = 0
    private var idle = 0
    private static let idleTimeout: TimeInterval = 10

    init(maxWorkers: Int) { self.maxWorkers = maxWorkers }

    /// Queues `job` in `user`'s lane; false (nothing queued) when the lane holds `limit` jobs.
    func enqueue(_ user: String, limit: Int?, _ job: @escaping Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let lane = lanes[user] ?? Lane(user: user)
        if let limit, lane.pending >= limit { return false }
        lanes[user] = lane
        lane.jobs.append(job)
        lane.pending += 1
        if !lane.scheduled {
            lane.scheduled = true
            ready.append(lane)
            wakeWorker()
        }
        return true
    }

    func pending(_ user: String) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return lanes[user]?.pending ?? 0
    }

    /// A worker for the lane just made ready: an idle one, or a new one while under the bound.
    private func wakeWorker() {
        let waiting = ready.count - readyHead
        if waiting > idle && workers < maxWorkers {
            workers += 1
            let thread = Thread { [self] in work() }
            thread.name = "realm-host.lane"
            thread.start()
        } else {
            condition.signal()
        }
    }

    /// A worker's loop: the next ready lane's next job, run outside the lock; ends after
    /// `idleTimeout` with nothing to do.
    private func work() {
        condition.lock()
        while true {
            guard let lane = takeReady() else {
                idle += 1
                let woken = condition.wait(until: Date(timeIntervalSinceNow: Self.idleTimeout))
                idle -= 1
                if !woken && readyHead == ready.count {
                    workers -= 1
                    condition.unlock()
                    return
                }
                continue
            }
            let job = lane.jobs[lane.next]
            lane.next += 1
            condition.unlock()
            job()
            condition.lock()
            finish(lane)
        }
    }

    private func takeReady() -> Lane? {
        guard readyHead < ready.count else { return nil }
        let lane = ready[readyHead]
        readyHead += 1
        if readyHead == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyHead = 0
        } else if readyHead >= 1024 && readyHead * 2 >= ready.count {
            ready.removeFirst(readyHead)
            readyHead = 0
        }
        return lane
    }

    /// After one of `lane`'s jobs: back in line if it has more, else unscheduled (and dropped when
    /// nothing is pending).
    private func finish(_ lane: Lane) {
        lane.pending -= 1
        if lane.next < lane.jobs.count {
            if lane.next >= 64 && lane.next * 2 >= lane.jobs.count {
                lane.jobs.removeFirst(lane.next)
                lane.next = 0
            }
            ready.append(lane)
            if idle > 0 { condition.signal() }
            return
        }
        lane.jobs.removeAll(keepingCapacity: lane.jobs.count <= 64)
        lane.next = 0
        lane.scheduled = false
        if lane.pending == 0 { lanes[lane.user] = nil }
    }
}
