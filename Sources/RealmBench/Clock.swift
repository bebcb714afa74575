#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Monotonic time in nanoseconds: CLOCK_MONOTONIC never jumps with wall-clock changes (NTP, DST),
/// so differences between two readings are true elapsed times.
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// CPU time (user + system) used by this process so far, in nanoseconds. The benchmark is
/// single-threaded, so a difference is the CPU the measured section burnt: unlike wall time it
/// does not grow when other processes compete for the 2 cores, though it also leaves out time
/// spent waiting for the disk.
func processCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Wall (monotonic) and CPU seconds taken by `body`.
func timeSeconds(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
    let start = monotonicNanoseconds()
    let startCPU = processCPUNanoseconds()
    try body()
    let cpu = Double(processCPUNanoseconds() - startCPU) / 1e9
    return (Double(monotonicNanoseconds() - start) / 1e9, cpu)
}
