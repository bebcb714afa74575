/// Where the server keeps its state and history. The rules (the `Integrator`, docs/SYNC.md "How the
/// server decides") are written once against `SyncStoreTransaction`; a store only reads and writes
/// records, so every store decides exactly alike.
///
/// The API is synchronous because the SQLite store is. The PostgreSQL store (RealmSyncPostgres,
/// postgres-nio) runs the integrator's synchronous body on a thread that holds one connection and
/// blocks on each query, answering reads from a cache and sending writes a table at a time.
public protocol SyncStore: AnyObject {
    /// Runs `body` in one write transaction: commits when it returns, leaves the store exactly as it
    /// was when it throws.
    func write<T>(_ body: (any SyncStoreTransaction) throws -> T) throws -> T
    /// Runs `body` in one read transaction: everything it reads is of one consistent state.
    func read<T>(_ body: (any SyncStoreReader) throws -> T) throws -> T
}

/// The reads of a store transaction.
public protocol SyncStoreReader {
    /// The last server version given to a changeset (0 for an empty store).
    func latestServerVersion() throws -> UInt64
    /// A random number chosen when the store was created: a store restored from a backup of another
    /// one has another history, which clients can tell by it.
    func historySalt() throws -> UInt64

    func object(_ ref: ObjectRef) throws -> StoredObject?
    /// A hint: the caller is about to read these objects' records, fields and holders one at a
    /// time. A store whose every read is a round trip reads them together now; one whose reads are
    /// cheap (SQLite, in process) ignores it.
    func prefetch(_ refs: [ObjectRef]) throws
    /// Existing objects of a class, ordered by a store-chosen cursor, after `cursor` (0: from the
    /// start); each with the cursor to continue after it.
    func existingObjects(ofClass className: String, after cursor: UInt64, limit: Int) throws
        -> [(cursor: UInt64, ref: ObjectRef)]
    /// Existing objects of a class that `predicate` matches for the session of `user` (a bootstrap
    /// of a view), as `existingObjects(ofClass:after:limit:)` orders them: `ViewScan` over the
    /// store's pages (it runs `ViewPredicate.matches` itself, a field never written at its default).
    func existingObjects(
        ofClass className: String, matching predicate: ViewPredicate, user: String, after cursor: UInt64, limit: Int
    ) throws -> [(cursor: UInt64, ref: ObjectRef)]

    func field(_ ref: ObjectRef, path: [String]) throws -> StoredField?
    /// The top-level fields written since the object was (re)created, by name.
    func topLevelFields(of ref: ObjectRef) throws -> [String: SyncValue]
    /// `topLevelFields(of:)` of several objects (a page of a bootstrap) in one go; an object without
    /// fields may be absent.
    func topLevelFields(ofObjects refs: [ObjectRef]) throws -> [ObjectRef: [String: SyncValue]]
    /// The time (and last replacement) of every field path the store keeps of the object, top-level
    /// and inside embedded objects, by path: what an object sent whole carries (`SnapshotTimes`).
    func fieldTimes(of ref: ObjectRef) throws -> [SnapshotTimes.FieldTime]

    func listElement(_ ref: ObjectRef, field: String, id: ElementID) throws -> StoredListElement?
    /// Every element of the list ever inserted, live or erased, in no particular order.
    func listElements(_ ref: ObjectRef, field: String) throws -> [StoredListElement]
    /// The time of the list's last kept clear (`.zero`: never cleared).
    func listClearedAt(_ ref: ObjectRef, field: String) throws -> WriteTime

    func setEntry(_ ref: ObjectRef, field: String, value: SyncValue) throws -> StoredSetEntry?
    func setEntries(_ ref: ObjectRef, field: String) throws -> [StoredSetEntry]
    func mapEntry(_ ref: ObjectRef, field: String, key: String) throws -> StoredMapEntry?
    func mapEntries(_ ref: ObjectRef, field: String) throws -> [StoredMapEntry]

    /// Kept changesets after `serverVersion`, in order, at most `limit`.
    func history(after serverVersion: UInt64, limit: Int) throws -> [HistoryEntry]
    /// Changesets as uploaded after `serverVersion`, in integration order, at most `limit`.
    func originalChangesets(after serverVersion: UInt64, limit: Int) throws -> [(serverVersion: UInt64, Changeset)]
    /// The highest client version of `clientFileID` integrated at a server version at or below
    /// `serverVersion` (0: none).
    func highestClientVersion(of clientFileID: UInt64, atOrBelow serverVersion: UInt64) throws -> UInt64
    /// The latest clock of the changesets integrated at or below `serverVersion` (`.zero`: none).
    func latestClock(atOrBelow serverVersion: UInt64) throws -> HLCTimestamp

    func client(_ fileID: UInt64) throws -> ClientRecord?

    /// Whether the replica of `fileID` holds `ref`: the server sent it (bootstrap, instructions from
    /// its creation, replacement) and not its removal since, or the replica created it.
    func holds(_ fileID: UInt64, _ ref: ObjectRef) throws -> Bool
    /// The client files whose replicas hold `ref`.
    func holders(of ref: ObjectRef) throws -> [UInt64]
    /// The objects the replica of `fileID` holds, ordered by a store-chosen cursor, after `cursor`.
    func heldObjects(by fileID: UInt64, after cursor: UInt64, limit: Int) throws -> [(cursor: UInt64, ref: ObjectRef)]

