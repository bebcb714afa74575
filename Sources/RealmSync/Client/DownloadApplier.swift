import Foundation
import RealmDatabase

/// Applies remote instructions to the replica inside the client's write transaction, by the rules
/// of docs/SYNC.md "How a replica applies a download": a remote write is skipped when a pending
/// local one it meets is later; a remote erase (replacement, list erase) voids the pending local
/// instructions the server would drop as concurrent with it. Data goes through the object API; the
/// list mirror is kept here, element by element.
struct DownloadApplier {
    let realm: Realm
    let store: ClientStore
    let syncedClasses: Set<String>
    /// The local changesets not yet acknowledged, as they will be uploaded (voiding rewrites them).
    private(set) var pending: [Changeset]
    private(set) var writes: PendingWrites
    private(set) var voided = false

    init(realm: Realm, store: ClientStore, syncedClasses: Set<String>, pending: [Changeset]) {
        self.realm = realm
        self.store = store
        self.syncedClasses = syncedClasses
        self.pending = pending
        self.writes = PendingWrites(pending)
    }

    /// Stops counting as pending the local changesets (by client version) the server integrated
    /// before the next remote changeset: it was decided against them. They are acknowledged, so
    /// they leave the history with this download. A local erase among them settles its deferred
    /// remote erase (`erase`).
    mutating func forgetPending(_ integratedBefore: (UInt64) -> Bool) throws {
        let integrated = pending.filter { integratedBefore($0.clientVersion) }
        guard !integrated.isEmpty else { return }
        pending.removeAll { integratedBefore($0.clientVersion) }
        writes = PendingWrites(pending)
        for (index, changeset) in integrated.enumerated() {
            for (position, instruction) in changeset.instructions.enumerated() {
                guard case .erase(let ref) = instruction else { continue }
                // What follows the erase in its own changeset comes after it, as the later changesets do.
                var rest = changeset
                rest.instructions = Array(changeset.instructions[(position + 1)...])
                try settleDeferredErase(ref, later: [rest] + integrated[(index + 1)...] + pending)
            }
        }
    }

    /// A remote erase. Pending writes on the object before a pending local erase are concurrent
    /// with it: the server drops them. A pending local erase is never dropped as concurrent, only
    /// when the object no longer exists when it arrives: whether it (and a create after it)
    /// survives depends on whether a remote create comes in between. The decision waits, in the
    /// file, until the local erase is integrated (`settleDeferredErase`); meanwhile the local
    /// object stays as the pending changesets made it.
    private mutating func erase(_ ref: ObjectRef) throws {
        guard writes.erased.contains(ref) else {
            try deleteObject(ref)
            void { $0.object == ref }
            return
        }
        voidBeforeFirstErase(of: ref)
        // The pending changesets so far were made before this erase was seen: concurrent with it.
        try store.deferErase(ref, concurrentThrough: pending.last?.clientVersion ?? 0)
    }

    /// The local erase of `ref` reached the server. If something created the object after the
    /// remote erase, the local erase and what follows it won. If not, the server dropped the local
    /// erase, and what follows it up to the next pending local erase (a create is concurrent with
    /// the remote erase; writes find no object): that next erase is deferred in turn, or, when
    /// there is none, the object goes, with what is pending on it from changesets concurrent with
    /// the remote erase. Later ones stay pending: a remote create before they arrive brings the
    /// object back for them (`replayPending`).
    ///
    /// A local create made after the remote erase was seen (`later`, past the concurrent client
    /// versions) is not concurrent with it: the server creates the object again, so it stays.
    private mutating func settleDeferredErase(_ ref: ObjectRef, later: [Changeset]) throws {
        guard let deferred = try store.takeDeferredErase(ref), !deferred.recreated else { return }
        if writes.erased.contains(ref) {
            voidBeforeFirstErase(of: ref)
            try store.deferErase(ref, concurrentThrough: deferred.concurrentThrough)
            return
        }
        let createdAgain = later.contains { changeset in
            changeset.clientVersion > deferred.concurrentThrough
                && changeset.instructions.contains { if case .create(ref, _) = $0 { true } else { false } }
        }
        if !createdAgain { try deleteObject(ref) }
        void(through: deferred.concurrentThrough) { $0.object == ref }
    }

