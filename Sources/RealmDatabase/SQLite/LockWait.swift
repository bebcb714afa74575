import CSQLite
import Foundation
import Synchronization

/// How a realm's connection waits for another connection's lock on its file: a write left open at
/// another prompt, another process's long write. SQLite's busy timeout would wait in silence;
/// here the wait is bounded (`limit`, seconds: a person can sit through it), said once it lasts
/// (`announce`, after `announceAfter`), and can be ended (`interrupts`: the REPL's Ctrl-C). A
/// process sets its policy once (`LockWaitPolicy.current`); every realm connection opened after
/// reads it at each wait. Realm itself waits for the write lock without bound.
public struct LockWaitPolicy: Sendable {
    /// How long one lock is waited for in all.
    public var limit: Duration
    /// How long a wait lasts before it is announced.
    public var announceAfter: Duration
    /// Told once per wait that lasts: what is waited for and for how long at most.
    public var announce: (@Sendable (String) -> Void)?
    /// A count of interrupts (the SIGINTs so far): one arriving while a wait goes on ends it (the
    /// statement fails, saying so). nil: waits end only at the limit.
    public var interrupts: (@Sendable () -> Int)?

    public init(
        limit: Duration = LockWaitPolicy.defaultLimit, announceAfter: Duration = .seconds(1),
        announce: (@Sendable (String) -> Void)? = nil, interrupts: (@Sendable () -> Int)? = nil
    ) {
        self.limit = limit
        self.announceAfter = announceAfter
        self.announce = announce
        self.interrupts = interrupts
    }

    /// The default bound of a wait: 10 seconds (docs/RELIABILITY.md "Waits").
    public static let defaultLimit: Duration = .seconds(10)

    private static let storage = Mutex(LockWaitPolicy())

    /// The process's policy.
    public static var current: LockWaitPolicy {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// One connection's waits: installed as its SQLite busy handler, it sleeps between attempts
/// (25 ms growing to 100 ms), announces a long wait once, and gives up at the limit or when told
/// to stop; the outcome names the file in the error the statement then fails with.
final class LockWaiter {
    private let displayPath: String
    private var started = ContinuousClock.now
    private var announced = false
    /// The interrupt count when the wait began.
    private var interruptsAtStart = 0
    /// Why the last wait ended without the lock; nil while waiting or after a lock was had.
    private(set) var gaveUp: String?

    init(displayPath: String) { self.displayPath = displayPath }

    /// Called by SQLite with how many times it already called for this lock: true to try again.
    func shouldRetry(_ calls: Int32) -> Bool {
        let policy = LockWaitPolicy.current
        if calls == 0 {
            started = .now
            announced = false
            gaveUp = nil
            interruptsAtStart = policy.interrupts?() ?? 0
        }
        let waited = ContinuousClock.now - started
        if let interrupts = policy.interrupts, interrupts() != interruptsAtStart {
            gaveUp = "stopped waiting (Ctrl-C) after \(Self.seconds(waited))"
            return false
        }
        if waited >= policy.limit {
            gaveUp = "waited \(Self.seconds(waited)), the limit of a lock wait"
            return false
        }
        if !announced, waited >= policy.announceAfter, let announce = policy.announce {
            announced = true
            announce(
                "Waiting for \(displayPath): another connection holds its lock (a write left open at another "
                    + "prompt or in another process); up to \(Self.seconds(policy.limit)) in all"
                    + (policy.interrupts == nil ? "." : ", Ctrl-C stops waiting."))
        }
        usleep(UInt32(min(25_000 * (Int(calls) + 1), 100_000)))
        return true
    }

    /// The message of a statement that failed for a lock this waiter gave up on.
    func busyMessage(_ sqliteMessage: String) -> String {
        guard let gaveUp else { return sqliteMessage }
        return "another connection holds its lock (a write left open at another prompt or in another process); "
            + gaveUp
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value < 10 ? String(format: "%.1f s", value) : String(format: "%.0f s", value)
    }
}

/// SQLite's busy callback: the waiter is the context.
let lockWaitCallback: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { context, calls in
    guard let context else { return 0 }
    return Unmanaged<LockWaiter>.fromOpaque(context).takeUnretainedValue().shouldRetry(calls) ? 1 : 0
}