    // The inbox of several servers on one store (docs/SYNC.md "Several servers on one store"): any
    // server puts its uploads there, the one integrator drains it and records each outcome.

    /// The uploads not yet integrated, oldest first.
    func unsettledUploads(limit: Int) throws -> [InboxUpload]
    /// The outcomes recorded for those of `ids` that are settled.
    func uploadOutcomes(_ ids: [UInt64]) throws -> [UInt64: [UInt8]]
    /// The outcomes of the file's settled uploads still kept (their session went before it read them).
    func settledUploads(of fileID: UInt64) throws -> [UInt64: [UInt8]]
}

/// The writes of a store transaction.
public protocol SyncStoreTransaction: SyncStoreReader {
    func writeObject(_ ref: ObjectRef, _ object: StoredObject) throws
    /// Forgets the object's fields, their times, and its collections (an erase).
    func forgetContents(of ref: ObjectRef) throws

    func writeField(_ ref: ObjectRef, path: [String], _ field: StoredField) throws
    /// Forgets every path strictly below `path` (a replacement of the embedded object there).
    func forgetFields(of ref: ObjectRef, below path: [String]) throws

    func writeListElement(_ ref: ObjectRef, field: String, _ element: StoredListElement) throws
    func writeListClearedAt(_ ref: ObjectRef, field: String, _ time: WriteTime) throws
    func writeSetEntry(_ ref: ObjectRef, field: String, _ entry: StoredSetEntry) throws
    func writeMapEntry(_ ref: ObjectRef, field: String, _ entry: StoredMapEntry) throws

    /// Appends to the history; `record.serverVersion` must be `latestServerVersion() + 1`.
    func appendHistory(_ record: HistoryRecord) throws
    func writeClient(_ record: ClientRecord) throws
    /// A new client file id (1, 2, …) recorded with `salt`, for `user`.
    func allocateClient(salt: UInt64, user: String) throws -> UInt64

    /// Records that the replica of `fileID` holds `ref` (or no longer does) from `position` on. The
    /// change is logged until the replica says where it stands (`rewindHeld`).
    func setHeld(_ fileID: UInt64, _ ref: ObjectRef, _ held: Bool, at position: ViewPosition) throws
    /// Forgets the logged changes of `fileID` before `serverVersion`: its replica has them (it
    /// committed on top of that version).
    func forgetHeldLog(of fileID: UInt64, before serverVersion: UInt64) throws
    /// The replica of `fileID` created `ref` itself: it holds it, whatever it was sent (not logged,
    /// never rewound). Nothing when the store has no record of `ref`, or when the file holds it
    /// already: then the log must still rewind a lost message that brought it (a create merged into
    /// an object whose bootstrap was lost leaves the replica with its own fields only).
    func markHeld(_ fileID: UInt64, _ ref: ObjectRef) throws
    /// The replica of `fileID` stands at `position`: changes logged after it never reached it (the
    /// connection dropped) and are undone; the log is then cleared.
    func rewindHeld(of fileID: UInt64, to position: ViewPosition) throws
    /// The replica of `fileID` holds exactly `refs` (a fresh bootstrap); the log is cleared.
    func resetHeld(of fileID: UInt64, to refs: [ObjectRef]) throws

    /// Puts an upload in the inbox and returns its id. The same file's upload ending at the same
    /// client version twice (sent again after a reconnection) is kept once: its first id is returned.
    func addUpload(clientFileID: UInt64, lastClientVersion: UInt64, body: [UInt8]) throws -> UInt64
    /// Records what became of upload `id`, at `now` (milliseconds since 1970). An upload settled
    /// already keeps its first outcome (a second integrator at once would only acknowledge it again,
    /// without the compensating writes the first one recorded).
    func settleUpload(_ id: UInt64, outcome: [UInt8], now: UInt64) throws
    /// Drops the file's uploads not yet integrated: its replica connected again and sends them again.
    func dropUnsettledUploads(of fileID: UInt64) throws
    /// Forgets the settled uploads `ids` (their server read the outcomes), and every upload settled
    /// before `settledBefore` (its server ended before it could read it).
    func forgetUploads(_ ids: [UInt64], settledBefore: UInt64) throws

    /// Runs `body` in a savepoint: when it throws, everything it wrote is undone and the
    /// transaction goes on as it was.
    func savepoint<T>(_ body: () throws -> T) throws -> T
}

extension SyncStoreReader {
    public func prefetch(_ refs: [ObjectRef]) throws {}

    /// One object at a time, for a store without a faster way.
    public func topLevelFields(ofObjects refs: [ObjectRef]) throws -> [ObjectRef: [String: SyncValue]] {
        var result: [ObjectRef: [String: SyncValue]] = [:]
        for ref in refs { result[ref] = try topLevelFields(of: ref) }
        return result
    }
}