    /// Ends the download: the local changesets it acknowledges leave pending; the rest is stored.
    mutating func finish(acknowledged: UInt64) throws {
        try forgetPending { $0 <= acknowledged }
        try savePending()
    }

    private mutating func voidBeforeFirstErase(of ref: ObjectRef) {
        var changed = false
        for i in pending.indices {
            if let first = pending[i].instructions.firstIndex(of: .erase(ref)) {
                let before = pending[i].instructions[..<first].filter { $0.object != ref }
                if before.count != first {
                    pending[i].instructions = Array(before) + pending[i].instructions[first...]
                    changed = true
                }
                break
            }
            let count = pending[i].instructions.count
            pending[i].instructions.removeAll { $0.object == ref }
            if pending[i].instructions.count != count { changed = true }
        }
        guard changed else { return }
        voided = true
        writes = PendingWrites(pending)
    }

    var links: UnresolvedLinks {
        UnresolvedLinks(realm: realm, store: store, syncedClasses: syncedClasses)
    }

    /// After a bootstrap: deletes the local objects the server no longer has (created by changesets
    /// integrated before the snapshot, then erased) unless a pending changeset creates them. Pending
    /// writes on them stay: a remote create before they arrive brings the object back for them.
    func deleteObjects(notIn snapshot: Set<ObjectRef>) throws {
        let created = Set(
            pending.flatMap(\.instructions).compactMap { instruction -> ObjectRef? in
                if case .create(let ref, _) = instruction { return ref }
                return nil
            })
        var absent: [ObjectRef] = []
        for className in syncedClasses.sorted() {
            for object in try realm.objects(className) {
                let ref = try SyncValueConversion.ref(of: object)
                if !snapshot.contains(ref) && !created.contains(ref) { absent.append(ref) }
            }
        }
        for ref in absent { try deleteObject(ref) }
    }

    /// After a bootstrap: list elements, set values and map keys of a snapshot object that the
    /// replica has from changesets integrated before the snapshot, but the snapshot lacks, were
    /// removed on the server; they go unless a pending changeset inserts (writes) them.
    func removeEntries(notIn snapshot: [ObjectSnapshot]) throws {
        for objectSnapshot in snapshot {
            let ref = objectSnapshot.object
            // Nothing to compare without a list in the class or a set or map in the snapshot.
            let hasLists = realm.schema[ref.className]?.properties.contains { $0.collection == .list } ?? true
            guard hasLists || !objectSnapshot.sets.isEmpty || !objectSnapshot.maps.isEmpty,
                let object = try SyncValueConversion.object(ref, in: realm)
            else { continue }
            for property in object.objectSchema?.properties ?? [] where property.collection == .list {
                let listed = objectSnapshot.lists.first { $0.field == property.name }?.elements.map(\.id) ?? []
                let kept = Set(listed).union(pendingListInserts(ref, property.name))
                try withList(object, property.name) { list in
                    for id in list.elementIDs where !kept.contains(id) { try list.erase(id) }
                }
            }
            guard let key = object.objectKey else { continue }
            // Set values waiting for their objects are not in the set: the snapshot decides them too.
            let waiting = try store.unresolved(ref.className, key)
            for set in objectSnapshot.sets {
                let pendingValues = pendingSetValues(ref, set.field, winningOver: objectSnapshot.times)
                let kept = Set(set.values + pendingValues)
                let local = try object.dynamicMutableSet(set.field)
                for value in try local.values() where !kept.contains(try SyncValueConversion.syncValue(value)) {
                    try local.remove(value)
                }
                for (field, _, target) in waiting where field == set.field && !kept.contains(.link(target)) {
                    try store.forgetUnresolved(.setValue(ref.className, key, field, target))
                }
            }
            for map in objectSnapshot.maps {
                let kept = Set(map.entries.map(\.name)).union(
                    pendingMapKeys(ref, map.field, winningOver: objectSnapshot.times))
                let local = try object.dynamicMap(map.field)
                for mapKey in local.keys where !kept.contains(mapKey) {
                    try local.removeValue(forKey: mapKey)
                    try store.forgetUnresolved(.mapKey(ref.className, key, map.field, mapKey))
                }
            }
        }
    }

