import Foundation

/// The figures of one side: best time over the runs, memory, and the checksum it produced.
struct SideResult {
    var bestSeconds = Double.infinity
    /// The CPU seconds of the run with the best wall time.
    var cpuSeconds = Double.infinity
    var memory = MemoryUse()
    var checksum: Int64?
    /// Measured seconds over all runs.
    var totalSeconds = 0.0
}

/// One row of the report.
struct Measurement {
    let name: String
    let target: Double
    let baseline: String
    let size: Int
    var runs: Int
    /// The largest figure ours may have (nil: the target is the ratio alone).
    var maxFigure: Double?
    var unit = FigureUnit.seconds
    var ours = SideResult()
    var raw = SideResult()
    /// Set when the two sides disagreed on what they read or wrote.
    var mismatch: String?
    /// Set instead of the figures when the workload could not run.
    var skipped: String?

    var ratio: Double? {
        guard skipped == nil, raw.bestSeconds > 0, raw.bestSeconds.isFinite, ours.bestSeconds.isFinite else {
            return nil
        }
        return ours.bestSeconds / raw.bestSeconds
    }

    /// The same ratio in CPU time: a cross-check when the machine is busy (wall times then grow
    /// with the load), meaningless for fsync-bound workloads whose time is mostly waiting.
    var cpuRatio: Double? {
        guard skipped == nil, raw.cpuSeconds > 0, raw.cpuSeconds.isFinite, ours.cpuSeconds.isFinite else { return nil }
        return ours.cpuSeconds / raw.cpuSeconds
    }

    /// The ratio is within its target and, when the target is also absolute, ours within its seconds.
    var passed: Bool? {
        ratio.map { $0 <= target && maxFigure.map { ours.bestSeconds <= $0 } ?? true }
    }

    static func skipped(_ name: String, target: Double, reason: String) -> Measurement {
        var m = Measurement(name: name, target: target, baseline: "raw SQLite", size: 0, runs: 0)
        m.skipped = reason
        return m
    }
}

/// Runs comparisons: a warm-up of each side, then at least `runs` rounds (more for a short
/// workload, until each side has run `minTime` seconds in all) in alternating order (ours first
/// in rounds 1, 3, 5…, raw first in rounds 2, 4…) so that neither side always benefits from a cache the
/// other warmed or suffers from a checkpoint the other left behind; the best time of each side counts.
struct Runner {
    let context: BenchContext

    func measure(_ c: Comparison) throws -> Measurement {
        var m = Measurement(
            name: c.name, target: c.target, baseline: c.baseline, size: c.size, runs: context.runs,
            maxFigure: c.maxFigure, unit: c.unit)
        if let warm = c.warmUpSize {
            context.log("\(c.name): warm-up (\(warm))")
            _ = try once(c.ours, size: warm)
            _ = try once(c.raw, size: warm)
        }
        // At least `runs` rounds; more (up to 50) while a side has run less than `minTime` in all.
        var round = 0
        while round < context.runs
            || (round < Self.maxRounds && min(m.ours.totalSeconds, m.raw.totalSeconds) < context.minTime)
        {
            defer { round += 1 }
            m.runs = round + 1
            let oursFirst = round % 2 == 0
            for isOurs in oursFirst ? [true, false] : [false, true] {
                let (seconds, checksum, memory) = try once(isOurs ? c.ours : c.raw, size: c.size)
                context.log(
                    String(
                        format: "%@: round %d %@ %.4f s (cpu %.4f s)", c.name, round + 1, isOurs ? "ours" : "raw ",
                        seconds.wall, seconds.cpu))
                if isOurs {
                    update(&m.ours, seconds: seconds, checksum: checksum, memory: memory)
                } else {
                    update(&m.raw, seconds: seconds, checksum: checksum, memory: memory)
                }
            }
        }
        if let a = m.ours.checksum, let b = m.raw.checksum, a != b {
            m.mismatch = "checksums differ: ours \(a), raw \(b)"
        }
        return m
    }

    static let maxRounds = 50

    private func update(
        _ side: inout SideResult, seconds: (wall: Double, cpu: Double), checksum: Int64, memory: MemoryUse
    ) {
        side.totalSeconds += seconds.wall
        if seconds.wall < side.bestSeconds {
            side.bestSeconds = seconds.wall
            side.cpuSeconds = seconds.cpu
        }
        side.memory = side.memory.merged(with: memory)
        side.checksum = checksum
    }

    /// Prepares, times and checks one run of one side. The prepared run (and the connection it
    /// holds) is released before returning, outside the timing: closing is not what is measured.
    private func once(_ build: SideBuilder, size: Int) throws -> ((wall: Double, cpu: Double), Int64, MemoryUse) {
        let probe = MemoryProbe()
        let prepared = try build(size)
        defer { prepared.release() }
        var result: Int64 = 0
        var seconds = try timeSeconds { result = try prepared.run() }
        let memory = probe.finish()
        if let figure = try prepared.figure?() {
            seconds = (figure.value, seconds.cpu / Double(max(1, figure.events)))
        }
        let checksum = try prepared.check(result)
        return (seconds, checksum, memory)
    }
}
