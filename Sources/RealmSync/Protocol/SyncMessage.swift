/// The messages of the sync protocol, one session per realm file, many sessions per connection
/// (realm-core's BIND / IDENT / UPLOAD / DOWNLOAD / MARK / ERROR, docs/SYNC.md). Every message that
/// crosses a transport is encoded by `SyncMessageCodec`; the in-memory transport encodes too, so the
/// simulation exercises the codec.
public enum SyncMessage: Hashable, Sendable {
    /// C→S: opens a session for `user`; `needsClientFileID` when the file has none yet.
    case bind(session: UInt32, user: String, needsClientFileID: Bool)
    /// S→C: the client file id and salt the server allocated (only when BIND asked for one).
    case ident(session: UInt32, clientFileID: UInt64, salt: UInt64)
    /// C→S: who the file is and where it stands: its id and salt, the last server version it
    /// integrated (the download cursor) and the subscription set whose view it holds (the last one
    /// it completed). A newer set follows as a `query` message.
    case identify(session: UInt32, clientFileID: UInt64, salt: UInt64, downloadCursor: UInt64, query: QuerySet)
    /// C→S: a new version of the subscription set. The server answers with a bootstrap of the new
    /// view (objects entering it, removals of those leaving it) at one server version, or
    /// `queryError`.
    case query(session: UInt32, query: QuerySet)
    /// S→C: the subscription set `version` was refused (a query outside the subset, an unknown
    /// class or field); the session goes on with its previous view.
    case queryError(session: UInt32, version: Int64, message: String)
    /// C→S: local changesets after the acknowledged point, in client-version order.
    case upload(session: UInt32, changesets: [Changeset])
    /// S→C: changesets that originated elsewhere, in server-version order; after integrating them the
    /// client's download cursor is `downloadCursor`. `uploadAcknowledged` is the highest client version
    /// the server has integrated (the ack). Then, as of `downloadCursor`: `replacements`, objects the
    /// replica gets whole (they entered its view, or a compensating write restores them), and
    /// `removals`, objects that left its view (deleted locally, nothing recorded). `compensating`:
    /// this client's writes the server refused, reported after the corrections are applied.
    case download(
        session: UInt32, downloadCursor: UInt64, uploadAcknowledged: UInt64, changesets: [IntegratedChangeset],
        replacements: [ObjectSnapshot] = [], removals: [ObjectRef] = [], compensating: [CompensatingWrite] = [])
    /// S→C: one batch of a bootstrap: the objects of the session's view as of `serverVersion`. The
    /// client stores batches aside and applies them all in one transaction after the one with `isLast`.
    /// `latestClock`: the latest clock integrated up to `serverVersion` (the client rebases its
    /// pending changesets after it); `uploadAcknowledged`: the client's highest client version
    /// integrated up to `serverVersion` (those changesets are in the snapshot, not pending).
    /// `queryVersion`: the subscription set whose view this is; complete once the last batch is
    /// applied. For a replica that already downloaded (a new subscription set), `objects` are those
    /// entering its view and `removals` those leaving it.
    case bootstrap(
        session: UInt32, serverVersion: UInt64, latestClock: HLCTimestamp, uploadAcknowledged: UInt64,
        objects: [ObjectSnapshot], isLast: Bool, progress: Double, queryVersion: Int64 = 0,
        removals: [ObjectRef] = [])
    /// Both ways: "reply when everything you had when you got this has been sent".
    case mark(session: UInt32, requestID: UInt64)
    /// S→C: the session failed; `tryAgain` false means the client must not reconnect as it was.
    case error(session: UInt32, code: SyncErrorCode, message: String, tryAgain: Bool)
    case unbind(session: UInt32)

    public var session: UInt32 {
        switch self {
        case .bind(let s, _, _), .ident(let s, _, _), .identify(let s, _, _, _, _), .query(let s, _),
            .queryError(let s, _, _), .upload(let s, _), .download(let s, _, _, _, _, _, _),
            .bootstrap(let s, _, _, _, _, _, _, _, _), .mark(let s, _), .error(let s, _, _, _), .unbind(let s):
            return s
        }
    }
}

/// An object's whole state as the server has it: what a bootstrap carries and what the simulation's
/// dumps compare. Lists keep their element ids and positions so the replica's list can merge later
/// edits exactly as the server does.
public struct ObjectSnapshot: Hashable, Sendable {
    public var object: ObjectRef
    /// Non-collection fields, by name.
    public var fields: [SyncField]
    public var lists: [ListSnapshot]
    /// Sets, by field name; each set's values in `SyncValue.order`.
    public var sets: [SetSnapshot]
    /// Maps, by field name; each map's entries by key.
    public var maps: [MapSnapshot]
    /// The times of what it holds: what a replica applies it with (empty: all at time zero).
    public var times: SnapshotTimes

    public init(
        object: ObjectRef, fields: [SyncField], lists: [ListSnapshot] = [], sets: [SetSnapshot] = [],
        maps: [MapSnapshot] = [], times: SnapshotTimes = SnapshotTimes()
    ) {
        self.object = object
        self.fields = fields
        self.lists = lists
        self.sets = sets
        self.maps = maps
        self.times = times
    }

    /// The latest clock of any write it holds (its times and its list elements' insertions): a
    /// replica observes it as it observes a changeset's clock, so that what it writes after seeing
    /// the object is later than everything in it (a clear after seeing an element removes it).
    public var latestClock: HLCTimestamp {
        max(times.latestClock, lists.flatMap { $0.elements.map(\.id.clock) }.max() ?? .zero)
    }
}

public struct ListSnapshot: Hashable, Sendable {
    public struct Element: Hashable, Sendable {
        public var id: ElementID
        public var position: FractionalPosition
        public var value: SyncValue
        public init(id: ElementID, position: FractionalPosition, value: SyncValue) {
            self.id = id
            self.position = position
            self.value = value
        }
    }
    public var field: String
    /// In list order: by (position, id).
    public var elements: [Element]
    public init(field: String, elements: [Element]) {
        self.field = field
        self.elements = elements
    }
}

public struct SetSnapshot: Hashable, Sendable {
    public var field: String
    public var values: [SyncValue]
    public init(field: String, values: [SyncValue]) {
        self.field = field
        self.values = values
    }
}

public struct MapSnapshot: Hashable, Sendable {
    public var field: String
    public var entries: [SyncField]
    public init(field: String, entries: [SyncField]) {
        self.field = field
        self.entries = entries
    }
}
