import Foundation
import RealmDatabase

/// One synced list of the replica and its mirror, edited by remote list instructions: elements are
/// placed by (position, id) among the local ones, so the local order stays the mirror's order.
struct SyncedList {
    let realm: Realm
    let store: ClientStore
    let list: List
    let table: String
    let owner: Int64
    /// The mirror in list order; index i is the list's element i.
    private var elements: [MirroredElement]

    init(realm: Realm, store: ClientStore, list: List, table: String, owner: Int64) throws {
        self.realm = realm
        self.store = store
        self.list = list
        self.table = table
        self.owner = owner
        try store.pruneListMirror(table: table, owner: owner)
        elements = try store.listMirror(table: table, owner: owner)
        guard elements.count == list.count else {
            throw SyncError(
                .otherError,
                "The list '\(table)' of object \(owner) has \(list.count) elements but its sync mirror \(elements.count)"
            )
        }
    }

    private static func precedes(_ a: (FractionalPosition, ElementID), _ b: (FractionalPosition, ElementID)) -> Bool {
        a.0 != b.0 ? a.0 < b.0 : a.1 < b.1
    }

    /// Where an element with this position and id goes among `elements`.
    private func index(for position: FractionalPosition, _ id: ElementID) -> Int {
        elements.firstIndex { Self.precedes((position, id), ($0.position, $0.id)) } ?? elements.count
    }

    private func index(of id: ElementID) -> Int? { elements.firstIndex { $0.id == id } }

    /// The ids of the elements, in list order.
    var elementIDs: [ElementID] { elements.map(\.id) }

    /// Inserts an element (an id already here is a repeat: inserts are idempotent).
    mutating func insert(_ id: ElementID, _ position: FractionalPosition, _ value: SyncValue) throws {
        guard index(of: id) == nil else { return }
        guard let item = try SyncValueConversion.collectionItem(value, in: realm) else { return }
        let at = index(for: position, id)
        try list.insert(item, at: at)
        let rows = try store.listRows(table: table, owner: owner)
        guard at < rows.count else {
            throw SyncError(.otherError, "The list '\(table)' lost an element it was given")
        }
        let element = MirroredElement(row: rows[at], id: id, position: position, value: value)
        elements.insert(element, at: at)
        try store.mirrorElement(table: table, owner: owner, element)
    }

    mutating func erase(_ id: ElementID) throws {
        guard let at = index(of: id) else { return }
        try list.remove(at: at)
        try store.forgetElement(table: table, owner: owner, row: elements[at].row)
        elements.remove(at: at)
    }

    /// Moves an element to `position` (nothing to do when it is there already).
    mutating func move(_ id: ElementID, to position: FractionalPosition) throws {
        guard let from = index(of: id), elements[from].position != position else { return }
        var element = elements.remove(at: from)
        element.position = position
        let to = index(for: position, id)
        elements.insert(element, at: to)
        if from != to { try list.move(from: from, to: to) }
        try store.mirrorElement(table: table, owner: owner, element)
    }

    /// Sets an element's value (nothing to do when it holds that value already).
    mutating func set(_ id: ElementID, _ value: SyncValue) throws {
        guard let at = index(of: id), elements[at].value != value else { return }
        guard let item = try SyncValueConversion.collectionItem(value, in: realm) else { return }
        try list.set(item, at: at)
        elements[at].value = value
        try store.mirrorElement(table: table, owner: owner, elements[at])
    }

    /// Erases the elements inserted before the clear.
    mutating func clear(before time: WriteTime) throws {
        for at in elements.indices.reversed() where WriteTime(insertionOf: elements[at].id) < time {
            try list.remove(at: at)
            try store.forgetElement(table: table, owner: owner, row: elements[at].row)
            elements.remove(at: at)
        }
    }
}
