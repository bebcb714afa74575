import CMallocInfo
import Foundation

/// Resident-memory readings from /proc/self (Linux). Every reading is nil where /proc is missing.
enum Memory {
    /// A `Vm…:  N kB` field of /proc/self/status, in bytes.
    static func statusField(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let digits = line.dropFirst(name.count + 1).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }

    /// The peak resident set size (high-water mark) since start or since the last `resetPeak`.
    static var peakBytes: Int? { statusField("VmHWM") }
    static var currentBytes: Int? { statusField("VmRSS") }

    /// The bytes malloc has handed out and not had back (nil where the C library does not say).
    /// Unlike the RSS it grows with every allocation, also into pages freed earlier in the run.
    static var heapInUseBytes: Int? {
        let bytes = realm_bench_heap_in_use()
        return bytes > 0 ? Int(exactly: bytes) : nil
    }

    /// Resets VmHWM to the current RSS (Linux ≥ 4.0: writing "5" to /proc/self/clear_refs), so
    /// that one process can report the peak of each workload separately. False when refused.
    static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }
}

/// The memory one side of a comparison used: its peak RSS, and how far that peak rose above the
/// RSS it started from (the part the workload itself is responsible for).
struct MemoryUse {
    var peakMB: Double?
    var increaseMB: Double?

    /// Keeps the larger of two readings (several runs of the same side).
    func merged(with other: MemoryUse) -> MemoryUse {
        MemoryUse(peakMB: maxOptional(peakMB, other.peakMB), increaseMB: maxOptional(increaseMB, other.increaseMB))
    }
}

func maxOptional(_ a: Double?, _ b: Double?) -> Double? {
    switch (a, b) {
    case (let a?, let b?): return max(a, b)
    default: return a ?? b
    }
}

/// Watches memory around one measured section. With a resettable high-water mark the peak is the
/// section's own; otherwise (old kernels, no /proc) it falls back to the process-wide peak and the
/// current-RSS delta, which misses memory freed before the section ended.
struct MemoryProbe {
    private let startBytes: Int?
    private let peakWasReset: Bool

    init() {
        peakWasReset = Memory.resetPeak()
        startBytes = Memory.currentBytes
    }

    func finish() -> MemoryUse {
        let mb = 1024.0 * 1024.0
        let peak = Memory.peakBytes
        let end = peakWasReset ? peak : Memory.currentBytes
        var increase: Double?
        if let startBytes, let end { increase = Double(max(0, end - startBytes)) / mb }
        return MemoryUse(peakMB: peak.map { Double($0) / mb }, increaseMB: increase)
    }

    static var method: String { Memory.resetPeak() ? "VmHWM reset per side" : "VmHWM (process) and VmRSS delta" }
}
