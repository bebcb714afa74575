import Foundation
import RealmDatabase
import RealmSync

/// The simulation's oracle: the server's state computed independently of the server, from the
/// integration log (the changesets as uploaded, in the order the server integrated them, with
/// their server versions), by the rules of docs/SYNC.md "How the server decides" (0–5), on plain
/// dictionaries. Its `canonicalState` is what the server's (and every converged replica's) must be.
struct Oracle {
    enum LogError: Error, Equatable {
        /// A changeset skipped a client version of its file (the server must not have integrated it).
        case clientVersionGap(clientFileID: UInt64, expected: UInt64, found: UInt64)
        /// Server versions are not dense and increasing.
        case serverVersionOutOfOrder(expected: UInt64, found: UInt64)
        /// With permissions, a changeset whose writer (user and subscriptions) nobody recorded.
        case writerUnknown(clientFileID: UInt64, serverVersion: UInt64)
    }

    let schema: Schema
    /// The rules the server checks writes against (docs/SYNC.md "Permissions"); nil: none, every
    /// write stands (part 1). With them, `OraclePermissions.swift` decides object by object.
    let permissions: SyncPermissions?
    // Set only here and by the permission checks, which restore an object's state when they refuse it.
    var objects: [ObjectRef: OracleObject] = [:]
    /// The last erase of each object, kept after it is created again (rule 1).
    var erasures: [ObjectRef: OracleEvent] = [:]
    private(set) var highestClientVersion: [UInt64: UInt64] = [:]
    private(set) var serverVersion: UInt64 = 0
    /// The objects the permission checks refused: each a compensating write the writer must get.
    var refusals: [OracleRefusal] = []

    init(schema: Schema, permissions: SyncPermissions? = nil) {
        self.schema = schema
        self.permissions = permissions
    }

    /// The canonical state after integrating `log` from an empty store.
    static func state(
        schema: Schema, log: [(serverVersion: UInt64, changeset: Changeset)]
    ) throws -> CanonicalState {
        var oracle = Oracle(schema: schema)
        for entry in log { try oracle.integrate(entry.changeset, at: entry.serverVersion) }
        return oracle.canonicalState
    }

    // MARK: - Rule 0: idempotence and order

    /// `writer`: who uploaded `c` and the subscriptions its session had; required with permissions.
    mutating func integrate(_ c: Changeset, at v: UInt64, writer: OracleWriter? = nil) throws {
        let highest = highestClientVersion[c.clientFileID] ?? 0
        if c.clientVersion <= highest { return }  // already integrated: acknowledged again
        guard c.clientVersion == highest + 1 else {
            throw LogError.clientVersionGap(clientFileID: c.clientFileID, expected: highest + 1, found: c.clientVersion)
        }
        guard v == serverVersion + 1 else {
            throw LogError.serverVersionOutOfOrder(expected: serverVersion + 1, found: v)
        }
        serverVersion = v
        highestClientVersion[c.clientFileID] = c.clientVersion
        let w = WriteTime(clock: c.clock, clientFileID: c.clientFileID)
        if let permissions {
            guard let writer else { throw LogError.writerUnknown(clientFileID: c.clientFileID, serverVersion: v) }
            applyChecked(c, w: w, v: v, writer: writer, permissions: permissions)
            return
        }
        for instruction in c.instructions { apply(instruction, of: c, w: w, v: v, creator: writer?.user ?? "") }
    }

    // MARK: - Rule 2: objects

    private func isConcurrentWithErase(_ o: ObjectRef, _ c: Changeset) -> Bool {
        erasures[o]?.isConcurrent(with: c) ?? false
    }

    /// One instruction by the merge rules; an object it creates records `creator` (the writer's user).
    mutating func apply(_ instruction: Instruction, of c: Changeset, w: WriteTime, v: UInt64, creator: String) {
        let o = instruction.object
        switch instruction {
        case .create(_, let fields):
            if isConcurrentWithErase(o, c) { return }
            if objects[o] == nil { objects[o] = OracleObject(creator: creator) }
            for field in fields { set(o, path: [field.name], value: field.value, c: c, w: w, v: v) }
            return
        case .erase:
            guard objects[o] != nil else { return }
            objects[o] = nil
            erasures[o] = OracleEvent(at: v, by: c.clientFileID)
            return
        default:
            guard objects[o] != nil, !isConcurrentWithErase(o, c) else { return }
        }
        switch instruction {
        case .set(_, let path, let value): set(o, path: path, value: value, c: c, w: w, v: v)
        case .listInsert(_, let field, let e, let position, let value):
            listInsert(o, field, e, position, value, w: w)
        case .listErase(_, let field, let e):
            guard objects[o]?.lists[field]?.elements[e]?.isErased == false else { return }
            objects[o]?.lists[field]?.elements[e]?.isErased = true
        case .listMove(_, let field, let e, let position):
            guard let element = objects[o]?.lists[field]?.elements[e], !element.isErased, w >= element.positionTime
            else { return }
            objects[o]?.lists[field]?.elements[e]?.position = position
            objects[o]?.lists[field]?.elements[e]?.positionTime = w
        case .listSet(_, let field, let e, let value):
            guard var object = objects[o], let element = object.lists[field]?.elements[e], !element.isErased,
                w >= element.valueTime
            else { return }
            object.lists[field]?.elements[e]?.value = value
            object.lists[field]?.elements[e]?.valueTime = w
            // A new embedded object in the element replaces what was written inside it.
            if case .embedded = value { replace(&object, at: [field, ElementStep.name(e)], c: c, v: v) }
            objects[o] = object
        case .listClear(_, let field): listClear(o, field, w: w)
        case .setAdd(_, let field, let value), .setRemove(_, let field, let value):
            let present: Bool
            if case .setAdd = instruction { present = true } else { present = false }
            guard w >= objects[o]?.sets[field]?[value]?.time ?? .zero else { return }
            objects[o]?.sets[field, default: [:]][value] = (present, w)
        case .mapPut(_, let field, let key, let value): mapWrite(o, field, key, value, w: w)
        case .mapRemove(_, let field, let key): mapWrite(o, field, key, nil, w: w)
        case .create, .erase: break
        }
    }

