/// One step of a changeset, addressed by (class, primary key, path). The server decides each one
/// once: keep or drop (docs/SYNC.md, "How the server decides").
public enum Instruction: Hashable, Sendable {
    /// Creates the object if it does not exist, then sets each field (last writer wins per field).
    /// Collections are not in `fields`: they follow as their own instructions.
    case create(ObjectRef, fields: [SyncField])
    /// Erases the object (and its embedded objects). Wins over every concurrent write to it.
    case erase(ObjectRef)
    /// Sets a field: `path` is the field's name, then, inside embedded objects, the names of the
    /// fields below it. A value set higher in the path wins over concurrent writes below it.
    case set(ObjectRef, path: [String], value: SyncValue)
    case listInsert(ObjectRef, field: String, element: ElementID, position: FractionalPosition, value: SyncValue)
    case listErase(ObjectRef, field: String, element: ElementID)
    case listMove(ObjectRef, field: String, element: ElementID, position: FractionalPosition)
    case listSet(ObjectRef, field: String, element: ElementID, value: SyncValue)
    /// Erases the elements inserted before the clear (by clock); later inserts survive.
    case listClear(ObjectRef, field: String)
    case setAdd(ObjectRef, field: String, value: SyncValue)
    case setRemove(ObjectRef, field: String, value: SyncValue)
    case mapPut(ObjectRef, field: String, key: String, value: SyncValue)
    case mapRemove(ObjectRef, field: String, key: String)

    /// The object the instruction addresses.
    public var object: ObjectRef {
        switch self {
        case .create(let o, _), .erase(let o), .set(let o, _, _), .listInsert(let o, _, _, _, _),
            .listErase(let o, _, _), .listMove(let o, _, _, _), .listSet(let o, _, _, _), .listClear(let o, _),
            .setAdd(let o, _, _), .setRemove(let o, _, _), .mapPut(let o, _, _, _), .mapRemove(let o, _, _):
            return o
        }
    }
}

/// The instructions of one local commit, as uploaded: who made it, when, and what it had seen.
public struct Changeset: Hashable, Sendable {
    /// The local commit's number on its client (1, 2, …), dense per client file.
    public var clientVersion: UInt64
    /// The last server version the client had integrated when it committed: a write is concurrent
    /// with every server version above it.
    public var basedOnServerVersion: UInt64
    /// The client's hybrid logical clock at the commit: every instruction's time.
    public var clock: HLCTimestamp
    /// The client file that made it (0 until the server allocated one; uploads carry the real id).
    public var clientFileID: UInt64
    public var instructions: [Instruction]

    public init(
        clientVersion: UInt64, basedOnServerVersion: UInt64, clock: HLCTimestamp, clientFileID: UInt64,
        instructions: [Instruction]
    ) {
        self.clientVersion = clientVersion
        self.basedOnServerVersion = basedOnServerVersion
        self.clock = clock
        self.clientFileID = clientFileID
        self.instructions = instructions
    }
}

/// A changeset as the server integrated it: its server version and only the instructions it kept.
/// This is what other clients download.
public struct IntegratedChangeset: Hashable, Sendable {
    public var serverVersion: UInt64
    public var origin: Changeset
    /// The highest client version of the recipient's file integrated below `serverVersion` (filled
    /// per download, as realm-core's `last_integrated_local_version`): the recipient's changesets up
    /// to it were decided before this one, the later ones after it (they are pending relative to it).
    public var recipientClientVersion: UInt64

    public init(serverVersion: UInt64, origin: Changeset, recipientClientVersion: UInt64 = 0) {
        self.serverVersion = serverVersion
        self.origin = origin
        self.recipientClientVersion = recipientClientVersion
    }
}
