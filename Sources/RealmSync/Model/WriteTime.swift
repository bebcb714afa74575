/// The time of a write, `W = (clock, clientFileID)` of its changeset (docs/SYNC.md, "The order of
/// writes"): the later clock wins, ties go to the larger client file id.
public struct WriteTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var clock: HLCTimestamp
    public var clientFileID: UInt64

    public init(clock: HLCTimestamp, clientFileID: UInt64) {
        self.clock = clock
        self.clientFileID = clientFileID
    }

    /// The time of a datum never written: every write is at or after it.
    public static let zero = WriteTime(clock: .zero, clientFileID: 0)

    /// The time of every write in `changeset`.
    public init(of changeset: Changeset) {
        self.init(clock: changeset.clock, clientFileID: changeset.clientFileID)
    }

    /// The insertion time of a list element, `W_e = (id.clock, id.clientFileID)`.
    public init(insertionOf element: ElementID) {
        self.init(clock: element.clock, clientFileID: element.clientFileID)
    }

    public static func < (a: WriteTime, b: WriteTime) -> Bool {
        (a.clock, a.clientFileID) < (b.clock, b.clientFileID)
    }

    public var description: String { "\(clock)@\(clientFileID)" }
}