    /// The values of the set that pending writes later than the server's (`times`) keep.
    private func pendingSetValues(_ ref: ObjectRef, _ field: String, winningOver times: SnapshotTimes) -> [SyncValue] {
        pending.flatMap { changeset in
            changeset.instructions.compactMap { instruction in
                switch instruction {
                case .setAdd(ref, field, let value), .setRemove(ref, field, let value):
                    return WriteTime(of: changeset) > times.time(of: field, key: value) ? value : nil
                default: return nil
                }
            }
        }
    }

    private func pendingListInserts(_ ref: ObjectRef, _ field: String) -> Set<ElementID> {
        Set(
            pending.flatMap(\.instructions).compactMap { instruction in
                if case .listInsert(ref, field, let id, _, _) = instruction { return id }
                return nil
            })
    }

    /// The keys of the map that pending writes later than the server's (`times`) keep.
    private func pendingMapKeys(_ ref: ObjectRef, _ field: String, winningOver times: SnapshotTimes) -> Set<String> {
        Set(
            pending.flatMap { changeset in
                changeset.instructions.compactMap { instruction -> String? in
                    switch instruction {
                    case .mapPut(ref, field, let key, _), .mapRemove(ref, field, let key):
                        return WriteTime(of: changeset) > times.time(of: field, key: .string(key)) ? key : nil
                    default: return nil
                    }
                }
            })
    }

    /// Deletes the object a remote erase (or a removal from the view) names; links to it become
    /// unresolved.
    func deleteObject(_ ref: ObjectRef) throws {
        guard let object = try SyncValueConversion.object(ref, in: realm) else { return }
        try links.targetWillBeErased(object, ref)
        try realm.delete(object)
    }

    /// Stores the pending changesets again when voiding changed them.
    private func savePending() throws {
        guard voided else { return }
        for changeset in pending { try store.appendHistory(changeset) }
    }

    mutating func apply(_ changeset: Changeset) throws {
        let time = WriteTime(of: changeset)
        for instruction in changeset.instructions { try apply(instruction, at: time) }
    }

    /// `replayingPending`: a create replays the pending writes on the object at once (`replayPending`);
    /// an object sent whole replays them itself, after its data, and judges the pending writes inside
    /// its list elements against its times (`ofWholeObject`), not as concurrent with a new element.
    mutating func apply(
        _ instruction: Instruction, at time: WriteTime, replayingPending: Bool = true, ofWholeObject: Bool = false
    ) throws {
        let ref = instruction.object
        if case .erase = instruction { return try erase(ref) }
        if writes.erased.contains(ref) {
            // The pending local erase will wipe what this writes; a create here means the object
            // will exist when that erase reaches the server, so the erase is kept (`erase`).
            if case .create = instruction { try store.markRecreated(ref) }
            return
        }
        switch instruction {
        case .create(_, let fields):
            try create(ref, fields: fields, at: time, replayingPending: replayingPending)
        case .set(_, let path, let value):
            guard let object = try SyncValueConversion.object(ref, in: realm) else { return }
            try set(object, ref, path: path, value: value, at: time)
        default:
            let overridden = writes.overrides(instruction, at: time)
            if !overridden, let object = try SyncValueConversion.object(ref, in: realm) {
                try write(instruction, on: object, at: time)
            }
            // A remote list erase dooms the pending moves and sets of the element and the writes
            // inside it; a remote element set (a new embedded object) the writes inside it.
            if case .listErase(_, let field, let element) = instruction {
                void {
                    switch $0 {
                    case .listMove(ref, field, element, _), .listSet(ref, field, element, _): return true
                    default: return Self.writesInside($0, ref, field, element)
                    }
                }
            }
            // The server keeps the later of two values of an element: the pending earlier ones are
            // dropped there and no longer hold back a later remote write inside the element
            // (`PendingWrites.fieldIsLater`), as `voidEarlierWrites` does for a field.
            if case .listSet(_, let field, let element, _) = instruction, !ofWholeObject, !overridden {
                void { changeset, pendingInstruction in
                    if case .listSet(ref, field, element, _) = pendingInstruction {
                        return WriteTime(of: changeset) < time
                    }
                    return Self.writesInside(pendingInstruction, ref, field, element)
                }
            }
        }
    }

