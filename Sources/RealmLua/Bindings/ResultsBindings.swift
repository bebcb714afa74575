import Foundation
import LuaSandbox
import RealmDatabase

/// Results: live queries with `#`, `[i]` (1-based), `ipairs`/`pairs`, shaping, aggregates, the
/// implicit-write verbs `append`/`remove`, freeze/thaw and `observe`.
extension RealmLuaRuntime {
    func registerResults() throws {
        func results(_ ctx: LuaCallContext) throws -> Results { try ctx.userdata(1, as: Results.self) }
        let filter: LuaFunction = { [unowned self] ctx in
            let r = try results(ctx).filter(try ctx.string(2), arguments: try realmArguments(ctx, from: 3))
            return try push(ctx, r)
        }
        var methods: [String: LuaFunction] = [
            "where": filter,
            "filter": filter,
            "sorted": { [unowned self] ctx in
                try push(ctx, try results(ctx).sorted(by: try sortDescriptors(ctx)))
            },
            "distinct": { [unowned self] ctx in
                var keys = [String]()
                if case .table(let t) = ctx.argument(2) {
                    keys = try state.copy(t).array.map { guard let s = $0.stringValue else { throw ctx.argumentError(2, "key paths must be strings") }; return s }
                } else {
                    for i in 2...Swift.max(2, ctx.argumentCount) { keys.append(try ctx.string(i)) }
                }
                return try push(ctx, try results(ctx).distinct(by: keys))
            },
            "count": { ctx in try ctx.returning(.integer(Int64(try results(ctx).countObjects()))) },
            "first": { [unowned self] ctx in try push(ctx, results(ctx).first) },
            "last": { [unowned self] ctx in try push(ctx, results(ctx).last) },
            "indexOf": { ctx in
                guard let o = ctx.testUserdata(2, as: DynamicObject.self), let i = try results(ctx).index(of: o) else { return try ctx.returning(.nil) }
                return try ctx.returning(.integer(Int64(i + 1)))
            },
            "append": { [unowned self] ctx in
                try push(ctx, try results(ctx).append(try realmArgument(ctx, 2)))
            },
            "remove": { [unowned self] ctx in
                let r = try results(ctx)
                switch ctx.argument(2) {
                case .integer(let i): try r.remove(at: Int(i) - 1)
                default:
                    guard case .object(let o) = try realmArgument(ctx, 2) else { throw ctx.argumentError(2, "an object or an index expected") }
                    try r.remove(o)
                }
                return 0
            },
            "freeze": { [unowned self] ctx in try push(ctx, try results(ctx).freeze()) },
            "thaw": { [unowned self] ctx in try push(ctx, try results(ctx).thaw()) },
            "observe": { [unowned self] ctx in
                let callback = try ctx.function(2)
                let token = try results(ctx).observe { [weak self] change in
                    guard let self else { return }
                    self.deliver(callback, [self.changeTable(change)])
                }
                return try push(ctx, token)
            },
            "toTable": { [unowned self] ctx in
                var items = [LuaValue]()
                try results(ctx).forEach { items.append(try box($0)) }
                return try ctx.returning(.plainTable(LuaTable(array: items)))
            },
        ]
        for name in ["min", "max", "sum", "average"] {
            methods[name] = { [unowned self] ctx in
                let r = try results(ctx)
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
        }
        try state.registerType(Results.self, name: "Results", metatable: LuaMetatable(
            methods: methods,
            index: { [unowned self] ctx in
                let r = try results(ctx)
                switch ctx.argument(2) {
                case .integer(let i):
                    guard i >= 1, i <= Int64(r.count) else { return try ctx.returning(.nil) }
                    return try push(ctx, try r[Int(i) - 1])
                case .string("isFrozen"): return try ctx.returning(.boolean(r.isFrozen))
                case .string("className"): return try ctx.returning(.string(r.className))
                case .string("realm"): return try push(ctx, r.realm)
                default: return try ctx.returning(.nil)
                }
            },
            metamethods: [
                "__len": { ctx in try ctx.returning(.integer(Int64(try results(ctx).countObjects()))) },
                "__tostring": { ctx in
                    let r = try results(ctx)
                    return try ctx.returning(.string("Results<\(r.className)>(\(r.count) objects)"))
                },
                "__pairs": { [unowned self] ctx in
                    let r = try results(ctx)
                    return try ctx.returning(.function(try indexIterator(count: { try r.countObjects() }, element: { try self.box(try r[$0]) })))
                },
            ]))
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
                    guard let keyPath = t[.integer(1)].stringValue ?? t["keyPath"].stringValue else { throw ctx.argumentError(2, "each sort key needs a key path") }
                    let ascending = t[.integer(2)].boolValue ?? t["ascending"].boolValue ?? true
                    return RealmDatabase.SortDescriptor(keyPath: keyPath, ascending: ascending)
                default: throw ctx.argumentError(2, "sort keys must be strings or {keyPath, ascending} tables")
                }
            }
        default:
            throw ctx.argumentError(2, "a key path or a table of sort keys expected")
        }
    }

    /// An iterator function for `pairs` over positions 1…count.
    func indexIterator(count: @escaping () throws -> Int, element: @escaping (Int) throws -> LuaValue) throws -> LuaFunctionRef {
        var i = 0
        return try state.makeFunction { ctx in
            guard i < (try count()) else { return try ctx.returning(.nil) }
            i += 1
            return try ctx.returning(.integer(Int64(i)), try element(i - 1))
        }
    }
}
