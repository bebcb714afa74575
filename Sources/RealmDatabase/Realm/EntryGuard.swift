import Foundation

#if DEBUG
    import Synchronization

    /// Debug builds: detects two threads inside one `Realm` at once.
    ///
    /// A realm's connection is opened `SQLITE_OPEN_NOMUTEX`, and nothing in the instance is locked:
    /// concurrent use corrupts memory instead of failing. Each public entry that touches the
    /// connection takes this guard; an entry while another thread holds it is refused with a
    /// `RealmError` (or a `RealmDiagnostics` report for entries that cannot throw), so the misuse
    /// fails loudly and harmlessly. The same thread may enter again (an observer called from
    /// `commitWrite` reads the realm), and an instance may move between threads between entries.
    /// Release builds have no guard and pay nothing.
    final class EntryGuard {
        /// The thread inside (an id from `pthread_self`), 0 when none.
        private let owner = Atomic<UInt>(0)
        /// How deep the owner is; read and written only by the owner.
        private var depth = 0

        func enter(_ operation: String, thread: UInt) throws {
            if owner.load(ordering: .acquiring) == thread {
                depth += 1
                return
            }
            guard owner.compareExchange(expected: 0, desired: thread, ordering: .acquiringAndReleasing).exchanged
            else {
                throw RealmError(
                    .concurrentAccess,
                    "Realm accessed from two threads at once (\(operation)): a Realm instance must be used by "
                        + "one thread at a time; open another instance for another thread")
            }
            depth = 1
        }

        func leave() {
            depth -= 1
            if depth == 0 { owner.store(0, ordering: .releasing) }
        }
    }
#endif

extension Realm {
    /// Enters a public entry point (see `EntryGuard`); pair with `leaveEntry()` in a `defer`.
    @inline(__always)
    func enterEntry(_ operation: @autoclosure () -> String) throws {
        #if DEBUG
            try entryGuard.enter(operation(), thread: ThreadID.current)
        #endif
    }

    /// `enterEntry` for entries that cannot throw: reports the refusal through `RealmDiagnostics`
    /// and returns false (the entry then does nothing).
    @inline(__always)
    func enterOrReport(_ operation: @autoclosure () -> String) -> Bool {
        #if DEBUG
            do {
                try entryGuard.enter(operation(), thread: ThreadID.current)
            } catch {
                RealmDiagnostics.report(error, while: "\(operation()) on \(configuration.displayPath)")
                return false
            }
        #endif
        return true
    }

    @inline(__always)
    func leaveEntry() {
        #if DEBUG
            entryGuard.leave()
        #endif
    }
}
