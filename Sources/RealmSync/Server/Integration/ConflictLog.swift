/// One instruction the server dropped: by the merge rules (it lost to another write) or by the
/// permissions (its object was refused). For operators: who lost, to whom, where and why.
public struct ConflictRecord: Hashable, Sendable {
    /// The server version of the changeset the dropped instruction came in.
    public var serverVersion: UInt64
    /// The client file that wrote the dropped instruction, and its user.
    public var loserClientFileID: UInt64
    public var loserUser: String
    /// The client file whose write won, when the store knows it (nil for a permission refusal, or
    /// when the winner is not recorded, e.g. an element erased by an unknown file).
    public var winnerClientFileID: UInt64?
    /// The object (class and primary key) the instruction addressed.
    public var object: ObjectRef
    /// The field (a path inside embedded objects joined by "."); nil for a create or an erase as a whole.
    public var field: String?
    /// The rule that dropped it, in words: a merge rule, or the permission refusal's reason.
    public var rule: String

    public init(
        serverVersion: UInt64, loserClientFileID: UInt64, loserUser: String, winnerClientFileID: UInt64?,
        object: ObjectRef, field: String?, rule: String
    ) {
        self.serverVersion = serverVersion
        self.loserClientFileID = loserClientFileID
        self.loserUser = loserUser
        self.winnerClientFileID = winnerClientFileID
        self.object = object
        self.field = field
        self.rule = rule
    }
}

/// The last `capacity` dropped instructions, in memory (a ring buffer): a server that runs for months
/// keeps a bounded log. Not persisted: a restart starts it empty.
public struct ConflictLog: Hashable, Sendable {
    public let capacity: Int
    private var ring: [ConflictRecord] = []
    /// Where the next record goes once the ring is full: the oldest record.
    private var oldest = 0
    /// Every record ever appended, including those the ring has since forgotten.
    public private(set) var totalRecorded: UInt64 = 0

    /// A log of at most `capacity` records (at least 0: a log of capacity 0 only counts).
    public init(capacity: Int = 1000) {
        self.capacity = max(0, capacity)
    }

    /// The records kept, oldest first.
    public var records: [ConflictRecord] {
        Array(ring[oldest...] + ring[..<oldest])
    }

    mutating func append(_ record: ConflictRecord) {
        totalRecorded &+= 1
        guard capacity > 0 else { return }
        if ring.count < capacity {
            ring.append(record)
        } else {
            ring[oldest] = record
            oldest = (oldest + 1) % capacity
        }
    }

    mutating func append(contentsOf records: [ConflictRecord]) {
        for record in records { append(record) }
    }
}
