import Foundation
import LuaSandbox
import RealmDatabase

/// Results: live queries with `#`, `[i]` (1-based), `ipairs`/`pairs`, shaping, aggregates, the
/// implicit-write verbs `append`/`remove`, freeze/thaw and `observe`. The query verbs also serve
/// a list of objects (see `queryReceiver`).
extension RealmLuaRuntime {
    func registerResults() throws {
        try register(
            Results.self, name: "Results", resultsTable(),
            index: { [unowned self] ctx in try resultsElement(ctx) },
            metamethods: resultsMetamethods())
    }

    /// The receiver of a query verb: a Results, or a list of objects queried in list order.
    func queryReceiver(_ ctx: LuaCallContext) throws -> Results {
        switch ctx.hostObject(at: 1) {
        case let r as Results: return r
        case let l as List: return try l.asResults()
        case let s as MutableSet: return try s.asResults()
        case let m as Map: return try m.asResults()
        default: throw ctx.typeError(1, expected: "Results")
        }
    }

    /// The verbs a list of objects shares with Results.
    static let queryVerbs = [
        "where", "filter", "sorted", "distinct", "min", "max", "sum", "average", "observe",
        "first", "last",
    ]

    func resultsTable() -> BindingTable {
        unowned let runtime = self
        var t = BindingTable()
        t.method("where", returns: .sameClass("Results")) { try runtime.filtered($0) }
        t.method("filter", returns: .sameClass("Results")) { try runtime.filtered($0) }
        t.method("sorted", returns: .sameClass("Results")) { try runtime.sorted($0) }
        t.method("distinct", returns: .sameClass("Results")) { try runtime.distinct($0) }
        t.method("count") { ctx in try ctx.returning(.integer(Int64(try runtime.queryReceiver(ctx).countObjects()))) }
        t.method("first", returns: .element) { ctx in try runtime.push(ctx, runtime.queryReceiver(ctx).fetchFirst()) }
        t.method("last", returns: .element) { ctx in try runtime.push(ctx, runtime.queryReceiver(ctx).fetchLast()) }
        t.method("indexOf") { try runtime.resultsIndex(of: $0) }
        t.method("append", returns: .element) { ctx in
            try runtime.push(ctx, try runtime.queryReceiver(ctx).append(try runtime.realmArgument(ctx, 2)))
        }
        t.method("remove") { try runtime.resultsRemove($0) }
        t.method("freeze", returns: .sameClass("Results")) { ctx in
            try runtime.push(ctx, try runtime.queryReceiver(ctx).freeze())
        }
        t.method("thaw", returns: .sameClass("Results")) { ctx in
            try runtime.push(ctx, try runtime.queryReceiver(ctx).thaw())
        }
        t.method("observe", returns: .plain("NotificationToken")) { try runtime.observeResults($0) }
        t.method("toTable") { try runtime.resultsTable($0) }
        registerResultsSubscription(&t)
        for name in ["min", "max", "sum", "average"] {
            t.method(name) { try runtime.aggregate(name, $0) }
        }
        t.field("isFrozen") { ctx in try ctx.returning(.boolean(try runtime.queryReceiver(ctx).isFrozen)) }
        t.field("className") { ctx in try ctx.returning(.string(try runtime.queryReceiver(ctx).className)) }
        t.field("realm", returns: .plain("Realm")) { ctx in
            try runtime.push(ctx, try runtime.queryReceiver(ctx).realm)
        }
        return t
    }

    private func filtered(_ ctx: LuaCallContext) throws -> Int {
        let r = try queryReceiver(ctx).filter(try ctx.string(2), arguments: try realmArguments(ctx, from: 3))
        return try push(ctx, r)
    }

    private func sorted(_ ctx: LuaCallContext) throws -> Int {
        try push(ctx, try queryReceiver(ctx).sorted(by: try sortDescriptors(ctx)))
    }

    /// `distinct("a", "b")` or `distinct{"a", "b"}`.
    private func distinct(_ ctx: LuaCallContext) throws -> Int {
        var keys = [String]()
        if case .table(let t) = ctx.argument(2) {
            keys = try state.copy(t).array.map { key in
                guard let s = key.stringValue else { throw ctx.argumentError(2, "key paths must be strings") }
                return s
            }
        } else {
            for i in 2...Swift.max(2, ctx.argumentCount) { keys.append(try ctx.string(i)) }
        }
        return try push(ctx, try queryReceiver(ctx).distinct(by: keys))
    }

