import Foundation
import LuaSandbox
import RealmDatabase

/// A list, set or map property of an unmanaged object (RealmSwift's unmanaged `List`,
/// `MutableSet`, `Map`): its elements are the object's value for the property, edited in place
/// and checked against the property's type on every edit.
final class UnmanagedCollection {
    let owner: DynamicObject
    let property: Property

    init(owner: DynamicObject, property: Property) {
        self.owner = owner
        self.property = property
    }

    /// Fails once the owner has been added: the live collection is the object's property now.
    private func checkUnmanaged() throws {
        if owner.isManaged {
            throw RealmError(
                .invalidValue,
                "This collection belonged to the unmanaged '\(owner.className)' since added to a realm: "
                    + "read '\(property.name)' from the object again.")
        }
    }

    /// The elements of a list or set (a map has entries: the error names it).
    func items() throws -> [RealmValue] {
        try checkUnmanaged()
        if isMap { throw RealmError(.invalidValue, "\(described) is a map: its values are read and set by key.") }
        if case .list(let items) = try owner.value(forKey: property.name) { return items }
        return []
    }

    func setItems(_ items: [RealmValue]) throws {
        try checkUnmanaged()
        try owner.setValue(.list(items), forKey: property.name)
    }

    /// The entries of a map (a list or set has elements: the error names it).
    func entries() throws -> [String: RealmValue] {
        try checkUnmanaged()
        if !isMap { throw RealmError(.invalidValue, "\(described) is no map: it has no keys.") }
        if case .dictionary(let entries) = try owner.value(forKey: property.name) { return entries }
        return [:]
    }

    func setEntries(_ entries: [String: RealmValue]) throws {
        try checkUnmanaged()
        try owner.setValue(.dictionary(entries), forKey: property.name)
    }

    var isMap: Bool { property.collection == .map }

    /// `'Class.property'`, as errors name the collection.
    private var described: String { "'\(owner.className).\(property.name)'" }

    func count() throws -> Int { isMap ? try entries().count : try items().count }

    /// An element's index, objects by identity (as an unmanaged RealmSwift list's `index(of:)`).
    func index(of value: RealmValue) throws -> Int? {
        try items().firstIndex { item in
            if case .object(let a) = item, case .object(let b) = value { return a === b || a.isSameObject(as: b) }
            return item == value
        }
    }
}

extension RealmLuaRuntime {
    func registerUnmanagedCollection() throws {
        unowned let runtime = self
        try register(
            UnmanagedCollection.self, name: "UnmanagedCollection", unmanagedCollectionTable(),
            index: { try runtime.unmanagedElement($0) },
            newIndex: { try runtime.setUnmanagedElement($0) },
            metamethods: [
                "__len": { ctx in
                    try ctx.returning(.integer(Int64(try ctx.userdata(1, as: UnmanagedCollection.self).count())))
                },
                "__tostring": { ctx in
                    let c = try ctx.userdata(1, as: UnmanagedCollection.self)
                    return try ctx.returning(.string("unmanaged \(c.property.typeString) (\(try c.count()) items)"))
                },
                "__pairs": { try runtime.unmanagedPairs($0) },
            ])
    }

    private func unmanagedCollectionTable() -> BindingTable {
        unowned let runtime = self
        func collection(_ ctx: LuaCallContext) throws -> UnmanagedCollection {
            try ctx.userdata(1, as: UnmanagedCollection.self)
        }
        var t = BindingTable()
        t.method("append") { ctx in
            let c = try collection(ctx)
            try c.setItems(try c.items() + [try runtime.realmArgument(ctx, 2)])
            return 0
        }
        t.method("insert") { ctx in
            let c = try collection(ctx)
            var items = try c.items()
            let index = try ctx.optionalPosition(3) ?? items.count
            guard index >= 0, index <= items.count else {
                throw RealmError(
                    .indexOutOfRange,
                    "insert(_, \(index + 1)): Index \(index) is out of bounds "
                        + "(must be less than or equal to \(items.count)).")
            }
            items.insert(try runtime.realmArgument(ctx, 2), at: index)
            try c.setItems(items)
            return 0
        }
        t.method("remove") { try runtime.unmanagedRemove($0) }
        t.method("removeAll") { ctx in
            let c = try collection(ctx)
            if c.isMap { try c.setEntries([:]) } else { try c.setItems([]) }
            return 0
        }
        t.method("count") { ctx in try ctx.returning(.integer(Int64(try collection(ctx).count()))) }
        t.method("contains") { ctx in
            try ctx.returning(.boolean(try collection(ctx).index(of: try runtime.realmArgument(ctx, 2)) != nil))
        }
        t.method("indexOf") { ctx in
            guard let i = try collection(ctx).index(of: try runtime.realmArgument(ctx, 2)) else {
                return try ctx.returning(.nil)
            }
            return try ctx.returning(.integer(Int64(i + 1)))
        }
        // A key named like a method is read with `get`, as on a managed map.
        t.method("get") { ctx in
            try ctx.returning(try collection(ctx).entries()[try ctx.string(2)].map(runtime.toLua) ?? .nil)
        }
        t.method("keys") { ctx in
            try ctx.returning(
                .plainTable(LuaTable(array: try collection(ctx).entries().keys.sorted().map { .string($0) })))
        }
        t.method("toTable") { ctx in
            let c = try collection(ctx)
            return try ctx.returning(try runtime.toLua(c.isMap ? .dictionary(try c.entries()) : .list(try c.items())))
        }
        return t
    }

