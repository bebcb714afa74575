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
                let outcome = try once(isOurs ? c.ours : c.raw, size: c.size)
                context.log(
                    String(
                        format: "%@: round %d %@ %@ (cpu %.4f s)", c.name, round + 1, isOurs ? "ours" : "raw ",
                        c.unit == .seconds ? String(format: "%.4f s", outcome.figure) : c.unit.format(outcome.figure),
                        outcome.cpu))
                if isOurs {
                    update(&m.ours, outcome)
                } else {
                    update(&m.raw, outcome)
                }
            }
        }
        if let a = m.ours.checksum, let b = m.raw.checksum, a != b {
            m.mismatch = "checksums differ: ours \(a), raw \(b)"
        }
        return m
    }

    static let maxRounds = 50

    private func update(_ side: inout SideResult, _ outcome: RunOutcome) {
        side.totalSeconds += outcome.spent
        if outcome.figure < side.bestSeconds {
            side.bestSeconds = outcome.figure
            side.cpuSeconds = outcome.cpu
        }
        side.memory = side.memory.merged(with: outcome.memory)
        side.checksum = outcome.checksum
    }

    /// Prepares, times and checks one run of one side. The prepared run (and the connection it
    /// holds) is released before returning, outside the timing: closing is not what is measured.
    private func once(_ build: SideBuilder, size: Int) throws -> RunOutcome {
        let probe = MemoryProbe()
        let prepared = try build(size)
        defer { prepared.release() }
        var result: Int64 = 0
        let seconds = try timeSeconds { result = try prepared.run() }
        let memory = probe.finish()
        var outcome = RunOutcome(
            figure: seconds.wall, cpu: seconds.cpu, spent: seconds.wall, checksum: 0, memory: memory)
        if let figure = try prepared.figure?() {
            outcome.figure = figure.value
            outcome.cpu = seconds.cpu / Double(max(1, figure.events))
        }
        outcome.checksum = try prepared.check(result)
        return outcome
    }
}

/// One run of one side: its figure (the wall time, or what the run measured itself), the CPU
/// seconds (per event for a run that measured itself), the wall seconds it took in all (what
/// `--min-time` counts) and what it produced.
struct RunOutcome {
    var figure: Double
    var cpu: Double
    let spent: Double
    var checksum: Int64
    let memory: MemoryUse
}
