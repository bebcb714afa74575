import Foundation

/// A hybrid logical clock reading: 48 bits of milliseconds since 1970 and a 16-bit counter, in one
/// `UInt64` so that readings compare as integers.
///
/// Every replica keeps one clock (`HybridLogicalClock`), advanced on every local commit and on every
/// integrated download. A write that causally follows another (its replica had seen the other) always
/// carries a larger reading, whatever the wall clocks say: a causally later write never loses.
public struct HLCTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public init(milliseconds: UInt64, counter: UInt16) {
        rawValue = (milliseconds & Self.millisecondMask) << 16 | UInt64(counter)
    }

    /// The largest millisecond count the 48 bits hold (year 10889).
    public static let millisecondMask: UInt64 = (1 << 48) - 1
    public static let zero = HLCTimestamp(rawValue: 0)

    public var milliseconds: UInt64 { rawValue >> 16 }
    public var counter: UInt16 { UInt16(truncatingIfNeeded: rawValue) }

    public static func < (a: HLCTimestamp, b: HLCTimestamp) -> Bool { a.rawValue < b.rawValue }

    public var description: String { "\(milliseconds).\(counter)" }
}

/// The source of wall-clock milliseconds a clock reads: the system's, or a simulated one.
public protocol WallClock: Sendable {
    func nowMilliseconds() -> UInt64
}

/// The system's wall clock.
public struct SystemWallClock: WallClock {
    public init() {}
    public func nowMilliseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return UInt64(max(0, spec.tv_sec)) &* 1000 &+ UInt64(max(0, spec.tv_nsec)) / 1_000_000
    }
}

/// A replica's hybrid logical clock (Kulkarni et al., "Logical Physical Clocks", 2014).
///
/// `tick()` gives the reading of a local commit; `observe(_:)` folds in the reading of an integrated
/// remote changeset. Invariant: every reading handed out is larger than every reading handed out or
/// observed before. When the counter would overflow, the millisecond part moves one ahead instead.
public struct HybridLogicalClock: Sendable {
    public private(set) var last: HLCTimestamp

    public init(last: HLCTimestamp = .zero) { self.last = last }

    /// The reading of a new local event at wall time `now` (milliseconds).
    public mutating func tick(now: UInt64) -> HLCTimestamp {
        let wall = HLCTimestamp(milliseconds: now, counter: 0)
        last = wall > last ? wall : Self.successor(of: last)
        return last
    }

    /// Folds in a remote reading, so that the next local reading is larger than it.
    public mutating func observe(_ remote: HLCTimestamp) {
        if remote > last { last = remote }
    }

    private static func successor(of t: HLCTimestamp) -> HLCTimestamp {
        // rawValue + 1 carries a full counter into the milliseconds, which is what we want.
        t.rawValue == UInt64.max ? t : HLCTimestamp(rawValue: t.rawValue + 1)
    }
}