    /// `remove(i)` (1-based) or `remove(value)` of a list, `remove(value)` of a set, `remove(key)` of a map.
    private func unmanagedRemove(_ ctx: LuaCallContext) throws -> Int {
        let c = try ctx.userdata(1, as: UnmanagedCollection.self)
        if c.isMap {
            var entries = try c.entries()
            entries[try ctx.string(2)] = nil
            try c.setEntries(entries)
            return 0
        }
        var items = try c.items()
        if c.property.collection == .list, ctx.type(at: 2) == .number {
            let i = try ctx.position(2)
            guard i >= 0, i < items.count else {
                throw RealmError(
                    .indexOutOfRange,
                    "remove(\(i + 1)): Index \(i) is out of bounds (must be less than \(items.count)).")
            }
            items.remove(at: i)
        } else if let i = try c.index(of: try realmArgument(ctx, 2)) {
            items.remove(at: i)
        }
        try c.setItems(items)
        return 0
    }

    /// `list[i]` (1-based), `map.key`; nil otherwise.
    private func unmanagedElement(_ ctx: LuaCallContext) throws -> Int {
        let c = try ctx.userdata(1, as: UnmanagedCollection.self)
        if c.isMap {
            guard case .string(let key) = ctx.argument(2) else { return try ctx.returning(.nil) }
            return try ctx.returning(try c.entries()[key].map(toLua) ?? .nil)
        }
        let items = try c.items()
        guard let i = ctx.elementIndex(2, count: items.count) else { return try ctx.returning(.nil) }
        return try ctx.returning(try toLua(items[i]))
    }

    /// `list[i] = v` (`#list + 1` appends), `map.key = v` (nil removes).
    private func setUnmanagedElement(_ ctx: LuaCallContext) throws -> Int {
        let c = try ctx.userdata(1, as: UnmanagedCollection.self)
        if c.isMap {
            var entries = try c.entries()
            entries[try ctx.string(2)] = ctx.isNil(3) ? nil : try realmArgument(ctx, 3)
            try c.setEntries(entries)
            return 0
        }
        guard c.property.collection == .list else {
            throw RealmError(
                .invalidValue,
                "The set '\(c.owner.className).\(c.property.name)' has no positions to assign: use insert(value).")
        }
        var items = try c.items()
        let i = try ctx.position(2)
        guard i >= 0, i <= items.count else {
            throw RealmError(
                .indexOutOfRange,
                "[\(i + 1)] = _: Index \(i) is out of bounds (must be less than or equal to \(items.count)).")
        }
        let value = try realmArgument(ctx, 3)
        if i == items.count { items.append(value) } else { items[i] = value }
        try c.setItems(items)
        return 0
    }

    /// `pairs`: index and element of a list or set, key and value of a map (in key order).
    private func unmanagedPairs(_ ctx: LuaCallContext) throws -> Int {
        let c = try ctx.userdata(1, as: UnmanagedCollection.self)
        if c.isMap {
            return try ctx.returning(.function(try entriesIterator(try c.entries())))
        }
        let items = try c.items()
        let next = try indexIterator(count: items.count, element: { try self.toLua(items[$0]) })
        return try ctx.returning(.function(next))
    }
}