    // MARK: - Rule 3: fields

    private mutating func set(_ o: ObjectRef, path: [String], value: SyncValue, c: Changeset, w: WriteTime, v: UInt64) {
        if let (field, e) = ElementStep.element(startingPath: path) {
            return setInElement(o, field, e, path: path, value: value, c: c, w: w, v: v)
        }
        guard var object = objects[o], !path.isEmpty else { return }
        for depth in 1..<path.count {
            let prefix = Array(path.prefix(depth))
            guard case .embedded = object.value(at: prefix[...]) else { return }
            if object.replacements[prefix]?.isConcurrent(with: c) ?? false { return }
        }
        guard w >= object.times[path] ?? .zero else { return }
        let old = object.value(at: path[...])
        object.store(value, at: path)
        object.times[path] = w
        if case .embedded = value {
            replace(&object, at: path, c: c, v: v)
        } else if case .embedded = old {
            replace(&object, at: path, c: c, v: v)
        }
        objects[o] = object
    }

    /// Rule 3 inside a live element of a list of embedded objects: the element's replacement (a
    /// list set) and those of the embedded objects on the way must not be concurrent.
    private mutating func setInElement(
        _ o: ObjectRef, _ field: String, _ e: ElementID, path: [String], value: SyncValue, c: Changeset,
        w: WriteTime, v: UInt64
    ) {
        guard var object = objects[o], let element = object.lists[field]?.elements[e], !element.isErased else {
            return
        }
        for depth in 2..<path.count {
            let prefix = Array(path.prefix(depth))
            guard case .embedded = OracleObject.value(at: prefix.dropFirst(2), in: element.value) else { return }
            if object.replacements[prefix]?.isConcurrent(with: c) ?? false { return }
        }
        guard w >= object.times[path] ?? .zero else { return }
        let old = OracleObject.value(at: path.dropFirst(2), in: element.value)
        object.lists[field]?.elements[e]?.value = OracleObject.replacing(
            in: element.value, path: path.dropFirst(2), with: value)
        object.times[path] = w
        if case .embedded = value {
            replace(&object, at: path, c: c, v: v)
        } else if case .embedded? = old {
            replace(&object, at: path, c: c, v: v)
        }
        objects[o] = object
    }

    private func replace(_ object: inout OracleObject, at path: [String], c: Changeset, v: UInt64) {
        object.replacements[path] = OracleEvent(at: v, by: c.clientFileID)
        object.forget(below: path)
    }

    // MARK: - Rules 4 and 5: lists, sets, maps

    private mutating func listInsert(
        _ o: ObjectRef, _ field: String, _ e: ElementID, _ position: FractionalPosition, _ value: SyncValue,
        w: WriteTime
    ) {
        let list = objects[o]?.lists[field] ?? OracleList()
        guard list.elements[e] == nil, WriteTime(clock: e.clock, clientFileID: e.clientFileID) >= list.clearedAt
        else { return }
        objects[o]?.lists[field, default: OracleList()].elements[e] = OracleListElement(
            position: position, positionTime: w, value: value, valueTime: w)
    }

    private mutating func listClear(_ o: ObjectRef, _ field: String, w: WriteTime) {
        var list = objects[o]?.lists[field] ?? OracleList()
        guard w > list.clearedAt else { return }
        list.clearedAt = w
        for (id, element) in list.elements
        where !element.isErased && WriteTime(clock: id.clock, clientFileID: id.clientFileID) < w {
            list.elements[id]?.isErased = true
        }
        objects[o]?.lists[field] = list
    }

    private mutating func mapWrite(_ o: ObjectRef, _ field: String, _ key: String, _ value: SyncValue?, w: WriteTime) {
        guard w >= objects[o]?.maps[field]?[key]?.time ?? .zero else { return }
        objects[o]?.maps[field, default: [:]][key] = (value, w)
    }
}