    private func resultsIndex(of ctx: LuaCallContext) throws -> Int {
        guard let o = ctx.testUserdata(2, as: DynamicObject.self), let i = try queryReceiver(ctx).index(of: o) else {
            return try ctx.returning(.nil)
        }
        return try ctx.returning(.integer(Int64(i + 1)))
    }

    /// `remove(i)` (1-based) or `remove(object)`.
    private func resultsRemove(_ ctx: LuaCallContext) throws -> Int {
        let r = try queryReceiver(ctx)
        switch ctx.type(at: 2) {
        case .number:
            let i = try ctx.position(2)
            try atPositions("remove(\(i + 1))") { try r.remove(at: i) }
        default:
            guard case .object(let o) = try realmArgument(ctx, 2) else {
                throw ctx.argumentError(2, "an object or an index expected")
            }
            try r.remove(o)
        }
        return 0
    }

    private func observeResults(_ ctx: LuaCallContext) throws -> Int {
        let callback = try ctx.function(2)
        let token = try queryReceiver(ctx).observe { [weak self] change in
            guard let self else { return }
            self.deliver(callback, [self.changeTable(change)])
        }
        return try push(ctx, token)
    }

    private func resultsTable(_ ctx: LuaCallContext) throws -> Int {
        var items = [LuaValue]()
        try queryReceiver(ctx).forEach { items.append(try box($0)) }
        return try ctx.returning(.plainTable(LuaTable(array: items)))
    }

    /// `min`, `max`, `sum` or `average` of a property.
    private func aggregate(_ name: String, _ ctx: LuaCallContext) throws -> Int {
        let r = try queryReceiver(ctx)
        let p = try ctx.string(2)
        let v: RealmValue?
        switch name {
        case "min": v = try r.min(ofProperty: p)
        case "max": v = try r.max(ofProperty: p)
        case "sum": v = try r.sum(ofProperty: p)
        default: v = try r.average(ofProperty: p)
        }
        return try ctx.returning(try v.map(toLua) ?? .nil)
    }

    /// `results[i]` (1-based); nil past the end or for other keys.
    private func resultsElement(_ ctx: LuaCallContext) throws -> Int {
        let r = try ctx.userdata(1, as: Results.self)
        guard let i = ctx.elementIndex(2, count: try r.countObjects()) else { return try ctx.returning(.nil) }
        return try push(ctx, try r[i])
    }

    private func resultsMetamethods() -> [String: LuaFunction] {
        unowned let runtime = self
        return [
            "__len": { ctx in
                try ctx.returning(.integer(Int64(try ctx.userdata(1, as: Results.self).countObjects())))
            },
            "__tostring": { ctx in
                let r = try ctx.userdata(1, as: Results.self)
                return try ctx.returning(.string("Results<\(r.className)>(\(r.count) objects)"))
            },
            "__pairs": { ctx in try ctx.returning(.function(try runtime.snapshotIterator(ctx))) },
        ]
    }

    /// `sorted("age", false)`, `sorted{"age", "name"}` or `sorted{ {"age", false}, {"name", true} }`.
    func sortDescriptors(_ ctx: LuaCallContext) throws -> [RealmDatabase.SortDescriptor] {
        switch ctx.argument(2) {
        case .string(let keyPath):
            return [RealmDatabase.SortDescriptor(keyPath: keyPath, ascending: ctx.isNil(3) ? true : try ctx.boolean(3))]
        case .table(let ref):
            return try state.copy(ref).array.map { item in
                switch item {
                case .string(let keyPath): return RealmDatabase.SortDescriptor(keyPath: keyPath)
                case .plainTable(let t):
                    guard let keyPath = t[.integer(1)].stringValue ?? t["keyPath"].stringValue else {
                        throw ctx.argumentError(2, "each sort key needs a key path")
                    }
                    let ascending = t[.integer(2)].boolValue ?? t["ascending"].boolValue ?? true
                    return RealmDatabase.SortDescriptor(keyPath: keyPath, ascending: ascending)
                default: throw ctx.argumentError(2, "sort keys must be strings or {keyPath, ascending} tables")
                }
            }
        default:
            throw ctx.argumentError(2, "a key path or a table of sort keys expected")
        }
    }

    /// An iterator function for `pairs` over positions 1…count (of a snapshot: the count is fixed).
    func indexIterator(count: Int, element: @escaping (Int) throws -> LuaValue) throws -> LuaFunctionRef {
        var i = 0
        return try state.makeFunction { ctx in
            guard i < count else { return try ctx.returning(.nil) }
            i += 1
            return try ctx.returning(.integer(Int64(i)), try element(i - 1))
        }
    }
}
