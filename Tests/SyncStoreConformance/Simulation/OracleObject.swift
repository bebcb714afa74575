import RealmSync

/// The time of a write: `(clock, clientFileID)` of its changeset, compared lexicographically
/// (docs/SYNC.md, "The order of writes"). Zero until something is written.
struct WriteTime: Comparable, Hashable {
    var clock: HLCTimestamp
    var clientFileID: UInt64

    static let zero = WriteTime(clock: .zero, clientFileID: 0)

    static func < (a: WriteTime, b: WriteTime) -> Bool { (a.clock, a.clientFileID) < (b.clock, b.clientFileID) }
}

/// An erase of an object or a replacement of an embedded object: the server version it happened at
/// and the client file that made it (rule 1).
struct OracleEvent: Hashable {
    var at: UInt64
    var by: UInt64

    /// A write of `c` is concurrent with the event when `c` had not seen it and came from elsewhere.
    func isConcurrent(with c: Changeset) -> Bool { at > c.basedOnServerVersion && by != c.clientFileID }
}

/// One element of a list, live or a tombstone, with the times of its position and value.
struct OracleListElement {
    var position: FractionalPosition
    var positionTime: WriteTime
    var value: SyncValue
    var valueTime: WriteTime
    var isErased = false
}

struct OracleList {
    var clearedAt = WriteTime.zero
    var elements: [ElementID: OracleListElement] = [:]

    /// The live values in list order: by (position, element id).
    var values: [SyncValue] {
        elements.filter { !$0.value.isErased }
            .sorted { ($0.value.position, $0.key) < ($1.value.position, $1.key) }
            .map(\.value.value)
    }
}

/// What the oracle knows of one existing object: its non-collection fields (embedded objects as
/// `.embedded` values), the time of every written path, the replacements of embedded fields, and
/// its collections with their per-element times.
struct OracleObject {
    /// The user whose create made it exist (the `createdByUser` rule of classes without rules).
    var creator = ""
    var fields: [String: SyncValue] = [:]
    var times: [[String]: WriteTime] = [:]
    var replacements: [[String]: OracleEvent] = [:]
    var lists: [String: OracleList] = [:]
    var sets: [String: [SyncValue: (present: Bool, time: WriteTime)]] = [:]
    var maps: [String: [String: (value: SyncValue?, time: WriteTime)]] = [:]

    /// The value at `path` (nil when a step is missing or not an embedded object).
    func value(at path: ArraySlice<String>) -> SyncValue? {
        guard let first = path.first, let top = fields[first] else { return nil }
        return Self.value(at: path.dropFirst(), in: top)
    }

    /// The value at `path` inside `value` (nil when a step is missing or not an embedded object).
    static func value(at path: ArraySlice<String>, in value: SyncValue) -> SyncValue? {
        var current = value
        for step in path {
            guard case .embedded(let inner) = current, let next = inner.first(where: { $0.name == step }) else {
                return nil
            }
            current = next.value
        }
        return current
    }

    /// Stores `value` at `path`; the caller checked that every proper prefix holds an embedded object.
    mutating func store(_ value: SyncValue, at path: [String]) {
        guard let first = path.first else { return }
        if path.count == 1 {
            fields[first] = value
        } else if let old = fields[first] {
            fields[first] = Self.replacing(in: old, path: path.dropFirst(), with: value)
        }
    }

    static func replacing(in container: SyncValue, path: ArraySlice<String>, with value: SyncValue) -> SyncValue {
        guard case .embedded(var inner) = container, let step = path.first else { return container }
        let old = inner.first { $0.name == step }?.value ?? .null
        let new = path.count == 1 ? value : replacing(in: old, path: path.dropFirst(), with: value)
        inner.removeAll { $0.name == step }
        inner.append(SyncField(step, new))
        inner.sort { $0.name < $1.name }
        return .embedded(inner)
    }

    /// After a replacement at `path`, the times and replacements recorded below it no longer apply.
    mutating func forget(below path: [String]) {
        let isBelow = { (p: [String]) in p.count > path.count && Array(p.prefix(path.count)) == path }
        times = times.filter { !isBelow($0.key) }
        replacements = replacements.filter { !isBelow($0.key) }
    }
}
