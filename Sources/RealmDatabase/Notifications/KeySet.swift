/// A set of object keys, kept mostly as sorted, disjoint, non-adjacent runs (`3...7, 9...9`).
///
/// A change set records every key a transaction inserts or deletes. Keys are given out in
/// increasing order and never reused, so the keys a transaction inserts form a few long runs:
/// recording one more is a comparison with the last run, not a hash insertion, and a million
/// inserted objects take a few bytes. Keys that come out of order (deletions in a query's sort
/// order, say) go to a hash set beside the runs, so no order of operations is quadratic.
public struct KeySet: Sendable, Hashable, Sequence, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// Invariant: sorted by lower bound; between two runs there is at least one missing key.
    private var runs: [ClosedRange<Int64>] = []
    private var keysInRuns = 0
    /// Keys that were not past the last run when inserted. Invariant: none of them is in `runs`.
    private var scattered = Set<Int64>()

    public init() {}

    public init<S: Sequence>(_ keys: S) where S.Element == Int64 {
        for key in keys { insert(key) }
    }

    public init(arrayLiteral keys: Int64...) { self.init(keys) }

    public var count: Int { keysInRuns + scattered.count }
    public var isEmpty: Bool { count == 0 }

    /// The index of the first run whose upper bound is at least `key`.
    private func firstRun(notBelow key: Int64) -> Int {
        var low = 0
        var high = runs.count
        while low < high {
            let mid = (low + high) / 2
            if runs[mid].upperBound < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private func runsContain(_ key: Int64) -> Bool {
        let i = firstRun(notBelow: key)
        return i < runs.count && runs[i].contains(key)
    }

    public func contains(_ key: Int64) -> Bool {
        runsContain(key) || (!scattered.isEmpty && scattered.contains(key))
    }

    /// Adds `key`; false when it was already there.
    @discardableResult
    public mutating func insert(_ key: Int64) -> Bool {
        if !scattered.isEmpty, scattered.contains(key) { return false }
        // The common case: a key past every other (a transaction's next insertion).
        if runs.isEmpty || key > runs[runs.count - 1].upperBound {
            if let last = runs.last, key == last.upperBound + 1 {
                runs[runs.count - 1] = last.lowerBound...key
            } else {
                runs.append(key...key)
            }
            keysInRuns += 1
            return true
        }
        if runsContain(key) { return false }
        scattered.insert(key)
        return true
    }

    /// Removes `key`; false when it was not there.
    @discardableResult
    public mutating func remove(_ key: Int64) -> Bool {
        if !scattered.isEmpty, scattered.remove(key) != nil { return true }
        let i = firstRun(notBelow: key)
        guard i < runs.count, runs[i].contains(key) else { return false }
        let run = runs[i]
        switch (run.lowerBound == key, run.upperBound == key) {
        case (true, true): runs.remove(at: i)
        case (true, false): runs[i] = (key + 1)...run.upperBound
        case (false, true): runs[i] = run.lowerBound...(key - 1)
        case (false, false):
            // Splitting a run in the middle shifts the runs after it: rare (a transaction deleting
            // an object it inserted), and cheap while the runs are few.
            runs[i] = run.lowerBound...(key - 1)
            runs.insert((key + 1)...run.upperBound, at: i + 1)
        }
        keysInRuns -= 1
        return true
    }

    public mutating func formUnion(_ other: KeySet) {
        for key in other { insert(key) }
    }

    /// The keys as sorted, disjoint ranges: the runs alone unless some keys came out of order.
    public var ranges: [ClosedRange<Int64>] {
        guard !scattered.isEmpty else { return runs }
        var result: [ClosedRange<Int64>] = []
        for key in sortedKeys() {
            if let last = result.last, key == last.upperBound + 1 {
                result[result.count - 1] = last.lowerBound...key
            } else {
                result.append(key...key)
            }
        }
        return result
    }

    /// The keys in increasing order.
    public func makeIterator() -> Array<Int64>.Iterator {
        sortedKeys().makeIterator()
    }

    private func sortedKeys() -> [Int64] {
        var keys = [Int64]()
        keys.reserveCapacity(count)
        for run in runs { keys.append(contentsOf: run) }
        if !scattered.isEmpty {
            keys.append(contentsOf: scattered)
            keys.sort()
        }
        return keys
    }

    // Equal sets may be held differently (runs or scattered keys): compare the keys themselves.
    public static func == (a: KeySet, b: KeySet) -> Bool {
        a.count == b.count
            && (a.scattered.isEmpty && b.scattered.isEmpty ? a.runs == b.runs : a.sortedKeys() == b.sortedKeys())
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for key in self { hasher.combine(key) }
    }

    public var description: String {
        var parts = [String]()
        var keys = sortedKeys()[...]
        while let first = keys.first {
            var last = first
            keys = keys.dropFirst()
            while keys.first == last + 1 {
                last += 1
                keys = keys.dropFirst()
            }
            parts.append(first == last ? "\(first)" : "\(first)...\(last)")
        }
        return "[" + parts.joined(separator: ", ") + "]"
    }
}
