import Foundation
import RealmDatabase

/// Prints measurements as JSON lines or as an aligned table.
enum Report {
    // MARK: JSON

    /// One object per line, keys in a fixed order (JSONSerialization would shuffle them).
    static func json(_ m: Measurement) -> String {
        var fields: [(String, String)] = [("workload", JSONText.quoted(m.name))]
        if let reason = m.skipped {
            fields += [
                ("ours_s", "null"), ("baseline", JSONText.quoted(m.baseline)), ("baseline_s", "null"),
                ("ratio", "null"),
                ("peak_rss_mb", "null"), ("target", number(m.target, 2)), ("pass", "null"),
                ("skipped", JSONText.quoted(reason)),
            ]
        } else {
            fields += [
                ("ours_s", number(m.ours.bestSeconds, 6)),
                ("baseline", JSONText.quoted(m.baseline)),
                ("baseline_s", number(m.raw.bestSeconds, 6)),
            ]
            // A memory row's two figures are kilobytes, not seconds.
            if m.unit != .seconds { fields.append(("unit", JSONText.quoted(m.unit.symbol))) }
            fields += [
                ("ratio", m.ratio.map { number($0, 3) } ?? "null"),
                ("cpu_ratio", m.cpuRatio.map { number($0, 3) } ?? "null"),
                ("peak_rss_mb", m.ours.memory.peakMB.map { number($0, 1) } ?? "null"),
                ("baseline_peak_rss_mb", m.raw.memory.peakMB.map { number($0, 1) } ?? "null"),
                ("rss_increase_mb", m.ours.memory.increaseMB.map { number($0, 1) } ?? "null"),
                ("baseline_rss_increase_mb", m.raw.memory.increaseMB.map { number($0, 1) } ?? "null"),
                ("target", number(m.target, 2)),
            ]
            if let figure = m.maxFigure {
                fields.append(("target_" + m.unit.symbol.lowercased(), number(figure, m.unit == .seconds ? 3 : 1)))
            }
            fields += [
                ("pass", m.passed.map { $0 ? "true" : "false" } ?? "null"),
                ("size", String(m.size)),
                ("runs", String(m.runs)),
            ]
            if let mismatch = m.mismatch { fields.append(("mismatch", JSONText.quoted(mismatch))) }
        }
        return JSONText.object(fields)
    }

    static func number(_ v: Double, _ decimals: Int) -> String {
        v.isFinite ? String(format: "%.\(decimals)f", v) : "null"
    }

    // MARK: Table

    static func table(_ rows: [Measurement]) -> String {
        let header = [
            "workload", "size", "ours s", "baseline", "baseline s", "ratio", "target", "result", "cpu ratio",
            "peak RSS MB ours/raw", "+RSS MB ours/raw",
        ]
        var lines = [[String]]()
        var notes = [String]()
        for m in rows {
            if let reason = m.skipped {
                lines.append([m.name, "", "", m.baseline, "", "", "≤ " + number(m.target, 1), "skipped", "", "", ""])
                notes.append("\(m.name) skipped: \(reason)")
                continue
            }
            let result = m.passed.map { $0 ? "pass" : "FAIL" } ?? "?"
            lines.append([
                m.name, String(m.size),
                m.unit.format(m.ours.bestSeconds), m.baseline, m.unit.format(m.raw.bestSeconds),
                m.ratio.map { number($0, 2) } ?? "?", targetText(m),
                m.mismatch == nil ? result : result + " (!)",
                m.cpuRatio.map { number($0, 2) } ?? "?",
                pair(m.ours.memory.peakMB, m.raw.memory.peakMB),
                pair(m.ours.memory.increaseMB, m.raw.memory.increaseMB),
            ])
            if let mismatch = m.mismatch { notes.append("\(m.name): \(mismatch)") }
        }
        let all = [header] + lines
        // Width in Characters, so "≤" counts as one column.
        let widths = header.indices.map { i in all.map { $0[i].count }.max() ?? 0 }
        let numeric: Set<Int> = [1, 2, 4, 5, 8, 9, 10]
        func render(_ row: [String]) -> String {
            row.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return numeric.contains(i) ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }
        var out = [render(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        out += lines.map(render)
        out += notes.map { "note: " + $0 }
        return out.joined(separator: "\n")
    }

    /// `≤ 1.5`, or `≤ 15.0, ≤ 3 s` (`≤ 40.0, ≤ 100 KB`) for a target that is also absolute.
    private static func targetText(_ m: Measurement) -> String {
        let ratio = "≤ " + number(m.target, 1)
        return m.maxFigure.map { ratio + ", ≤ " + String(format: "%g", $0) + " " + m.unit.symbol } ?? ratio
    }

    private static func pair(_ a: Double?, _ b: Double?) -> String {
        "\(a.map { number($0, 1) } ?? "?") / \(b.map { number($0, 1) } ?? "?")"
    }
}
