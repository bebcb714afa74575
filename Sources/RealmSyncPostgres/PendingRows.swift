import RealmSync

/// Writes of one savepoint level of a PostgreSQL store transaction not yet sent: the integrator
/// writes a row at a time, and a statement per row would cost a round trip each, so each table's
/// rows go as one statement when the transaction next needs the database (`flush`).
///
/// Invariant: sending the deletes first and then the upserts leaves the tables as the writes made in
/// order would. A delete removes the upserts it covers from here, so an upsert kept here was made
/// after every delete here that covers its row; the levels are sent outermost first, as they were made.
struct PendingRows {
    struct FieldRange {
        var object: Int64
        var from: [UInt8]
        var to: [UInt8]
        func contains(_ key: [UInt8]) -> Bool {
            key.lexicographicallyPrecedes(to) && !key.lexicographicallyPrecedes(from)
        }
    }

    struct PendingObject {
        var ref: ObjectRef
        var record: StoredObject
        var isNew: Bool
    }

    /// Records the object's row; one created here or in an outer level still pending stays new.
    mutating func writeObject(_ id: Int64, _ object: PendingObject) {
        objects[id] = merged(objects[id], object)
    }

    private func merged(_ earlier: PendingObject?, _ later: PendingObject) -> PendingObject {
        var result = later
        result.isNew = later.isNew || earlier?.isNew == true
        return result
    }

    struct HeldKey: Hashable {
        var fileID: UInt64
        var object: Int64
    }

    struct HeldLogEntry {
        var key: HeldKey
        var position: ViewPosition
        var held: Bool
    }

    /// A deletion of held-log entries: those of one object, or those before a server version.
    enum HeldLogForget {
        case object(HeldKey)
        case before(fileID: UInt64, serverVersion: UInt64)

        func covers(_ entry: HeldLogEntry) -> Bool {
            switch self {
            case .object(let key): return entry.key == key
            case .before(let fileID, let version):
                return entry.key.fileID == fileID && entry.position.serverVersion < version
            }
        }
    }

    /// Per object id; `isNew`: the row is not in the table yet (inserted, not updated).
    var objects: [Int64: PendingObject] = [:]
    var fieldDeletes: [FieldRange] = []
    /// Per object id, per path key.
    var fields: [Int64: [[UInt8]: StoredField]] = [:]
    /// The state each (file, object) ends in: held or not.
    var held: [HeldKey: Bool] = [:]
    var heldLogForgets: [HeldLogForget] = []
    /// In the order made: the log's order is its meaning.
    var heldLog: [HeldLogEntry] = []
    var history: [HistoryRecord] = []
    var clients: [UInt64: ClientRecord] = [:]

    var isEmpty: Bool {
        objects.isEmpty && fieldDeletes.isEmpty && fields.isEmpty && held.isEmpty && heldLogForgets.isEmpty
            && heldLog.isEmpty && history.isEmpty && clients.isEmpty
    }

    /// The rows the upserts and appends write.
    var rowCount: Int {
        objects.count + fields.values.reduce(0) { $0 + $1.count } + held.count + heldLog.count + history.count
            + clients.count
    }

    mutating func deleteFields(_ range: FieldRange) {
        if var rows = fields[range.object] {
            rows = rows.filter { !range.contains($0.key) }
            fields[range.object] = rows.isEmpty ? nil : rows
        }
        fieldDeletes.append(range)
    }

    mutating func forgetHeldLog(_ forget: HeldLogForget) {
        // Nothing is before version 0 (a replica confirming nothing yet).
        if case .before(_, 0) = forget { return }
        if !heldLog.isEmpty { heldLog.removeAll(where: forget.covers) }
        heldLogForgets.append(forget)
    }

    /// Takes in the writes of the level inside this one, made after this level's: its deletes first
    /// (they came after every write here), then its upserts and appends.
    mutating func absorb(_ inner: PendingRows) {
        guard !inner.isEmpty else { return }
        for range in inner.fieldDeletes { deleteFields(range) }
        for forget in inner.heldLogForgets { forgetHeldLog(forget) }
        for (id, object) in inner.objects { writeObject(id, object) }
        for (object, rows) in inner.fields { fields[object, default: [:]].merge(rows) { _, later in later } }
        held.merge(inner.held) { _, later in later }
        heldLog += inner.heldLog
        history += inner.history
        clients.merge(inner.clients) { _, later in later }
    }
}
