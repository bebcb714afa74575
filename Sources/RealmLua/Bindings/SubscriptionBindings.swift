import Foundation
import LuaSandbox
import RealmDatabase

/// `realm.subscriptions`, `subs:update(function(s) … end)` and `QuerySubscription(class, {name =, where =})`.
extension RealmLuaRuntime {
    func registerSubscriptions() throws {
        // Local functions capture `self` strongly, and the closures below are kept by the Lua
        // state that `self` owns: an unowned reference avoids a cycle that kept every runtime
        // (its Lua state, and the realms it holds) alive forever (found by ReliabilityTests).
        unowned let runtime = self
        func subscriptionTable(_ s: SyncSubscription) throws -> LuaValue {
            .plainTable(LuaTable(fields: [
                "name": s.name.map { .string($0) } ?? .nil,
                "objectClassName": .string(s.objectClassName),
                "queryString": .string(s.queryString),
                "createdAt": try runtime.box(DateBox(s.createdAt)),
                "updatedAt": try runtime.box(DateBox(s.updatedAt)),
            ]))
        }
        func first(_ ctx: LuaCallContext, named: (String) -> SyncSubscription?, matching: (String, String) -> SyncSubscription?) throws -> Int {
            let found = ctx.isNil(3) ? named(try ctx.string(2)) : matching(try ctx.string(2), try ctx.string(3))
            return try ctx.returning(try found.map(subscriptionTable) ?? .nil)
        }
        func set(_ ctx: LuaCallContext) throws -> SubscriptionSet { try ctx.userdata(1, as: SubscriptionSet.self) }
        func mutable(_ ctx: LuaCallContext) throws -> MutableSubscriptionSet { try ctx.userdata(1, as: MutableSubscriptionSet.self) }

        try state.registerType(SubscriptionSet.self, name: "SubscriptionSet", metatable: LuaMetatable(
            methods: [
                "first": { ctx in let s = try set(ctx); return try first(ctx, named: s.first(named:), matching: s.first(ofType:where:)) },
                "update": { [unowned self] ctx in
                    let s = try set(ctx)
                    let block = try ctx.function(2)
                    try s.update { m in try state.call(block, [try box(m)]) }
                    return 0
                },
            ],
            index: { ctx in
                let s = try set(ctx)
                switch ctx.argument(2) {
                case .integer(let i):
                    guard i >= 1, i <= Int64(s.count) else { return try ctx.returning(.nil) }
                    return try ctx.returning(try subscriptionTable(s[Int(i) - 1]))
                case .string("state"): return try ctx.returning(.string(s.state.rawValue))
                case .string("version"): return try ctx.returning(.integer(s.version))
                default: return try ctx.returning(.nil)
                }
            },
            metamethods: [
                "__len": { ctx in try ctx.returning(.integer(Int64(try set(ctx).count))) },
                "__tostring": { ctx in try ctx.returning(.string("SubscriptionSet(\(try set(ctx).count) subscriptions)")) },
            ]))

        try state.registerType(MutableSubscriptionSet.self, name: "MutableSubscriptionSet", metatable: LuaMetatable(
            methods: [
                "append": { ctx in
                    try mutable(ctx).append(try ctx.userdata(2, as: QuerySubscriptionBox.self).subscription)
                    return 0
                },
                "remove": { ctx in try mutable(ctx).remove(named: try ctx.string(2)); return 0 },
                "removeAll": { ctx in
                    if let className = try ctx.optionalString(2) { try mutable(ctx).removeAll(ofType: className) } else { try mutable(ctx).removeAll() }
                    return 0
                },
                "first": { ctx in let s = try mutable(ctx); return try first(ctx, named: s.first(named:), matching: s.first(ofType:where:)) },
            ],
            index: { ctx in
                let s = try mutable(ctx)
                guard case .integer(let i) = ctx.argument(2), i >= 1, i <= Int64(s.count) else { return try ctx.returning(.nil) }
                return try ctx.returning(try subscriptionTable(s.subscriptions[Int(i) - 1]))
            },
            metamethods: ["__len": { ctx in try ctx.returning(.integer(Int64(try mutable(ctx).count))) }]))

        try state.registerType(QuerySubscriptionBox.self, name: "QuerySubscription", metatable: LuaMetatable(
            index: { ctx in
                let q = try ctx.userdata(1, as: QuerySubscriptionBox.self).subscription
                switch ctx.argument(2).stringValue {
                case "name": return try ctx.returning(q.name.map { .string($0) } ?? .nil)
                case "objectClassName": return try ctx.returning(.string(q.className))
                case "queryString": return try ctx.returning(.string(q.query))
                default: return try ctx.returning(.nil)
                }
            }))
        try state.register("QuerySubscription") { [unowned self] ctx in
            let className = try ctx.string(1)
            let options = try ctx.optionalTable(2).map { try state.copy($0) } ?? LuaTable()
            let query = options["where"].stringValue ?? options["query"].stringValue ?? "TRUEPREDICATE"
            return try push(ctx, QuerySubscriptionBox(QuerySubscription(className: className, name: options["name"].stringValue, query: query)))
        }
    }
}
