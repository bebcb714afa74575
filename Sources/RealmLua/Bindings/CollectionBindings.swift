import Foundation
import LuaSandbox
import RealmDatabase

/// Lists, sets and maps of an object's properties. `append`, `remove`, `insert`, assignment of an
/// element and map keys are implicit writes, as the REPL's everyday verbs.
extension RealmLuaRuntime {
    func registerCollections() throws {
        try registerList()
        try registerSet()
        try registerMap()
        try registerSnapshotIpairs()
    }

    // MARK: List

    private func registerList() throws {
        unowned let runtime = self
        try register(
            List.self, name: "List", listTable(),
            index: { try runtime.listElement($0) },
            indexKeys: [],
            newIndex: { try runtime.setListElement($0) },
            metamethods: [
                "__len": { ctx in
                    try ctx.returning(.integer(Int64(try ctx.userdata(1, as: List.self).fetchCount())))
                },
                "__tostring": { ctx in
                    try ctx.returning(.string(Self.listDescription(try ctx.userdata(1, as: List.self))))
                },
                "__pairs": { try runtime.listPairs($0) },
            ])
    }

    private func listTable() -> BindingTable {
        unowned let runtime = self
        func list(_ ctx: LuaCallContext) throws -> List { try ctx.userdata(1, as: List.self) }
        var t = BindingTable()
        t.method("append") { ctx in
            try list(ctx).append(try runtime.realmArgument(ctx, 2))
            return 0
        }
        t.method("remove") { try runtime.listRemove($0) }
        t.method("insert") { try runtime.listInsert($0) }
        t.method("move") { try runtime.listMove($0) }
        t.method("removeAll") { try runtime.listRemoveAll($0) }
        t.method("count") { ctx in try ctx.returning(.integer(Int64(try list(ctx).fetchCount()))) }
        t.method("indexOf") { ctx in
            guard let i = try list(ctx).index(of: try runtime.realmArgument(ctx, 2)) else {
                return try ctx.returning(.nil)
            }
            return try ctx.returning(.integer(Int64(i + 1)))
        }
        t.method("freeze", returns: .sameClass("List")) { ctx in try runtime.push(ctx, try list(ctx).freeze()) }
        t.method("thaw", returns: .sameClass("List")) { ctx in try runtime.push(ctx, try list(ctx).thaw()) }
        t.method("toTable") { ctx in try ctx.returning(try runtime.toLua(.list(try list(ctx).values()))) }
        addQueryVerbs(Self.queryVerbs, to: &t) { try list($0) }
        t.field("isFrozen") { ctx in try ctx.returning(.boolean(try list(ctx).isFrozen)) }
        t.field("isInvalidated") { ctx in try ctx.returning(.boolean(try list(ctx).checkInvalidated())) }
        return t
    }

    /// `remove(i)` (1-based) or `remove(object)`.
    private func listRemove(_ ctx: LuaCallContext) throws -> Int {
        let l = try ctx.userdata(1, as: List.self)
        switch ctx.type(at: 2) {
        case .number:
            let i = try ctx.position(2)
            try atPositions("remove(\(i + 1))") { try l.remove(at: i) }
        default:
            guard case .object(let o) = try realmArgument(ctx, 2) else {
                throw ctx.argumentError(2, "an object or an index expected")
            }
            try l.remove(o)
        }
        return 0
    }

    /// `insert(value)` appends; `insert(value, i)` inserts at 1-based `i`.
    private func listInsert(_ ctx: LuaCallContext) throws -> Int {
        let l = try ctx.userdata(1, as: List.self)
        let value = try realmArgument(ctx, 2)
        let index = try ctx.optionalPosition(3) ?? l.fetchCount()
        try atPositions("insert(_, \(index + 1))") { try l.insert(value, at: index, writeMode: .implicit) }
        return 0
    }

    private func listMove(_ ctx: LuaCallContext) throws -> Int {
        let l = try ctx.userdata(1, as: List.self)
        let from = try ctx.position(2)
        let to = try ctx.position(3)
        try atPositions("move(\(from + 1), \(to + 1))") { try l.move(from: from, to: to, writeMode: .implicit) }
        return 0
    }

    private func listRemoveAll(_ ctx: LuaCallContext) throws -> Int {
        let l = try ctx.userdata(1, as: List.self)
        try l.removeAll(writeMode: .implicit)
        return 0
    }

    /// `list[i]` (1-based); nil past the end or for other keys.
    private func listElement(_ ctx: LuaCallContext) throws -> Int {
        let l = try ctx.userdata(1, as: List.self)
        guard let i = ctx.elementIndex(2, count: try l.fetchCount()) else { return try ctx.returning(.nil) }
        return try ctx.returning(try toLua(try l[i]))
    }

