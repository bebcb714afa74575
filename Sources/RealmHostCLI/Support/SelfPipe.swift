#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A self-pipe for a signal handler: the handler writes a byte (async-signal-safe; the write end is
/// non-blocking, so a full pipe drops the byte instead of blocking the handler), a thread reads.
/// Both ends close on exec. Both are -1 when the pipe could not be made.
func makeSelfPipe() -> UnsafeMutablePointer<Int32> {
    let p = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
    p.initialize(repeating: -1, count: 2)
    if pipe(p) == 0 {
        _ = fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK)
        _ = fcntl(p[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(p[1], F_SETFD, FD_CLOEXEC)
    }
    return p
}