    /// Whether `instruction` is a `set` by a path through element `element` of list `field` of `ref`.
    static func writesInside(_ instruction: Instruction, _ ref: ObjectRef, _ field: String, _ element: ElementID)
        -> Bool
    {
        guard case .set(ref, let path, _) = instruction, let (f, e) = ElementStep.element(startingPath: path) else {
            return false
        }
        return f == field && e == element
    }

    private mutating func create(
        _ ref: ObjectRef, fields: [SyncField], at time: WriteTime, replayingPending: Bool
    ) throws {
        guard let schema = realm.schema[ref.className], let pk = schema.primaryKey else { return }
        let kept = fields.filter { $0.name != pk && !writes.fieldIsLater(ref, [$0.name], than: time) }
        guard let object = try SyncValueConversion.object(ref, in: realm) else {
            var value: [String: RealmValue] = [pk: SyncValueConversion.realmValue(ref.primaryKey)]
            for field in kept { value[field.name] = try SyncValueConversion.realmValue(field.value, in: realm) }
            let created = try realm.create(ref.className, value: .dictionary(value))
            for field in kept {
                // A link to the object itself could not be made before the object existed.
                if case .link(ref) = field.value { try created.setValue(.object(created), forKey: field.name) }
                // Only a link or mixed field can hold an unresolved link; only pending writes can be voided.
                if let property = schema[field.name], UnresolvedLinks.holdsLinks(property) {
                    try links.fieldWritten(created, field.name, field.value)
                }
                if !pending.isEmpty { voidEarlierWrites(ref, [field.name], before: time) }
            }
            // Most downloads find no link waiting at all: one cheap look before the one per object.
            if try store.hasUnresolved() { try links.objectCreated(created, ref: ref) }
            if replayingPending { try replayPending(on: ref, created, existed: false) }
            return
        }
        for field in kept { try set(object, ref, path: [field.name], value: field.value, at: time) }
        if replayingPending { try replayPending(on: ref, object, existed: true) }
    }

    /// A remote create: the server will apply the pending local writes on the object after it. The
    /// ones made on an earlier incarnation this replica deleted (a lost erase settled,
    /// `settleDeferredErase`) are lost locally: the replica applies them again now. They are the
    /// pending writes on the object before its last pending local create (all of them when the
    /// object did not exist here, none when it did and no pending create made it); the ones after
    /// it are in the replica already. A replayed write the local create or a write after it
    /// overwrites (the same field, or an ancestor: the create writes every field) is left out: the
    /// server applies it first, so the replica's later value stands.
    mutating func replayPending(on ref: ObjectRef, _ object: DynamicObject, existed: Bool) throws {
        guard !pending.isEmpty else { return }
        let lastCreate = pending.lastIndex { changeset in
            changeset.instructions.contains { if case .create(ref, _) = $0 { true } else { false } }
        }
        let end = lastCreate ?? (existed ? pending.startIndex : pending.endIndex)
        let later = PendingWrites(Array(pending[end...]))
        for changeset in pending[..<end] {
            let time = WriteTime(of: changeset)
            for instruction in changeset.instructions where instruction.object == ref {
                guard let kept = Self.unlessOverwritten(instruction, by: later, after: time) else { continue }
                try write(kept, on: object, at: time)
            }
        }
    }

