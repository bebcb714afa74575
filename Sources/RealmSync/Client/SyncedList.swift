import Foundation
import RealmDatabase

/// One synced list of the replica and its mirror, edited by remote list instructions: elements are
/// placed by (position, id) among the local ones, so the local order stays the mirror's order.
///
/// An element linking an object the replica lacks is hidden (Realm's unresolved link in a list):
/// in the mirror, with a negative row, not in the list. The list's index of a visible element is
/// the number of visible elements before it in the mirror.
struct SyncedList {
    let realm: Realm
    let store: ClientStore
    let list: List
    let table: String
    let owner: Int64
    /// The mirror in list order, hidden elements included.
    private var elements: [MirroredElement]

    init(realm: Realm, store: ClientStore, list: List, table: String, owner: Int64) throws {
        self.realm = realm
        self.store = store
        self.list = list
        self.table = table
        self.owner = owner
        try store.pruneListMirror(table: table, owner: owner)
        elements = try store.listMirror(table: table, owner: owner)
        let visible = elements.count { !$0.isHidden }
        guard visible == list.count else {
            throw SyncError(
                .otherError,
                "The list '\(table)' of object \(owner) has \(list.count) elements but its sync mirror \(visible)"
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

    /// The list's index of the mirror's element `at` (of where one would go, past the end).
    private func listIndex(_ at: Int) -> Int { elements[..<at].count { !$0.isHidden } }

    /// The ids of the elements, in list order (hidden ones included).
    var elementIDs: [ElementID] { elements.map(\.id) }

    /// Inserts an element (an id already here is a repeat: inserts are idempotent).
    mutating func insert(_ id: ElementID, _ position: FractionalPosition, _ value: SyncValue) throws {
        guard index(of: id) == nil else { return }
        let at = index(for: position, id)
        var element = MirroredElement(row: 0, id: id, position: position, value: value)
        if let item = try SyncValueConversion.collectionItem(value, in: realm) {
            element.row = try insertRow(item, at: at)
        } else {
            element.row = try store.hiddenRow(table: table, owner: owner)
        }
        elements.insert(element, at: at)
        try store.mirrorElement(table: table, owner: owner, element)
    }

    /// Inserts `item` into the list where the mirror's element `at` goes; returns its row.
    private func insertRow(_ item: RealmValue, at: Int) throws -> Int64 {
        let index = listIndex(at)
        try list.insert(item, at: index)
        let rows = try store.listRows(table: table, owner: owner)
        guard index < rows.count else {
            throw SyncError(.otherError, "The list '\(table)' lost an element it was given")
        }
        return rows[index]
    }

    mutating func erase(_ id: ElementID) throws {
        guard let at = index(of: id) else { return }
        if !elements[at].isHidden { try list.remove(at: listIndex(at)) }
        try store.forgetElement(table: table, owner: owner, row: elements[at].row)
        elements.remove(at: at)
    }

    /// Moves an element to `position` (nothing to do when it is there already).
    mutating func move(_ id: ElementID, to position: FractionalPosition) throws {
        guard let from = index(of: id), elements[from].position != position else { return }
        let listFrom = listIndex(from)
        var element = elements.remove(at: from)
        element.position = position
        let to = index(for: position, id)
        elements.insert(element, at: to)
        let listTo = listIndex(to)
        if !element.isHidden && listFrom != listTo { try list.move(from: listFrom, to: listTo) }
        try store.mirrorElement(table: table, owner: owner, element)
    }

    /// Sets an element's value (nothing to do when it holds that value already). A link to an
    /// object the replica lacks hides the element; another value shows a hidden one again.
    mutating func set(_ id: ElementID, _ value: SyncValue) throws {
        guard let at = index(of: id), elements[at].value != value else { return }
        let item = try SyncValueConversion.collectionItem(value, in: realm)
        switch (elements[at].isHidden, item) {
        case (false, let item?):
            try list.set(item, at: listIndex(at))
        case (false, nil):
            try list.remove(at: listIndex(at))
            try store.forgetElement(table: table, owner: owner, row: elements[at].row)
            elements[at].row = try store.hiddenRow(table: table, owner: owner)
        case (true, let item?):
            try store.forgetElement(table: table, owner: owner, row: elements[at].row)
            elements[at].row = try insertRow(item, at: at)
        case (true, nil):
            break
        }
        elements[at].value = value
        try store.mirrorElement(table: table, owner: owner, elements[at])
    }

    /// The embedded object element `id` holds; nil when the list has no such element or it holds
    /// no object.
    func object(_ id: ElementID) throws -> DynamicObject? {
        guard let at = index(of: id), !elements[at].isHidden,
            case .object(let object) = try list[listIndex(at)]
        else { return nil }
        return object
    }

    /// After a write inside element `id` (a `set` whose path steps through it): its mirror holds
    /// the value the list holds now, so the next commit's diff does not send the write back.
    mutating func refreshMirror(_ id: ElementID) throws {
        guard let at = index(of: id), !elements[at].isHidden else { return }
        elements[at].value = try SyncValueConversion.syncValue(try list[listIndex(at)])
        try store.mirrorElement(table: table, owner: owner, elements[at])
    }

    /// Erases the elements inserted before the clear.
    mutating func clear(before time: WriteTime) throws {
        for at in elements.indices.reversed() where WriteTime(insertionOf: elements[at].id) < time {
            if !elements[at].isHidden { try list.remove(at: listIndex(at)) }
            try store.forgetElement(table: table, owner: owner, row: elements[at].row)
            elements.remove(at: at)
        }
    }

    /// The object `ref` names exists again: the hidden elements linking to it are shown.
    mutating func resolve(_ ref: ObjectRef, as object: DynamicObject) throws {
        for at in elements.indices where elements[at].isHidden && elements[at].value == .link(ref) {
            try store.forgetElement(table: table, owner: owner, row: elements[at].row)
            elements[at].row = try insertRow(.object(object), at: at)
            try store.mirrorElement(table: table, owner: owner, elements[at])
        }
    }
}
