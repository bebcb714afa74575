import Foundation
import LuaSandbox

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Ctrl-C. The signal handler only does async-signal-safe things: it counts the signal and writes
// a byte to a pipe. A watcher thread reads the pipe and cancels the script that is running, if
// any (LuaSandbox then raises "interrupted" and the runtime rolls the script's writes back).
// A Ctrl-C while the line editor waits interrupts its read: it returns with nothing, and the REPL
// clears the line (see `EditLineSource`).

/// How many SIGINTs have arrived (read by the line editor to tell Ctrl-C from Ctrl-D).
nonisolated(unsafe) let sigintCounter: UnsafeMutablePointer<Int32> = {
    let p = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    p.initialize(to: 0)
    return p
}()

/// The self-pipe: the handler writes, the watcher reads.
nonisolated(unsafe) let sigintPipe: UnsafeMutablePointer<Int32> = makeSelfPipe()

private let sigintHandler: @convention(c) (Int32) -> Void = { _ in
    let saved = errno
    sigintCounter.pointee &+= 1
    var byte: UInt8 = 3
    _ = write(sigintPipe[1], &byte, 1)
    errno = saved
}

/// Cancels the running script on Ctrl-C.
final class Interrupts: @unchecked Sendable {
    static let shared = Interrupts()

    private let lock = NSLock()
    private var running: LuaCancelHandle?
    /// Counts runs, so that a late re-cancel does not hit the next one.
    private var generation = 0
    private var installed = false
    /// The SIGINT count when the current statement was accepted (see `accept()`).
    private var baseline: Int32 = 0

    /// Installs the SIGINT handler (without SA_RESTART, so that a blocked read returns) and
    /// starts the watcher thread. Idempotent.
    func install() {
        lock.lock()
        defer { lock.unlock() }
        guard !installed else { return }
        installed = true
        _ = sigintCounter.pointee
        let readEnd = sigintPipe[0]
        let thread = Thread { [unowned self] in
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                self.cancelRunning()
            }
        }
        thread.name = "realm-host SIGINT watcher"
        thread.start()
        var action = sigaction()
        #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = sigintHandler
        #else
            action.__sigaction_u.__sa_handler = sigintHandler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
    }

    /// Cancels the running script, and again every 50 ms while that same run goes on: a cancel
    /// that lands just before the script's call starts is cleared by the call, so one is not enough.
    private func cancelRunning() {
        lock.lock()
        guard let handle = running else {
            lock.unlock()
            return
        }
        let run = generation
        lock.unlock()
        handle.cancel()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { [weak self] in
            guard let self else { return }
            self.lock.lock()
            let same = self.running != nil && self.generation == run
            self.lock.unlock()
            if same { self.cancelRunning() }
        }
    }

    /// The number of SIGINTs so far.
    var count: Int32 { sigintCounter.pointee }

    /// Marks the moment a statement was accepted: a Ctrl-C after it stops that statement, even
    /// one pressed before it started running.
    func accept() {
        lock.lock()
        baseline = count
        lock.unlock()
    }

    /// Runs `body` with Ctrl-C cancelling the script of `handle`.
    func whileRunning<T>(_ handle: LuaCancelHandle, _ body: () throws -> T) throws -> T {
        lock.lock()
        running = handle
        generation += 1
        let pressed = count != baseline
        lock.unlock()
        defer {
            lock.lock()
            running = nil
            lock.unlock()
        }
        if pressed { throw LuaError(.interrupted, "interrupted before it started") }
        return try body()
    }
}