    /// `instruction` without what a later pending write overwrites (nil when nothing is left): the
    /// server applies the later one after it. An insert a later pending clear erases is left out too;
    /// element moves and sets are replayed as they are.
    private static func unlessOverwritten(
        _ instruction: Instruction, by later: PendingWrites, after time: WriteTime
    ) -> Instruction? {
        switch instruction {
        case .create(let ref, let fields):
            return .create(ref, fields: fields.filter { !later.fieldIsLater(ref, [$0.name], than: time) })
        case .listMove, .listSet:
            return instruction
        default:
            return later.overrides(instruction, at: time) ? nil : instruction
        }
    }

    /// Writes what `instruction` says to `object`, as it says it: a remote one past the checks
    /// against the pending writes (`apply`), or a replayed pending one.
    func write(_ instruction: Instruction, on object: DynamicObject, at time: WriteTime) throws {
        switch instruction {
        case .erase:
            return
        case .create(_, let fields):
            for field in fields where field.name != object.objectSchema?.primaryKey {
                try writeField(object, path: [field.name], value: field.value)
            }
        case .set(_, let path, let value):
            try writeField(object, path: path, value: value)
        case .listInsert(_, let field, let element, let position, let value):
            try withList(object, field) { try $0.insert(element, position, value) }
        case .listErase(_, let field, let element):
            try withList(object, field) { try $0.erase(element) }
        case .listMove(_, let field, let element, let position):
            try withList(object, field) { try $0.move(element, to: position) }
        case .listSet(_, let field, let element, let value):
            try withList(object, field) { try $0.set(element, value) }
        case .listClear(_, let field):
            try withList(object, field) { try $0.clear(before: time) }
        case .setAdd(_, let field, let value), .setRemove(_, let field, let value):
            let adds = if case .setAdd = instruction { true } else { false }
            guard let item = try SyncValueConversion.collectionItem(value, in: realm) else {
                // A link to an object this replica lacks: the set keeps it waiting, out of sight.
                guard case .link(let target) = value, let key = object.objectKey else { return }
                let site = LinkSite.setValue(object.className, key, field, target)
                if adds { try store.rememberUnresolved(site, target) } else { try store.forgetUnresolved(site) }
                return
            }
            let set = try object.dynamicMutableSet(field)
            if adds { try set.insert(item) } else { try set.remove(item) }
        case .mapPut(_, let field, let key, let value):
            let waits = try object.objectKey.map {
                try links.entryWritten(.mapKey(object.className, $0, field, key), value)
            }
            // A link to an object this replica lacks reads null at its key until the object comes.
            let item = waits == true ? .null : try SyncValueConversion.realmValue(value, in: realm)
            try object.dynamicMap(field).setValue(item, forKey: key)
        case .mapRemove(_, let field, let key):
            if let owner = object.objectKey {
                try links.entryWritten(.mapKey(object.className, owner, field, key), nil)
            }
            try object.dynamicMap(field).removeValue(forKey: key)
        }
    }

    /// Writes `value` at `path` below `object`; returns the object written to, nil (nothing written)
    /// when an embedded object on the way is missing.
    /// A path through an element of a list of embedded objects (`ElementStep`) starts at that
    /// element's object, and leaves the list's mirror holding the element as written.
    @discardableResult
    func writeField(_ object: DynamicObject, path: [String], value: SyncValue) throws -> DynamicObject? {
        guard let last = path.last else { return nil }
        if let (field, id) = ElementStep.element(startingPath: path) {
            var written: DynamicObject?
            try withList(object, field) { list in
                guard let element = try list.object(id) else { return }
                written = try write(value, at: path.dropFirst(2), below: element)
                try list.refreshMirror(id)
            }
            return written
        }
        let target = try write(value, at: path[...], below: object)
        if path.count == 1, target != nil { try links.fieldWritten(object, last, value) }
        return target
    }

    /// Writes `value` at `path` (field names through to-one embedded objects) below `object`;
    /// returns the object written to, nil when an embedded object on the way is missing.
    private func write(_ value: SyncValue, at path: ArraySlice<String>, below object: DynamicObject) throws
        -> DynamicObject?
    {
        guard let last = path.last else { return nil }
        var target = object
        for name in path.dropLast() {
            guard case .object(let next) = try target.value(forKey: name) else { return nil }
            target = next
        }
        try target.setValue(try SyncValueConversion.realmValue(value, in: realm), forKey: last)
        return target
    }

