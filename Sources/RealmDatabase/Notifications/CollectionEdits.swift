import RealmValues

/// An element of a set or a map value as its side table stores it: the value, and its type tag in
/// a collection of mixed values (nil otherwise). Compared as stored: two elements are the same when
/// SQLite would find one with the other.
package struct StoredElement: Hashable, Sendable {
    package let value: SQLiteValue
    package let tag: SQLiteValue?

    /// From a side table's value columns (`[value]` or `[value, value__t]`).
    init(_ columns: [SQLiteValue]) {
        value = columns.first ?? .null
        tag = columns.count > 1 ? columns[1] : nil
    }

    var columns: [SQLiteValue] { tag.map { [value, $0] } ?? [value] }
}

/// What one write did to one set or map of one object, for a commit recorder (sync turns it into
/// `setAdd`/`setRemove` and `mapPut`/`mapRemove`): each element (set) or key (map) the write
/// touched, with its state before the write first touched it. What it is now is read at the
/// commit, so an add undone by a remove, or a key written back to its value, comes to nothing.
///
/// Captured only when a recorder reads the commits (`RowStore.feedsCommitRecorder`), and only for
/// objects the write did not create (whose collections the recorder reads whole). Lists are not
/// captured: sync diffs them against its mirror of element ids and positions.
package struct CollectionEdits: Sendable {
    /// Set elements touched: whether each was in the set before.
    package private(set) var setElements: [StoredElement: Bool] = [:]
    /// Map keys touched: the value each held before (nil: the key was absent).
    package private(set) var mapKeys: [String: StoredElement?] = [:]

    mutating func touch(_ element: StoredElement, wasPresent: Bool) {
        if setElements[element] == nil { setElements[element] = wasPresent }
    }

    mutating func touch(key: String, before: StoredElement?) {
        if mapKeys.index(forKey: key) == nil { mapKeys[key] = .some(before) }
    }
}

/// One captured edit, as the row engine reports it to `ChangeTracker`.
struct CollectionEdit {
    enum Touch {
        case setElement(StoredElement, wasPresent: Bool)
        case mapKey(String, before: StoredElement?)
    }
    let className: String
    let key: Int64
    let property: String
    let touch: Touch
}
