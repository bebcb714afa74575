/// A set of object keys, stored as sorted, disjoint, non-adjacent runs (`3...7, 9...9`).
///
/// A change set records every key a transaction inserts or deletes. Keys are given out in
/// increasing order and never reused, so the keys a transaction inserts form a few long runs:
/// recording one more is a comparison with the last run, not a hash insertion, and a million
/// inserted objects take a few bytes. Any order of insertion stays correct (a binary search finds
/// the place), just slower.
public struct KeySet: Sendable, Hashable, Sequence, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// Invariant: sorted by lower bound; between two runs there is at least one missing key.
    private var runs: [ClosedRange<Int64>] = []
    public private(set) var count = 0

    public init() {}

    public init<S: Sequence>(_ keys: S) where S.Element == Int64 {
        for key in keys { insert(key) }
    }

    public init(arrayLiteral keys: Int64...) { self.init(keys) }

    public var isEmpty: Bool { count == 0 }

    /// The index of the first run whose upper bound is at least `key`.
    private func firstRun(notBelow key: Int64) -> Int {
        var low = 0, high = runs.count
        while low < high {
            let mid = (low + high) / 2
            if runs[mid].upperBound < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    public func contains(_ key: Int64) -> Bool {
        let i = firstRun(notBelow: key)
        return i < runs.count && runs[i].contains(key)
    }

    /// Adds `key`; false when it was already there.
    @discardableResult
    public mutating func insert(_ key: Int64) -> Bool {
        // The common case: a key past every other (a transaction's next insertion).
        if let last = runs.last, key > last.upperBound {
            if key == last.upperBound + 1 { runs[runs.count - 1] = last.lowerBound...key } else { runs.append(key...key) }
            count += 1
            return true
        }
        let i = firstRun(notBelow: key)
        if i < runs.count, runs[i].contains(key) { return false }
        let joinsPrevious = i > 0 && runs[i - 1].upperBound == key - 1
        let joinsNext = i < runs.count && runs[i].lowerBound == key + 1
        switch (joinsPrevious, joinsNext) {
        case (true, true):
            runs[i - 1] = runs[i - 1].lowerBound...runs[i].upperBound
            runs.remove(at: i)
        case (true, false): runs[i - 1] = runs[i - 1].lowerBound...key
        case (false, true): runs[i] = key...runs[i].upperBound
        case (false, false): runs.insert(key...key, at: i)
        }
        count += 1
        return true
    }

    /// Removes `key`; false when it was not there.
    @discardableResult
    public mutating func remove(_ key: Int64) -> Bool {
        let i = firstRun(notBelow: key)
        guard i < runs.count, runs[i].contains(key) else { return false }
        let run = runs[i]
        switch (run.lowerBound == key, run.upperBound == key) {
        case (true, true): runs.remove(at: i)
        case (true, false): runs[i] = (key + 1)...run.upperBound
        case (false, true): runs[i] = run.lowerBound...(key - 1)
        case (false, false):
            runs[i] = run.lowerBound...(key - 1)
            runs.insert((key + 1)...run.upperBound, at: i + 1)
        }
        count -= 1
        return true
    }

    public mutating func formUnion(_ other: KeySet) {
        for run in other.runs { for key in run { insert(key) } }
    }

    /// The keys in increasing order.
    public func makeIterator() -> FlattenSequence<[ClosedRange<Int64>]>.Iterator {
        runs.joined().makeIterator()
    }

    public var description: String {
        "[" + runs.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)...\($0.upperBound)" }.joined(separator: ", ") + "]"
    }
}
