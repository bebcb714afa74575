/// The known name closest to a misspelt one, for "did you mean" in error messages.
enum NearestName {
    /// The name of `known` within two edits of `name` (case ignored), the closest first; nil when none is.
    static func suggestion(for name: String, among known: [String]) -> String? {
        let target = Array(name.lowercased().unicodeScalars)
        let scored = known.map { ($0, distance(target, Array($0.lowercased().unicodeScalars))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2, best.1 < target.count else { return nil }
        return best.0
    }

    /// The Levenshtein distance: insertions, deletions and substitutions.
    private static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
