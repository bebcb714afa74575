import Foundation
import RealmDatabase

/// The element ids one commit gives its list inserts: the commit's clock, the client file id and a
/// running index.
struct ElementIDSource {
    let clock: HLCTimestamp
    let clientFileID: UInt64
    private var index: UInt32 = 0

    init(clock: HLCTimestamp, clientFileID: UInt64) {
        self.clock = clock
        self.clientFileID = clientFileID
    }

    mutating func next() -> ElementID {
        defer { index &+= 1 }
        return ElementID(clock: clock, clientFileID: clientFileID, index: index)
    }

    /// The commit's bytes a run of its inserts is tagged with (`FractionalPosition.startingRun`):
    /// the clock then the client file id, big-endian, so that runs order as their commits.
    var runTag: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: clock.rawValue >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: clientFileID >> (56 - 8 * $0)) }
    }
}

/// Turns a list's content now into instructions against its mirror (the content at the last
/// commit), and moves the mirror to the content now. (Sets and maps need no mirror: their edits
/// are captured as they are made, `SetAndMapEdits`.)
struct CollectionDiff {
    let store: ClientStore
    /// The objects the commit created, by class (nil: unknown). An element of a list of embedded
    /// objects that changed but holds the same object was edited in place: it travels as writes
    /// inside it by path, not as a new element value (`elementWrites`).
    var created: [String: KeySet]? = nil

    func instructions(
        for property: Property, of object: DynamicObject, key: Int64, ref: ObjectRef, ids: inout ElementIDSource
    ) throws -> [Instruction] {
        guard property.collection == .list else { return [] }
        let table = Realm.collectionTableName(object.className, property)
        return try listInstructions(property.name, of: object, key: key, ref: ref, table: table, ids: &ids)
    }

    // MARK: Lists

    /// Removed rows → `listErase` (or one `listClear` when every old element went); rows out of
    /// order → `listMove` (those outside the longest run already in mirror order); new rows →
    /// `listInsert`; a surviving row whose value changed → `listSet`. New positions go between the
    /// neighbours, so the list's order stays the (position, id) order of its mirror. Consecutive
    /// new positions (a run: `append` 1, 2) share the run's start as a prefix, so that two devices
    /// appending at once keep each one's run together (1, 2, 3, 4, as Realm merges them), where
    /// positions halving the same gap on both would interleave them (1, 3, 2, 4).
    private func listInstructions(
        _ field: String, of object: DynamicObject, key: Int64, ref: ObjectRef, table: String,
        ids: inout ElementIDSource
    ) throws -> [Instruction] {
        let rows = try store.listRows(table: table, owner: key)
        let items = try object.dynamicList(field).values()
        let values = try items.map(SyncValueConversion.syncValue)
        guard rows.count == values.count else {
            throw SyncError(.otherError, "The list '\(table)' of \(ref) changed while it was read")
        }
        // Hidden elements (links to objects the replica lacks) are not in the list: no local edit
        // reaches them, except a clear.
        var mirror = try store.listMirror(table: table, owner: key)
        let hidden = mirror.filter(\.isHidden)
        mirror.removeAll(where: \.isHidden)
        var instructions: [Instruction] = []
        let current = Set(rows)
        let removed = mirror.filter { !current.contains($0.row) }
        if !mirror.isEmpty && removed.count == mirror.count {
            instructions.append(.listClear(ref, field: field))
            for element in hidden { try store.forgetElement(table: table, owner: key, row: element.row) }
        } else {
            instructions += removed.map { .listErase(ref, field: field, element: $0.id) }
        }
        for element in removed { try store.forgetElement(table: table, owner: key, row: element.row) }
        mirror.removeAll { !current.contains($0.row) }

        let byRow = Dictionary(mirror.map { ($0.row, $0) }, uniquingKeysWith: { a, _ in a })
        let surviving = rows.compactMap { byRow[$0] }
        let kept = Self.longestIncreasingRun(surviving.map(\.position)).map { surviving[$0].row }
        let keptRows = Set(kept)

        // The position of the next kept element after each index, in local order.
        var upperBounds = [FractionalPosition?](repeating: nil, count: rows.count)
        var upper: FractionalPosition? = nil
        for i in stride(from: rows.count - 1, through: 0, by: -1) {
            upperBounds[i] = upper
            if keptRows.contains(rows[i]), let element = byRow[rows[i]] { upper = element.position }
        }
        var previous: FractionalPosition? = nil
        // The run of new positions being given: its start and how many it has given.
        var run: (start: FractionalPosition, given: UInt32)?
        for (i, row) in rows.enumerated() {
            let value = values[i]
            if keptRows.contains(row), var element = byRow[row] {
                previous = element.position
                run = nil
                if element.value != value {
                    instructions += elementWrites(ref, field, element, value, holding: items[i])
                    element.value = value
                    try store.mirrorElement(table: table, owner: key, element)
                }
                continue
            }
            let position: FractionalPosition
            if let current = run {
                position = current.start.member(current.given)
                run = (current.start, current.given + 1)
            } else {
                let lower = Self.pastHidden(hidden, after: previous, before: upperBounds[i])
                let base = FractionalPosition.between(lower, upperBounds[i])
                // A lone element needs no tag: its element id orders it among concurrent ones.
                let alone = i + 1 == rows.count || keptRows.contains(rows[i + 1])
                position = alone ? base : base.startingRun(tag: ids.runTag)
                run = (position, 1)
            }
            previous = position
            if var element = byRow[row] {
                instructions.append(.listMove(ref, field: field, element: element.id, position: position))
                if element.value != value {
                    instructions.append(.listSet(ref, field: field, element: element.id, value: value))
                }
                element.position = position
                element.value = value
                try store.mirrorElement(table: table, owner: key, element)
            } else {
                let id = ids.next()
                instructions.append(.listInsert(ref, field: field, element: id, position: position, value: value))
                try store.mirrorElement(
                    table: table, owner: key, MirroredElement(row: row, id: id, position: position, value: value))
            }
        }
        return instructions
    }

