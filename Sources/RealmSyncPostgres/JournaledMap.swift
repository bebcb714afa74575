/// A dictionary whose changes can be undone back to where a level began: the read caches of a
/// PostgreSQL store transaction, whose savepoints are kept in memory (`PostgresSyncStoreTransaction`).
///
/// Invariant: for each open level, `journals` holds the value (nil: absent) each key changed in that
/// level had when it was first changed there, and only then. So undoing a level costs the keys it
/// changed, and keeping one folds them into the level around it, which keeps its own first values.
struct JournaledMap<Key: Hashable, Value> {
    private(set) var values: [Key: Value] = [:]
    private var journals: [[Key: Value?]] = []

    subscript(key: Key) -> Value? { values[key] }

    mutating func set(_ key: Key, _ value: Value?) {
        remember(key)
        values[key] = value
    }

    /// Changes the value of `key` in place (`initial` when absent): a value that is itself a
    /// collection is copied once per level, when the journal first keeps it, not at every change.
    mutating func modify(_ key: Key, default initial: @autoclosure () -> Value, _ change: (inout Value) -> Void) {
        remember(key)
        change(&values[key, default: initial()])
    }

    /// Changes every value present (each key journaled once per level).
    mutating func modifyAll(_ change: (Key, inout Value) -> Void) {
        for key in Array(values.keys) {
            remember(key)
            if var value = values.removeValue(forKey: key) {
                change(key, &value)
                values[key] = value
            }
        }
    }

    private mutating func remember(_ key: Key) {
        guard let last = journals.indices.last, journals[last].index(forKey: key) == nil else { return }
        journals[last][key] = .some(values[key])
    }

    /// Begins a level (a savepoint).
    mutating func begin() { journals.append([:]) }

    /// Ends the innermost level keeping its changes: they now belong to the level around it.
    mutating func keep() {
        let inner = journals.removeLast()
        guard let outer = journals.indices.last else { return }
        for (key, first) in inner where journals[outer].index(forKey: key) == nil { journals[outer][key] = first }
    }

    /// Ends the innermost level undoing its changes.
    mutating func undo() {
        for (key, first) in journals.removeLast() { values[key] = first }
    }
}
