import Foundation

/// The figures of one side: best time over the runs, memory, and the checksum it produced.
struct SideResult {
    var bestSeconds = Double.infinity
    var memory = MemoryUse()
    var checksum: Int64?
}

/// One row of the report.
struct Measurement {
    let name: String
    let target: Double
    let baseline: String
    let size: Int
    let runs: Int
    var ours = SideResult()
    var raw = SideResult()
    /// Set when the two sides disagreed on what they read or wrote.
    var mismatch: String?
    /// Set instead of the figures when the workload could not run.
    var skipped: String?

    var ratio: Double? {
        guard skipped == nil, raw.bestSeconds > 0, raw.bestSeconds.isFinite, ours.bestSeconds.isFinite else { return nil }
        return ours.bestSeconds / raw.bestSeconds
    }

    var passed: Bool? { ratio.map { $0 <= target } }

    static func skipped(_ name: String, target: Double, reason: String) -> Measurement {
        var m = Measurement(name: name, target: target, baseline: "raw SQLite", size: 0, runs: 0)
        m.skipped = reason
        return m
    }
}

/// Runs comparisons: a warm-up of each side, then `runs` rounds in alternating order (ours first
/// on even rounds, raw first on odd ones) so that neither side always benefits from a cache the
/// other warmed or suffers from a checkpoint the other left behind; the best time of each side counts.
struct Runner {
    let context: BenchContext

    func measure(_ c: Comparison) throws -> Measurement {
        var m = Measurement(name: c.name, target: c.target, baseline: c.baseline, size: c.size, runs: context.runs)
        if let warm = c.warmUpSize {
            context.log("\(c.name): warm-up (\(warm))")
            _ = try once(c.ours, size: warm)
            _ = try once(c.raw, size: warm)
        }
        for round in 0..<context.runs {
            let oursFirst = round % 2 == 0
            for isOurs in oursFirst ? [true, false] : [false, true] {
                let (seconds, checksum, memory) = try once(isOurs ? c.ours : c.raw, size: c.size)
                context.log(String(format: "%@: round %d %@ %.4f s", c.name, round + 1, isOurs ? "ours" : "raw ", seconds))
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

    private func update(_ side: inout SideResult, seconds: Double, checksum: Int64, memory: MemoryUse) {
        side.bestSeconds = min(side.bestSeconds, seconds)
        side.memory = side.memory.merged(with: memory)
        side.checksum = checksum
    }

    /// Prepares, times and checks one run of one side. The prepared run (and the connection it
    /// holds) is released before returning, outside the timing: closing is not what is measured.
    private func once(_ build: SideBuilder, size: Int) throws -> (Double, Int64, MemoryUse) {
        let probe = MemoryProbe()
        let prepared = try build(size)
        var result: Int64 = 0
        let seconds = try timeSeconds { result = try prepared.run() }
        let memory = probe.finish()
        let checksum = try prepared.check(result)
        return (seconds, checksum, memory)
    }
}
