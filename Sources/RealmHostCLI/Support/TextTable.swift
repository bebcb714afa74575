import Foundation

/// An aligned text table with a header and a rule under it.
///
/// ```
/// name     weight
/// ───────  ──────
/// Bandido      23
/// ```
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []
    /// Columns whose cells align right (numbers).
    var rightAligned: Set<Int> = []
    /// Cells longer than this are cut with `…`.
    var maxCellWidth = 40

    init(headers: [String], rows: [[String]] = [], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rows = rows
        self.rightAligned = rightAligned
    }

    /// The table as lines. With `maxWidth`, wide columns are narrowed (to 12 characters at
    /// least) and, if that is not enough, the last columns are left out with a note.
    func render(style: Style = .plain, maxWidth: Int? = nil) -> String {
        var cells = rows.map { row in
            headers.indices.map { i in TextTable.clip(i < row.count ? row[i] : "", maxCellWidth) }
        }
        var heads = headers
        var widths = heads.map(\.count)
        for row in cells { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var omitted = [String]()
        if let maxWidth {
            func total() -> Int { widths.reduce(0, +) + 2 * max(0, widths.count - 1) }
            while total() > maxWidth, let i = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[i] > 12 {
                widths[i] -= 1
            }
            while total() > maxWidth, widths.count > 1 {
                widths.removeLast()
                omitted.insert(heads.removeLast(), at: 0)
            }
            cells = cells.map { row in
                row.prefix(widths.count).enumerated().map { TextTable.clip($0.element, widths[$0.offset]) }
            }
            heads = heads.enumerated().map { TextTable.clip($0.element, widths[$0.offset]) }
        }
        func line(_ values: [String], _ color: (String) -> String) -> String {
            var parts = [String]()
            for (i, value) in values.enumerated() {
                let pad = String(repeating: " ", count: max(0, widths[i] - value.count))
                let last = i == values.count - 1
                if rightAligned.contains(i) {
                    parts.append(pad + color(value))
                } else {
                    parts.append(color(value) + (last ? "" : pad))
                }
            }
            return parts.joined(separator: "  ")
        }
        var out = [line(heads, style.bold)]
        out.append(style.dim(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")))
        for row in cells { out.append(line(row, { $0 })) }
        if !omitted.isEmpty {
            out.append(
                style.dim(
                    "(\(omitted.count) more column\(omitted.count == 1 ? "" : "s"): \(omitted.joined(separator: ", ")))"
                ))
        }
        return out.map { $0.replacingTrailingSpaces() }.joined(separator: "\n")
    }

    /// One line of a cell: newlines and tabs shown as escapes, cut at `width` characters.
    static func clip(_ text: String, _ width: Int) -> String {
        var t = text
        if t.contains(where: { $0 == "\n" || $0 == "\t" || $0 == "\r" }) {
            t = t.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
                .replacingOccurrences(of: "\r", with: "\\r")
        }
        guard t.count > width, width > 1 else { return t }
        return String(t.prefix(width - 1)) + "…"
    }
}

extension String {
    func replacingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}

/// Byte counts for people: `812 B`, `12.0 KiB`, `3.4 MiB`.
func formatBytes(_ n: Int) -> String {
    if n < 1024 { return "\(n) B" }
    let units = ["KiB", "MiB", "GiB", "TiB"]
    var value = Double(n) / 1024
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return String(format: "%.1f", value) + " " + units[unit]
}
