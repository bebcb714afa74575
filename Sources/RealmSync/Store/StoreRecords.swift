/// What the store keeps of an object: whether it exists, its last erase, and who created it. The
/// record outlives an erase, because `erasedAt`/`erasedBy` decide later writes (docs/SYNC.md rule 1).
public struct StoredObject: Hashable, Sendable {
    public var exists: Bool
    /// The server version of the last erase (0: never erased).
    public var erasedAt: UInt64
    public var erasedBy: UInt64
    /// The user whose create first made the object: the only reader and writer of a class without
    /// permission rules (private per user).
    public var creator: String
    /// The server version of the create that last made the object exist: a replica that downloads
    /// from before it gets the object's whole life as instructions.
    public var createdAt: UInt64

    public init(exists: Bool, erasedAt: UInt64 = 0, erasedBy: UInt64 = 0, creator: String, createdAt: UInt64 = 0) {
        self.exists = exists
        self.erasedAt = erasedAt
        self.erasedBy = erasedBy
        self.creator = creator
        self.createdAt = createdAt
    }
}

/// What the store keeps of one field path of an object. A top-level path holds the field's value;
/// a path inside an embedded object holds only its time and replacement (its value lives inside the
/// top-level field's `.embedded` value), so `value` is nil there.
public struct StoredField: Hashable, Sendable {
    public var value: SyncValue?
    public var time: WriteTime
    /// The server version of the last replacement of the embedded object at this path (0: never).
    public var replacedAt: UInt64
    public var replacedBy: UInt64

    public init(value: SyncValue?, time: WriteTime, replacedAt: UInt64 = 0, replacedBy: UInt64 = 0) {
        self.value = value
        self.time = time
        self.replacedAt = replacedAt
        self.replacedBy = replacedBy
    }
}

/// One element ever inserted into a synced list, live or erased (a tombstone).
public struct StoredListElement: Hashable, Sendable {
    public var id: ElementID
    public var position: FractionalPosition
    public var positionTime: WriteTime
    public var value: SyncValue
    public var valueTime: WriteTime
    public var isErased: Bool

    public init(
        id: ElementID, position: FractionalPosition, positionTime: WriteTime, value: SyncValue, valueTime: WriteTime,
        isErased: Bool
    ) {
        self.id = id
        self.position = position
        self.positionTime = positionTime
        self.value = value
        self.valueTime = valueTime
        self.isErased = isErased
    }
}

/// One value ever added to or removed from a synced set.
public struct StoredSetEntry: Hashable, Sendable {
    public var value: SyncValue
    public var isPresent: Bool
    public var time: WriteTime

    public init(value: SyncValue, isPresent: Bool, time: WriteTime) {
        self.value = value
        self.isPresent = isPresent
        self.time = time
    }
}

/// One key ever put into or removed from a synced map; `value` is nil once removed.
public struct StoredMapEntry: Hashable, Sendable {
    public var key: String
    public var value: SyncValue?
    public var time: WriteTime

    public init(key: String, value: SyncValue?, time: WriteTime) {
        self.key = key
        self.value = value
        self.time = time
    }
}

/// A client file the server allocated: its salt (proof of identity) and how far it was integrated.
public struct ClientRecord: Hashable, Sendable {
    public var fileID: UInt64
    public var salt: UInt64
    public var lastIntegratedClientVersion: UInt64
    /// The user the file was allocated to: only that user's sessions may use it.
    public var user: String

    public init(fileID: UInt64, salt: UInt64, lastIntegratedClientVersion: UInt64, user: String) {
        self.fileID = fileID
        self.salt = salt
        self.lastIntegratedClientVersion = lastIntegratedClientVersion
        self.user = user
    }
}

/// Where a replica stands in what the server sent it: the download cursor, then the subscription set
/// version (a new set's bootstrap comes at the cursor the replica already has). Changes to the objects
/// a replica holds are recorded at the position of the message that carries them.
public struct ViewPosition: Hashable, Comparable, Sendable {
    public var serverVersion: UInt64
    public var queryVersion: Int64

    public init(serverVersion: UInt64, queryVersion: Int64) {
        self.serverVersion = serverVersion
        self.queryVersion = queryVersion
    }

    public static func < (a: ViewPosition, b: ViewPosition) -> Bool {
        (a.serverVersion, a.queryVersion) < (b.serverVersion, b.queryVersion)
    }
}

/// One integrated changeset of the server's history: the changeset as uploaded (the oracle's input)
/// and with only its kept instructions (what other clients download).
public struct HistoryRecord: Hashable, Sendable {
    public var serverVersion: UInt64
    public var original: Changeset
    public var kept: Changeset

    public init(serverVersion: UInt64, original: Changeset, kept: Changeset) {
        self.serverVersion = serverVersion
        self.original = original
        self.kept = kept
    }
}

/// A history entry as downloads carry it: the server version and the kept instructions.
public struct HistoryEntry: Hashable, Sendable {
    public var serverVersion: UInt64
    public var kept: Changeset

    public init(serverVersion: UInt64, kept: Changeset) {
        self.serverVersion = serverVersion
        self.kept = kept
    }

    public var originClientFileID: UInt64 { kept.clientFileID }
    public var clientVersion: UInt64 { kept.clientVersion }
    public var integrated: IntegratedChangeset { IntegratedChangeset(serverVersion: serverVersion, origin: kept) }
}

/// An upload waiting in a shared store's inbox: its file and the encoded upload
/// (`InboxCoding.body`), which the store keeps as it is.
public struct InboxUpload: Hashable, Sendable {
    public var id: UInt64
    public var clientFileID: UInt64
    public var body: [UInt8]

    public init(id: UInt64, clientFileID: UInt64, body: [UInt8]) {
        self.id = id
        self.clientFileID = clientFileID
        self.body = body
    }
}
