/// A replica's or the server's data in one comparable form: every object of the synced classes, its
/// fields sorted by name, collections as values (a list in order, a set in `SyncValue.order`, a map
/// by key). Two replicas have converged when their canonical states are equal.
public struct CanonicalState: Hashable, Sendable, CustomStringConvertible {
    public var objects: [ObjectRef: [SyncField]]

    public init(objects: [ObjectRef: [SyncField]] = [:]) { self.objects = objects }

    /// The state restricted to some classes (a view, in part 1).
    public func restricted(to classes: Set<String>) -> CanonicalState {
        CanonicalState(objects: objects.filter { classes.contains($0.key.className) })
    }

    /// The canonical form of an object snapshot.
    public static func fields(of snapshot: ObjectSnapshot) -> [SyncField] {
        var all = snapshot.fields
        all += snapshot.lists.map { SyncField($0.field, .list($0.elements.map(\.value))) }
        all += snapshot.sets.map { SyncField($0.field, .list($0.values.sorted(by: SyncValue.order))) }
        all += snapshot.maps.map { SyncField($0.field, .map($0.entries.sorted { $0.name < $1.name })) }
        return all.sorted { $0.name < $1.name }
    }

    /// Lines naming the first differences from `other` (empty when equal), for failure messages.
    public func differences(from other: CanonicalState, limit: Int = 10) -> [String] {
        var lines: [String] = []
        for ref in Set(objects.keys).union(other.objects.keys).sorted() where lines.count < limit {
            let mine = objects[ref]
            let theirs = other.objects[ref]
            if mine == theirs { continue }
            lines.append("\(ref): \(mine.map { "\($0)" } ?? "absent") vs \(theirs.map { "\($0)" } ?? "absent")")
        }
        return lines
    }

    public var description: String {
        objects.keys.sorted().map { "\($0): \(objects[$0] ?? [])" }.joined(separator: "\n")
    }
}
