import Dispatch
import Synchronization

/// One session's work on its endpoint (opening it, the server's messages, uploads, disconnecting),
/// run in order on a dispatch queue of its own. Applying a download writes the realm file and may
/// wait for SQLite's lock: done on the client's actor or the cooperative pool, one user's open
/// write would stall every session of the host. A step that finds the file busy is tried again
/// after `retryDelay` (the steps behind it wait; other sessions go on).
final class SessionWorker: Sendable {
    enum Outcome: Sendable {
        case done
        /// The file is busy: try this step again later.
        case busy
    }

    typealias Step = @Sendable () -> Outcome

    private struct Queue {
        var steps: [Step] = []
        /// True while a drain is scheduled or running (it empties the queue before it stops).
        var draining = false
    }

    private let queue: DispatchQueue
    private let retryDelay: DispatchTimeInterval
    private let pending = Mutex(Queue())
    /// The session's open (its number on the client) whose steps may still act; 0: none. A step of
    /// an earlier open (its connection ended, or the session failed or was removed) is skipped.
    private let live = Mutex(0)

    init(label: String, retryDelay: DispatchTimeInterval = .milliseconds(25)) {
        queue = DispatchQueue(label: label)
        self.retryDelay = retryDelay
    }

    func isLive(_ open: Int) -> Bool { live.withLock { $0 == open && open != 0 } }

    /// From now on only steps of `open` act (0: none).
    func setLive(_ open: Int) { live.withLock { $0 = open } }

    /// Ends `open` unless a newer one began (a failure found by a step).
    func endLive(_ open: Int) { live.withLock { if $0 == open { $0 = 0 } } }

    /// Runs `step` after the steps queued before it.
    func enqueue(_ step: @escaping Step) {
        let start = pending.withLock { queue in
            queue.steps.append(step)
            defer { queue.draining = true }
            return !queue.draining
        }
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        while let step = pending.withLock({ $0.steps.first }) {
            if case .busy = step() {
                queue.asyncAfter(deadline: .now() + retryDelay) { self.drain() }
                return
            }
            let more = pending.withLock { queue in
                queue.steps.removeFirst()
                if queue.steps.isEmpty { queue.draining = false }
                return !queue.steps.isEmpty
            }
            guard more else { return }
        }
    }
}
