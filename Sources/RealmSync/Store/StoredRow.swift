/// A row a store read, column by column: what each store's results offer, so that the records are
/// decoded from rows once, here, for every store (SQLite's `[SQLiteValue]`, PostgreSQL's rows).
///
/// The stores keep the same tables with the same column names (docs/SYNC.md "The server"); what
/// differs is how a column holds its value (SQLite's integers for booleans, PostgreSQL's BYTEA for
/// texts that may hold a NUL), and each conformance reads its own kind. A column missing or of
/// another type is a `SyncStoreError`, never a crash: a store file or database may be damaged.
package protocol StoredRow {
    /// An unsigned number, kept bit for bit in a signed 64-bit column.
    func u64(_ column: Int) throws -> UInt64
    func bool(_ column: Int) throws -> Bool
    /// A text, however the store keeps it (PostgreSQL keeps map keys as BYTEA).
    func text(_ column: Int) throws -> String
    /// The bytes of an encoded value, changeset or position; nil when the column is NULL.
    func bytes(_ column: Int) throws -> [UInt8]?
}

/// The columns the decoders below read, in their order: a store's SELECT names them so.
package enum StoredColumns {
    package static let object = "live, erased_at, erased_by, creator, created_at"
    package static let field = "value, clock, client, replaced_at, replaced_by"
    package static let element =
        "clock, client, idx, position, position_clock, position_client, value, value_clock, value_client, erased"
    package static let setEntry = "present, clock, client"
    package static let mapEntry = "key, value, clock, client"
    package static let client = "salt, last_client_version"
    package static let inboxUpload = "id, client_file_id, body"
}

extension StoredRow {
    /// A write time: its clock at `column`, its client file at the next.
    package func time(_ column: Int) throws -> WriteTime {
        WriteTime(clock: HLCTimestamp(rawValue: try u64(column)), clientFileID: try u64(column + 1))
    }

    /// An encoded value; nil for NULL. `what` is only built for the error: a bootstrap decodes
    /// hundreds of thousands of values.
    package func value(_ column: Int, _ what: @autoclosure () -> String) throws -> SyncValue? {
        guard let bytes = try bytes(column) else { return nil }
        do {
            return try StoreEncoding.decodeValue(bytes)
        } catch {
            throw SyncStoreError("\(error) (the stored \(what()))")
        }
    }

    package func primaryKey(_ column: Int) throws -> SyncPrimaryKey {
        try StoreEncoding.decodePrimaryKey(try bytes(column) ?? [])
    }

    package func changeset(_ column: Int, at serverVersion: UInt64) throws -> Changeset {
        do {
            return try StoreEncoding.decodeChangeset(try bytes(column) ?? [])
        } catch {
            throw SyncStoreError("\(error) (the changeset of server version \(serverVersion))")
        }
    }

    /// `StoredColumns.object`, from `column`.
    package func storedObject(from column: Int = 0) throws -> StoredObject {
        StoredObject(
            exists: try bool(column), erasedAt: try u64(column + 1), erasedBy: try u64(column + 2),
            creator: try text(column + 3), createdAt: try u64(column + 4))
    }

    /// `StoredColumns.field`, from `column`.
    package func storedField(from column: Int = 0, _ what: @autoclosure () -> String) throws -> StoredField {
        StoredField(
            value: try value(column, what()), time: try time(column + 1), replacedAt: try u64(column + 3),
            replacedBy: try u64(column + 4))
    }

    /// `StoredColumns.element`: an element of `ref.field`. An index past 32 bits is damage, refused
    /// (an element id's index is a `UInt32` on the wire).
    package func listElement(of ref: ObjectRef, _ field: String) throws -> StoredListElement {
        let rawIndex = try u64(2)
        guard let index = UInt32(exactly: rawIndex) else {
            throw SyncStoreError("a stored element of \(ref).\(field) has index \(rawIndex), past 32 bits")
        }
        let id = ElementID(clock: HLCTimestamp(rawValue: try u64(0)), clientFileID: try u64(1), index: index)
        guard let position = FractionalPosition(bytes: try bytes(3) ?? []),
            let value = try value(6, "element \(id) of \(ref).\(field)")
        else { throw SyncStoreError("the stored element \(id) of \(ref).\(field) is corrupt") }
        return StoredListElement(
            id: id, position: position, positionTime: try time(4), value: value, valueTime: try time(7),
            isErased: try bool(9))
    }

    /// `StoredColumns.setEntry`, from `column`, of `value`.
    package func setEntry(_ value: SyncValue, from column: Int = 0) throws -> StoredSetEntry {
        StoredSetEntry(value: value, isPresent: try bool(column), time: try time(column + 1))
    }

    /// `value, StoredColumns.setEntry`: a set's entry with its value.
    package func setEntryWithValue(of ref: ObjectRef, _ field: String) throws -> StoredSetEntry {
        guard let value = try value(0, "set value of \(ref).\(field)") else {
            throw SyncStoreError("a stored set value of \(ref).\(field) is missing")
        }
        return try setEntry(value, from: 1)
    }

    /// `StoredColumns.mapEntry`: an entry of `ref.field`.
    package func mapEntry(of ref: ObjectRef, _ field: String) throws -> StoredMapEntry {
        let key = try text(0)
        return StoredMapEntry(key: key, value: try value(1, "map entry \(ref).\(field)[\(key)]"), time: try time(2))
    }

    /// `StoredColumns.client, user`: the record of client file `fileID`.
    package func client(_ fileID: UInt64) throws -> ClientRecord {
        ClientRecord(fileID: fileID, salt: try u64(0), lastIntegratedClientVersion: try u64(1), user: try text(2))
    }

    /// `id, class, pk` (`className` given: `id, pk`): an object's row id, the cursor of a page of
    /// objects, and its ref.
    package func objectInPage(ofClass className: String? = nil) throws -> (id: Int64, ref: ObjectRef) {
        let id = Int64(bitPattern: try u64(0))
        guard let className else { return (id, ObjectRef(try text(1), try primaryKey(2))) }
        return (id, ObjectRef(className, try primaryKey(1)))
    }

    /// A row of `StoreStatements.liveObjectsWithCreators`: a candidate of a view's `ViewScan`, its
    /// cursor the object's row id.
    package func viewCandidate(ofClass className: String) throws -> ViewScan.Candidate {
        let (id, ref) = try objectInPage(ofClass: className)
        return (UInt64(bitPattern: id), ref, try text(2))
    }

    /// `StoredColumns.inboxUpload`: an upload waiting in a shared store's inbox.
    package func inboxUpload() throws -> InboxUpload {
        InboxUpload(id: try u64(0), clientFileID: try u64(1), body: try bytes(2) ?? [])
    }

    /// `server_version, kept` (or `original`): one changeset of the history.
    package func historyEntry() throws -> HistoryEntry {
        let version = try u64(0)
        return HistoryEntry(serverVersion: version, kept: try changeset(1, at: version))
    }
}
