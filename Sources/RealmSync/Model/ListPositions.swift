/// The stable identity of a list element: the clock reading of the commit that inserted it, the
/// inserting client's file id, and the element's index among that commit's inserts. Unique across
/// replicas; ordered by time first, so concurrent inserts at one place are ordered by time.
public struct ElementID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var clock: HLCTimestamp
    public var clientFileID: UInt64
    public var index: UInt32

    public init(clock: HLCTimestamp, clientFileID: UInt64, index: UInt32) {
        self.clock = clock
        self.clientFileID = clientFileID
        self.index = index
    }

    public static func < (a: ElementID, b: ElementID) -> Bool {
        (a.clock, a.clientFileID, a.index) < (b.clock, b.clientFileID, b.index)
    }

    public var description: String { "\(clock)@\(clientFileID)#\(index)" }
}

/// A fractional position in a synced list: a byte string compared lexicographically, with room
/// between any two (`between`). The order of a list is by (position, element id), so two elements
/// given the same position concurrently are ordered by the time of their insertion.
///
/// Invariant: `bytes` is never empty and never ends in 0 (so a position strictly between any two
/// distinct positions always exists).
public struct FractionalPosition: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// A position from bytes received or stored; nil when they break the invariant.
    public init?(bytes: [UInt8]) {
        guard let last = bytes.last, last != 0 else { return nil }
        self.bytes = bytes
    }

    private init(trusted bytes: [UInt8]) { self.bytes = bytes }

    public static func < (a: FractionalPosition, b: FractionalPosition) -> Bool {
        a.bytes.lexicographicallyPrecedes(b.bytes)
    }

    /// The position of the first element of an empty list.
    public static let first = FractionalPosition(trusted: [128])

    /// A position strictly between `lower` and `upper` (nil meaning the list's start or end).
    /// Precondition (checked by the callers' data, not trapped on): lower < upper when both given;
    /// when they are not ordered the result is after `lower`.
    public static func between(_ lower: FractionalPosition?, _ upper: FractionalPosition?) -> FractionalPosition {
        let a = lower?.bytes ?? []
        let b = upper?.bytes
        var result: [UInt8] = []
        var index = 0
        while true {
            let low = index < a.count ? Int(a[index]) : 0
            // Once the prefix is already above `upper`'s, the upper digit no longer bounds us.
            let high: Int
            if let b, result.elementsEqual(b.prefix(result.count)) {
                high = index < b.count ? Int(b[index]) : 0
            } else {
                high = 256
            }
            if high - low > 1 {
                result.append(UInt8((low + high) / 2))
                return FractionalPosition(trusted: result)
            }
            result.append(UInt8(low))
            index += 1
            if index > a.count + (b?.count ?? 0) + 1 {
                // Unreachable for ordered inputs; a last resort that still ends in a non-zero byte.
                result.append(128)
                return FractionalPosition(trusted: result)
            }
        }
    }

    /// The first position of a run of elements one commit inserts together: `self` (a position
    /// `between` made, so never a prefix of the bound above it) followed by `tag`, the commit's own
    /// bytes. Every later element of the run is a `member` of it, so the whole run sorts between
    /// `self` and the next position, and another device's run at the same place sorts wholly before
    /// or after it (by tag: the earlier commit first), never interleaved with it.
    func startingRun(tag: [UInt8]) -> FractionalPosition { FractionalPosition(trusted: bytes + tag + [1]) }

    /// The `index`-th element (from 1) after a run's start: the start, then `index` in four bytes
    /// big-endian and a final 1 (so the invariant holds and the members sort by index).
    func member(_ index: UInt32) -> FractionalPosition {
        FractionalPosition(
            trusted: bytes + [
                UInt8(index >> 24), UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF), 1,
            ])
    }

    public var description: String { bytes.map { String($0, radix: 16) }.joined(separator: ".") }
}
