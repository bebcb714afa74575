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
        /// The steps not run yet start at `head` (advanced, not removed from the front, so a burst
        /// of n frames costs n, not n²; the array is emptied whenever the drain catches up).
        var steps: [Step] = []
        var head = 0
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
        while let step = pending.withLock({ $0.head < $0.steps.count ? $0.steps[$0.head] : nil }) {
            if case .busy = step() {
                queue.asyncAfter(deadline: .now() + retryDelay) { self.drain() }
                return
            }
            let more = pending.withLock { queue in
                queue.head += 1
                guard queue.head < queue.steps.count else {
                    queue.steps.removeAll(keepingCapacity: true)
                    queue.head = 0
                    queue.draining = false
                    return false
                }
                return true
            }
            guard more else { return }
        }
    }
}