    /// `list[i] = v` replaces; `list[#list + 1] = v` appends.
    private func setListElement(_ ctx: LuaCallContext) throws -> Int {
        let l = try ctx.userdata(1, as: List.self)
        let i = try ctx.position(2)
        let value = try realmArgument(ctx, 3)
        try atPositions("[\(i + 1)] = _") { try l.set(value, at: i, writeMode: .implicit) }
        return 0
    }

    private func listPairs(_ ctx: LuaCallContext) throws -> Int {
        try ctx.returning(.function(try snapshotIterator(ctx)))
    }

    /// Runs an edit at the 1-based positions a script gave (`call`, as written: `remove(9)`).
    /// Realm's out-of-bounds error counts from 0, as RealmSwift's does; it gains the call, so the
    /// script's own position and the method are named (`remove(9): Index 8 is out of bounds…`).
    /// The call is described only when the edit fails.
    func atPositions<T>(_ call: @autoclosure () -> String, _ edit: () throws -> T) throws -> T {
        do {
            return try edit()
        } catch let error as RealmError where error.code == .indexOutOfRange {
            throw RealmError(.indexOutOfRange, "\(call()): \(error.message)")
        }
    }

    static func listDescription(_ l: List) -> String {
        "List<\(l.property.objectClassName ?? l.property.type.rawValue)>(\(l.count) items)"
    }

    // MARK: Set

    private func registerSet() throws {
        unowned let runtime = self
        func set(_ ctx: LuaCallContext) throws -> MutableSet { try ctx.userdata(1, as: MutableSet.self) }
        var t = BindingTable()
        t.method("insert") { ctx in
            try set(ctx).insert(try runtime.realmArgument(ctx, 2))
            return 0
        }
        t.method("remove") { ctx in
            try set(ctx).remove(try runtime.realmArgument(ctx, 2))
            return 0
        }
        t.method("contains") { ctx in
            try ctx.returning(.boolean(try set(ctx).contains(try runtime.realmArgument(ctx, 2))))
        }
        t.method("removeAll") { ctx in
            let s = try set(ctx)
            try s.removeAll(writeMode: .implicit)
            return 0
        }
        t.method("count") { ctx in try ctx.returning(.integer(Int64(try set(ctx).fetchCount()))) }
        t.method("toTable") { ctx in try ctx.returning(try runtime.toLua(.list(try set(ctx).values()))) }
        addQueryVerbs(Self.unorderedQueryVerbs, to: &t) { try set($0) }
        try register(
            MutableSet.self, name: "Set", t,
            index: { ctx in
                let s = try set(ctx)
                guard let i = ctx.elementIndex(2, count: try s.fetchCount()) else { return try ctx.returning(.nil) }
                return try ctx.returning(try runtime.toLua(try s[i]))
            },
            metamethods: [
                "__len": { ctx in try ctx.returning(.integer(Int64(try set(ctx).fetchCount()))) },
                "__tostring": { ctx in try ctx.returning(.string("Set(\(try set(ctx).count) items)")) },
                "__pairs": { ctx in try ctx.returning(.function(try runtime.snapshotIterator(ctx))) },
            ])
    }

    // MARK: Map

    private func registerMap() throws {
        unowned let runtime = self
        func map(_ ctx: LuaCallContext) throws -> Map { try ctx.userdata(1, as: Map.self) }
        var t = BindingTable()
        t.method("keys") { ctx in
            try ctx.returning(.plainTable(LuaTable(array: try map(ctx).keys.map { .string($0) })))
        }
        t.method("removeAll") { ctx in
            let m = try map(ctx)
            try m.removeAll(writeMode: .implicit)
            return 0
        }
        t.method("toTable") { ctx in try ctx.returning(try runtime.toLua(.dictionary(try map(ctx).entries()))) }
        // A key named like a method is read with `get` (the method takes the name, as on objects).
        t.method("get") { ctx in
            try ctx.returning(try map(ctx).value(forKey: try ctx.string(2)).map(runtime.toLua) ?? .nil)
        }
        addQueryVerbs(Self.unorderedQueryVerbs, to: &t) { try map($0) }
        try register(
            Map.self, name: "Map", t,
            index: { ctx in
                guard case .string(let key) = ctx.argument(2) else { return try ctx.returning(.nil) }
                return try ctx.returning(try map(ctx).value(forKey: key).map(runtime.toLua) ?? .nil)
            },
            newIndex: { ctx in
                let m = try map(ctx)
                let key = try ctx.string(2)
                if ctx.isNil(3) {
                    try m.removeValue(forKey: key)
                } else {
                    try m.setValue(try runtime.realmArgument(ctx, 3), forKey: key)
                }
                return 0
            },
            metamethods: [
                "__len": { ctx in try ctx.returning(.integer(Int64(try map(ctx).fetchCount()))) },
                "__tostring": { ctx in try ctx.returning(.string("Map(\(try map(ctx).count) entries)")) },
                "__pairs": { try runtime.mapPairs(try map($0), $0) },
            ])
    }