    /// A kept element whose value changed: a `listSet`, unless it holds the embedded object it held
    /// (one the commit did not create), edited in place: then a `set` by path through the element
    /// per changed field (Realm's writes inside a list element), so that concurrent writes to its
    /// other fields stay.
    private func elementWrites(
        _ ref: ObjectRef, _ field: String, _ element: MirroredElement, _ value: SyncValue, holding item: RealmValue
    ) -> [Instruction] {
        guard let created, case .object(let object) = item, let key = object.objectKey,
            !(created[object.className]?.contains(key) ?? false), case .embedded = element.value,
            case .embedded = value
        else { return [.listSet(ref, field: field, element: element.id, value: value)] }
        let start = [field, ElementStep.name(element.id)]
        return Self.changedFields(from: element.value, to: value).map { change in
            .set(ref, path: start + change.path, value: change.value)
        }
    }

    /// The fields that differ between two embedded values, by path below them (into embedded
    /// objects both hold), in name order.
    static func changedFields(from old: SyncValue, to new: SyncValue, at path: [String] = [])
        -> [(path: [String], value: SyncValue)]
    {
        guard case .embedded(let before) = old, case .embedded(let after) = new else {
            return old == new ? [] : [(path, new)]
        }
        let previous = Dictionary(before.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        return after.sorted { $0.name < $1.name }.flatMap { field in
            changedFields(from: previous[field.name] ?? .null, to: field.value, at: path + [field.name])
        }
    }

    /// The lower bound of a new position between `lower` and `upper`: past the hidden elements
    /// there, so that none shares its position (a tie would cost a move once it shows again).
    private static func pastHidden(
        _ hidden: [MirroredElement], after lower: FractionalPosition?, before upper: FractionalPosition?
    ) -> FractionalPosition? {
        hidden.reduce(lower) { bound, element in
            let p = element.position
            guard upper.map({ p < $0 }) ?? true, bound.map({ p > $0 }) ?? true else { return bound }
            return p
        }
    }

    /// The indexes of a longest strictly increasing subsequence of `positions` (patience sorting).
    /// Strictly: two kept elements with one position would leave no position between them.
    static func longestIncreasingRun(_ positions: [FractionalPosition]) -> [Int] {
        var tails: [Int] = []  // tails[k]: index ending the best run of length k + 1
        var predecessor = [Int?](repeating: nil, count: positions.count)
        for (i, p) in positions.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if positions[tails[mid]] < p { low = mid + 1 } else { high = mid }
            }
            predecessor[i] = low > 0 ? tails[low - 1] : nil
            if low == tails.count { tails.append(i) } else { tails[low] = i }
        }
        var run: [Int] = []
        var cursor = tails.last
        while let i = cursor {
            run.append(i)
            cursor = predecessor[i]
        }
        return run.reversed()
    }
}
