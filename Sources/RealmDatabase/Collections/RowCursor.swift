/// The statement a streaming loop (`Results.forEach`) is stepping, shared with the objects it
/// hands out.
///
/// An object read while the loop is still on its row takes its values straight from the
/// statement's columns, so streaming a million objects copies no row. Once the loop has stepped
/// on (or ended), or the realm has changed under it (a write in the loop's body), the object
/// falls back to loading its row by key, as any other object does.
final class RowCursor {
    private let statement: Statement
    /// The statement's handle, read without touching the statement object.
    private let handle: OpaquePointer?
    private let realm: Realm
    /// The realm's change tracker, held directly: the stamp is compared on every property read.
    private let tracker: ChangeTracker
    private let info: ClassInfo
    /// Which row the statement is on: 0 for the first, +1 per step, -1 once closed.
    private(set) var row = 0
    /// The realm's local stamp when the loop began (or, following writes, when it last stepped);
    /// a write through the realm changes it, and the statement's columns may then be stale.
    private var stamp: Int
    /// True inside a write transaction on the statement's own connection (a migration's
    /// enumeration): each step reads the row as the transaction's writes left it, so the columns
    /// are current again after every step, until the next write.
    private let followsWrites: Bool

    init(_ statement: Statement, realm: Realm, info: ClassInfo, followsWrites: Bool = false) {
        self.statement = statement
        handle = statement.handle
        self.realm = realm
        tracker = realm.changeTracker
        self.info = info
        self.followsWrites = followsWrites
        stamp = tracker.localStamp
    }

    /// The value of a non-collection property of the object on `row`; nil when the cursor has
    /// moved on, the realm changed, or the property is a collection (the caller takes the
    /// general path then).
    func value(forKey name: String, row: Int) throws -> RealmValue? {
        guard row == self.row, tracker.localStamp == stamp else { return nil }
        let slot = try info.slotSummary(name)
        guard slot.position >= 0 else { return nil }  // a collection or backlink
        // Column 0 is the key; the row's columns follow.
        let column = Int32(slot.position + 1)
        switch slot.type {
        case .object, .mixed:
            // Links become objects, which the realm resolves.
            return try realm.rows.decodeStored(
                statement.value(at: column), tag: slot.type == .mixed ? statement.value(at: column + 1) : nil,
                type: slot.type, objectClassName: info.slot(at: slot.index).objectClassName)
        default:
            return ValueCoding.decode(StatementColumn(handle: handle, column: column), as: slot.type)
        }
    }

    /// Steps to the next row; false at the end.
    func advance() throws -> Bool {
        guard row >= 0 else { return false }
        row += 1
        let more = try statement.step()
        if followsWrites { stamp = tracker.localStamp }
        return more
    }

    /// Ends the loop: objects still holding the cursor no longer read from it, and the statement
    /// is reset, which ends its read transaction even when the loop stopped early (a statement
    /// left mid-way would keep the connection on its snapshot for as long as an object lives).
    func close() {
        row = -1
        statement.reset()
    }
}