    /// `pairs(map)`: the entries in key order.
    private func mapPairs(_ map: Map, _ ctx: LuaCallContext) throws -> Int {
        try ctx.returning(.function(try entriesIterator(try map.entries())))
    }

    /// The `next` function of `pairs` over a map's entries, in key order (managed or unmanaged).
    func entriesIterator(_ entries: [String: RealmValue]) throws -> LuaFunctionRef {
        let sorted = entries.sorted { $0.key < $1.key }
        var i = 0
        return try state.makeFunction { [unowned self] inner in
            guard i < sorted.count else { return try inner.returning(.nil) }
            i += 1
            return try inner.returning(.string(sorted[i - 1].key), try toLua(sorted[i - 1].value))
        }
    }

    /// The Results verbs a set or map shares: it has no order of its own to read `first`/`last` in.
    static let unorderedQueryVerbs = ["where", "filter", "sorted", "distinct", "min", "max", "sum", "average"]

    /// Gives a list, set or map the Results verbs `names`: a collection of objects runs Results'
    /// own functions over its objects (`queryReceiver`); a collection of values answers from its
    /// values (RealmSwift's `RealmCollection` over primitives: aggregates, `first`/`last`, `where`
    /// on `self`), and raises Realm's error for the others.
    private func addQueryVerbs(
        _ names: [String], to t: inout BindingTable,
        _ collection: @escaping (LuaCallContext) throws -> ManagedCollection
    ) {
        unowned let runtime = self
        let results = resultsTable()
        for name in names {
            guard let verb = results.methods[name] else { continue }
            t.method(name, returns: results.results[name]) { ctx in
                let c = try collection(ctx)
                guard c.property.type != .object, let n = try runtime.valueVerb(name, c, ctx) else {
                    return try verb(ctx)
                }
                return n
            }
        }
    }

    /// A Results verb over a collection of values; nil for a verb values do not have.
    private func valueVerb(_ name: String, _ c: ManagedCollection, _ ctx: LuaCallContext) throws -> Int? {
        switch name {
        case "min", "max", "sum", "average":
            guard let function = AggregateFunction(rawValue: name) else { return nil }
            let what = "'\(c.owner.className).\(c.property.name)'"
            let result = try ValueAggregates.compute(function, of: try c.values(), type: c.property.type, what: what)
            return try ctx.returning(try toLua(result ?? .null))
        case "where", "filter":
            let matching = try c.values(where: try ctx.string(2), arguments: try realmArguments(ctx, from: 3))
            return try ctx.returning(try toLua(.list(matching)))
        case "first": return try ctx.returning(try c.values().first.map(toLua) ?? .nil)
        case "last": return try ctx.returning(try c.values().last.map(toLua) ?? .nil)
        default: return nil
        }
    }

    // MARK: Iteration

    /// The iterator of a loop over results, a list or a set: it walks the elements as they were
    /// when the loop started, as RealmSwift's `for x in results` walks a snapshot
    /// (`testEnumerateAndDeleteTableResults`, `testFastEnumerationWithMutation`): deleting or
    /// appending inside the loop neither skips nor repeats.
    func snapshotIterator(_ ctx: LuaCallContext) throws -> LuaFunctionRef {
        switch ctx.hostObject(at: 1) {
        case let r as Results:
            let snapshot = try r.snapshot()
            return try indexIterator(
                count: snapshot.count,
                element: { [unowned self] i in try snapshot[i].map { try box($0) } ?? .nil })
        case let c as ManagedCollection:
            let values = try c.values()
            return try indexIterator(count: values.count, element: { [unowned self] in try toLua(values[$0]) })
        default:
            throw ctx.typeError(1, expected: "Results")
        }
    }

    /// `ipairs` walks results, lists and sets through `snapshotIterator`. Lua 5.4's `ipairs` has
    /// no metamethod (it indexes `t[1]`, `t[2]`… live), so the global is wrapped; any other value
    /// goes to the original.
    private func registerSnapshotIpairs() throws {
        let original = state.global("ipairs")
        try state.register("ipairs") { [unowned self] ctx in
            switch ctx.hostObject(at: 1) {
            case is Results, is List, is MutableSet:
                return try ctx.returning(.function(try snapshotIterator(ctx)), ctx.argument(1), .integer(0))
            default:
                return try ctx.returning(try state.call(value: original, [ctx.argument(1)]))
            }
        }
    }
}
