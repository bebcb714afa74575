import RealmDatabase

/// The server's state as others read it: history for downloads, snapshots for bootstraps, the
/// canonical state and the integration log for the simulation's checks, and client allocation.
public struct ServerState {
    public let store: any SyncStore
    let rules: SyncSchemaRules

    public init(store: any SyncStore, schema: Schema) {
        self.store = store
        self.rules = SyncSchemaRules(schema: schema)
    }

    public func latestServerVersion() throws -> UInt64 {
        try store.read { try $0.latestServerVersion() }
    }

    /// Kept changesets after `serverVersion`, at most `limit`, for downloads.
    public func history(after serverVersion: UInt64, limit: Int) throws -> [HistoryEntry] {
        try store.read { try $0.history(after: serverVersion, limit: limit) }
    }

    /// Every changeset as uploaded after `serverVersion`, in integration order (the oracle replays
    /// them independently; the view simulation's audit tap after each integration).
    public func integrationLog(after serverVersion: UInt64 = 0) throws -> [(
        serverVersion: UInt64, changeset: Changeset
    )] {
        try store.read { reader in
            var log: [(serverVersion: UInt64, changeset: Changeset)] = []
            while true {
                let page = try reader.originalChangesets(after: log.last?.serverVersion ?? serverVersion, limit: 1000)
                if page.isEmpty { return log }
                log += page.map { (serverVersion: $0.serverVersion, changeset: $0.1) }
            }
        }
    }

    /// A new client file id recorded with `salt`, for `user`.
    public func allocateClient(salt: UInt64, user: String) throws -> UInt64 {
        try store.write { try $0.allocateClient(salt: salt, user: user) }
    }

    public func client(_ fileID: UInt64) throws -> ClientRecord? {
        try store.read { try $0.client(fileID) }
    }

    /// The highest client version of `clientFileID` integrated at or below `serverVersion`.
    public func highestClientVersion(of clientFileID: UInt64, atOrBelow serverVersion: UInt64) throws -> UInt64 {
        try store.read { try $0.highestClientVersion(of: clientFileID, atOrBelow: serverVersion) }
    }

    /// Every existing object of `classes` (the view of part 1), as `snapshot(view:user:batchSize:)`.
    public func snapshot(classes: [String], batchSize: Int) throws -> (
        serverVersion: UInt64, latestClock: HLCTimestamp, batches: [[ObjectSnapshot]]
    ) {
        let view = SessionView(
            queryVersion: 0,
            predicates: Dictionary(classes.map { ($0, .constant(true)) }, uniquingKeysWith: { a, _ in a }))
        return try snapshot(view: view, user: "", batchSize: batchSize)
    }

    /// Every existing object of `view` for `user`, in batches of at most `batchSize`, all read in one
    /// read transaction: one consistent server version, with the latest clock integrated up to it.
    func snapshot(view: SessionView, user: String, batchSize: Int) throws -> (
        serverVersion: UInt64, latestClock: HLCTimestamp, batches: [[ObjectSnapshot]]
    ) {
        try store.read { try snapshot(view: view, user: user, batchSize: batchSize, $0) }
    }

    /// `snapshot(view:user:batchSize:)` in the caller's transaction.
    func snapshot(view: SessionView, user: String, batchSize: Int, _ reader: any SyncStoreReader) throws -> (
        serverVersion: UInt64, latestClock: HLCTimestamp, batches: [[ObjectSnapshot]]
    ) {
        var batches: [[ObjectSnapshot]] = []
        var batch: [ObjectSnapshot] = []
        for (className, predicate) in view.predicates.sorted(by: { $0.key < $1.key }) {
            guard let objectSchema = rules.schema[className] else { continue }
            var cursor: UInt64 = 0
            while true {
                let page = try reader.existingObjects(
                    ofClass: className, matching: predicate, user: user, after: cursor, limit: max(1, batchSize))
                guard let last = page.last else { break }
                cursor = last.cursor
                for object in try snapshots(of: page.map(\.ref), objectSchema, reader) {
                    batch.append(object)
                    if batch.count >= batchSize {
                        batches.append(batch)
                        batch = []
                    }
                }
            }
        }
        if !batch.isEmpty || batches.isEmpty { batches.append(batch) }
        let serverVersion = try reader.latestServerVersion()
        return (serverVersion, try reader.latestClock(atOrBelow: serverVersion), batches)
    }

