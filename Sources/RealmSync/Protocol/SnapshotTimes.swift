/// The times the server has for what an `ObjectSnapshot` holds, so a replica can apply an object sent
/// whole as timed writes (docs/SYNC.md "Views, routing and permissions"): a pending local write wins
/// only where it is later, as at the server. Empty (every time zero, nothing erased) where the
/// sender has no times: then every pending write wins, as it does over a first bootstrap.
public struct SnapshotTimes: Hashable, Sendable {
    /// The object's last erase (0: never): pending writes from changesets that did not see it and
    /// were not its writer are dropped by the server (rule 2).
    public var erasedAt: UInt64
    public var erasedBy: UInt64
    /// Top-level fields and paths inside embedded objects the store times.
    public var fields: [FieldTime]
    public var elements: [ElementTime]
    /// Set values and map keys (as `.string`), present or removed.
    public var entries: [EntryTime]

    public init(
        erasedAt: UInt64 = 0, erasedBy: UInt64 = 0, fields: [FieldTime] = [], elements: [ElementTime] = [],
        entries: [EntryTime] = []
    ) {
        self.erasedAt = erasedAt
        self.erasedBy = erasedBy
        self.fields = fields
        self.elements = elements
        self.entries = entries
    }

    public struct FieldTime: Hashable, Sendable {
        public var path: [String]
        public var time: WriteTime
        /// The last replacement of the embedded object at `path` (0: never), as `StoredField` has it.
        public var replacedAt: UInt64
        public var replacedBy: UInt64

        public init(path: [String], time: WriteTime, replacedAt: UInt64 = 0, replacedBy: UInt64 = 0) {
            self.path = path
            self.time = time
            self.replacedAt = replacedAt
            self.replacedBy = replacedBy
        }
    }

    public struct ElementTime: Hashable, Sendable {
        public var field: String
        public var id: ElementID
        public var position: WriteTime
        public var value: WriteTime

        public init(field: String, id: ElementID, position: WriteTime, value: WriteTime) {
            self.field = field
            self.id = id
            self.position = position
            self.value = value
        }
    }

    public struct EntryTime: Hashable, Sendable {
        public var field: String
        public var key: SyncValue
        public var time: WriteTime

        public init(field: String, key: SyncValue, time: WriteTime) {
            self.field = field
            self.key = key
            self.time = time
        }
    }

    /// The latest clock these times hold (zero when they hold none).
    public var latestClock: HLCTimestamp {
        var latest = HLCTimestamp.zero
        for field in fields { latest = max(latest, field.time.clock) }
        for element in elements { latest = max(latest, element.id.clock, element.position.clock, element.value.clock) }
        for entry in entries { latest = max(latest, entry.time.clock) }
        return latest
    }

    /// The time of `path` (zero when the store has none: never written since its object was made).
    public func time(of path: [String]) -> WriteTime { fields.first { $0.path == path }?.time ?? .zero }

    public func element(_ field: String, _ id: ElementID) -> ElementTime? {
        elements.first { $0.field == field && $0.id == id }
    }

    public func time(of field: String, key: SyncValue) -> WriteTime {
        entries.first { $0.field == field && $0.key == key }?.time ?? .zero
    }

    /// Whether the server drops a write at `path` from `changeset` as concurrent with a replacement
    /// of an embedded object above it, or with the object's erase.
    public func dropsAsConcurrent(_ path: [String], from changeset: Changeset) -> Bool {
        func concurrent(_ at: UInt64, _ by: UInt64) -> Bool {
            at > changeset.basedOnServerVersion && by != changeset.clientFileID
        }
        if concurrent(erasedAt, erasedBy) { return true }
        return (1..<max(1, path.count)).contains { length in
            fields.first { $0.path == Array(path.prefix(length)) }.map { concurrent($0.replacedAt, $0.replacedBy) }
                ?? false
        }
    }
}