    /// `whole`: the times of an object sent whole, whose embedded object at `path` is not a new
    /// replacement: the pending writes below it the server keeps are written again (`rewritePending`).
    mutating func set(
        _ object: DynamicObject, _ ref: ObjectRef, path: [String], value: SyncValue, at time: WriteTime,
        whole: SnapshotTimes? = nil
    ) throws {
        guard !writes.fieldIsLater(ref, path, than: time),
            let target = try writeField(object, path: path, value: value),
            let last = path.last
        else { return }
        voidEarlierWrites(ref, path, before: time)
        if let property = target.objectSchema?[last], holdsEmbedded(property) {
            if let whole { return try rewritePending(below: path, of: ref, on: object, whole) }
            // A replacement: the server drops the pending writes below it as concurrent.
            void {
                guard case .set(ref, let p, _) = $0 else { return false }
                return p.count > path.count && Array(p.prefix(path.count)) == path
            }
        }
    }

    /// A to-one link to an embedded class: setting it replaces the object below.
    private func holdsEmbedded(_ property: Property) -> Bool {
        guard property.type == .object, !property.isCollection, let target = property.objectClassName else {
            return false
        }
        return realm.schema[target]?.isEmbedded ?? false
    }

    /// A remote write to `path` at `time` dooms the pending local writes to the same path made
    /// before it: the server will find the path's time later than theirs and drop them. Voided,
    /// they no longer hold back a later remote write inside the path (`PendingWrites.fieldIsLater`:
    /// a pending replacement of an ancestor beats it only when the server keeps that replacement).
    private mutating func voidEarlierWrites(_ ref: ObjectRef, _ path: [String], before time: WriteTime) {
        var changed = false
        for i in pending.indices where WriteTime(of: pending[i]) < time {
            let before = pending[i].instructions
            pending[i].instructions = before.compactMap { instruction in
                switch instruction {
                case .set(ref, path, _):
                    return nil
                case .create(ref, let fields) where path.count == 1:
                    return .create(ref, fields: fields.filter { $0.name != path[0] })
                default:
                    return instruction
                }
            }
            if pending[i].instructions != before { changed = true }
        }
        guard changed else { return }
        voided = true
        writes = PendingWrites(pending)
    }

    /// Removes the pending instructions `matching` from the local changesets (up to client
    /// version `through`).
    mutating func void(through: UInt64 = .max, _ matching: (Instruction) -> Bool) {
        void { changeset, instruction in changeset.clientVersion <= through && matching(instruction) }
    }

    /// Removes the pending instructions `matching` (with the changeset that holds them).
    mutating func void(_ matching: (Changeset, Instruction) -> Bool) {
        voidEach { changeset, _, instruction in matching(changeset, instruction) }
    }

    /// Removes the pending instructions `matching` (with the changeset that holds them and their
    /// index in it).
    mutating func voidEach(_ matching: (Changeset, Int, Instruction) -> Bool) {
        var changed = false
        for i in pending.indices {
            let changeset = pending[i]
            // Most calls void nothing: the changeset is rebuilt only when something goes.
            let doomed = changeset.instructions.indices.filter { matching(changeset, $0, changeset.instructions[$0]) }
            guard !doomed.isEmpty else { continue }
            let gone = Set(doomed)
            pending[i].instructions = changeset.instructions.indices.filter { !gone.contains($0) }
                .map { changeset.instructions[$0] }
            changed = true
        }
        guard changed else { return }
        voided = true
        writes = PendingWrites(pending)
    }

    private func withList(_ object: DynamicObject, _ field: String, _ body: (inout SyncedList) throws -> Void) throws {
        guard let property = object.objectSchema?[field], property.collection == .list, let key = object.objectKey
        else { return }
        var list = try SyncedList(
            realm: realm, store: store, list: try object.dynamicList(field),
            table: Realm.collectionTableName(object.className, property), owner: key)
        try body(&list)
    }
}
