#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// SIGINT and SIGTERM for a server that stops gracefully. The handler only does async-signal-safe
// things: it writes the signal's number to a pipe. The server's main thread blocks reading that
// pipe (`TerminationSignals.wait()`), then stops the server in order. Installed before the server
// starts, so a signal that arrives while it starts waits in the pipe instead of killing the process.

/// The self-pipe: the handler writes, `wait()` reads.
nonisolated(unsafe) private let terminationPipe: UnsafeMutablePointer<Int32> = makeSelfPipe()

private let terminationHandler: @convention(c) (Int32) -> Void = { signal in
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(terminationPipe[1], &byte, 1)
    errno = saved
}

/// Waits for SIGINT or SIGTERM.
enum TerminationSignals {
    static let handled: [Int32] = [SIGINT, SIGTERM]

    /// Catches SIGINT and SIGTERM from now on, and ignores SIGPIPE (a peer or a reader of standard
    /// output that went away is not a reason to stop). Throws when the pipe could not be made.
    static func install() throws {
        guard terminationPipe[0] >= 0 else {
            throw CLIError.failed("cannot make the pipe that waits for SIGINT and SIGTERM: \(errorText())")
        }
        for number in handled {
            var action = sigaction()
            #if canImport(Glibc)
                action.__sigaction_handler.sa_handler = terminationHandler
            #else
                action.__sigaction_u.__sa_handler = terminationHandler
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        signal(SIGPIPE, SIG_IGN)
        unblock()
    }

    /// A process inherits its parent's blocked signals (a parent on a dispatch or concurrency thread
    /// blocks most), and a blocked SIGTERM would never reach the handler: unblocked on this thread,
    /// and so on the threads it starts from now on.
    private static func unblock() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in handled { sigaddset(&signals, number) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// From now on SIGINT and SIGTERM end the process at once (their default): an operator's second
    /// signal stops a server whose graceful stop is stuck.
    static func restoreDefaults() {
        for number in handled { signal(number, SIG_DFL) }
    }

    /// Blocks until one of the signals arrives; its name.
    static func wait() -> String {
        var byte: UInt8 = 0
        while true {
            let n = read(terminationPipe[0], &byte, 1)
            if n == 1 { return name(of: Int32(byte)) }
            if n < 0 && errno == EINTR { continue }
            // The pipe cannot close while the process lives; were it to fail, stopping is the safe side.
            return "a failed wait for signals (\(errorText()))"
        }
    }

    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