    /// The state of `classes` in the form replicas dump theirs: every property present, unset fields
    /// at their default, empty collections present.
    public func canonicalState(classes: [String]) throws -> CanonicalState {
        let batches = try snapshot(classes: classes, batchSize: 1000).batches
        var state = CanonicalState()
        for object in batches.joined() { state.objects[object.object] = CanonicalState.fields(of: object) }
        return state
    }

    /// One object as the store has it: every property of its class, lists in (position, id) order,
    /// sets in `SyncValue.order`, maps by key.
    func snapshot(of ref: ObjectRef, _ objectSchema: ObjectSchema, _ reader: any SyncStoreReader) throws
        -> ObjectSnapshot
    {
        try snapshot(of: ref, objectSchema, reader, topLevel: try reader.topLevelFields(of: ref))
    }

    /// `snapshot(of:_:_:)` of several objects of one class, in order, their fields read in one go.
    func snapshots(of refs: [ObjectRef], _ objectSchema: ObjectSchema, _ reader: any SyncStoreReader) throws
        -> [ObjectSnapshot]
    {
        try reader.prefetch(refs)
        let fields = try reader.topLevelFields(ofObjects: refs)
        return try refs.map { try snapshot(of: $0, objectSchema, reader, topLevel: fields[$0] ?? [:]) }
    }

    private func snapshot(
        of ref: ObjectRef, _ objectSchema: ObjectSchema, _ reader: any SyncStoreReader,
        topLevel stored: [String: SyncValue]
    ) throws -> ObjectSnapshot {
        var result = ObjectSnapshot(object: ref, fields: [], times: try times(of: ref, reader))
        for property in objectSchema.persistedProperties {
            let name = property.name
            switch property.collection {
            case .none:
                result.fields.append(SyncField(name, stored[name] ?? rules.defaultValue(of: property)))
            case .list:
                let live = try reader.listElements(ref, field: name).filter { !$0.isErased }
                    .sorted { ($0.position, $0.id) < ($1.position, $1.id) }
                result.lists.append(
                    ListSnapshot(
                        field: name,
                        elements: live.map { .init(id: $0.id, position: $0.position, value: $0.value) }))
                result.times.elements += live.map {
                    .init(field: name, id: $0.id, position: $0.positionTime, value: $0.valueTime)
                }
            case .set:
                let stored = try reader.setEntries(ref, field: name)
                let present = stored.filter(\.isPresent).map(\.value)
                result.sets.append(SetSnapshot(field: name, values: present.sorted(by: SyncValue.order)))
                result.times.entries += stored.map { .init(field: name, key: $0.value, time: $0.time) }
            case .map:
                let stored = try reader.mapEntries(ref, field: name)
                let entries = stored.compactMap { entry in entry.value.map { SyncField(entry.key, $0) } }
                result.times.entries += stored.map { .init(field: name, key: .string($0.key), time: $0.time) }
                result.maps.append(MapSnapshot(field: name, entries: entries.sorted { $0.name < $1.name }))
            }
        }
        result.fields.sort { $0.name < $1.name }
        return result
    }

    /// The times of the object's erase and of every field path the store keeps.
    private func times(of ref: ObjectRef, _ reader: any SyncStoreReader) throws -> SnapshotTimes {
        let object = try reader.object(ref)
        return SnapshotTimes(
            erasedAt: object?.erasedAt ?? 0, erasedBy: object?.erasedBy ?? 0, fields: try reader.fieldTimes(of: ref))
    }
}
