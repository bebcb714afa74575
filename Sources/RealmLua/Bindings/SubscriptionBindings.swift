import Foundation
import LuaSandbox
import RealmDatabase

/// `realm.subscriptions`, `subs:update(function(s) … end)` and `QuerySubscription(class, {name =, where =})`.
///
/// The closures capture the runtime unowned: they are kept by the Lua state that the runtime
/// owns, and a strong capture kept every runtime (its Lua state, and the realms it holds) alive
/// forever (found by ReliabilityTests).
extension RealmLuaRuntime {
    func registerSubscriptions() throws {
        try registerSubscriptionSet()
        try registerMutableSubscriptionSet()
        try registerQuerySubscription()
    }

    private func registerSubscriptionSet() throws {
        unowned let runtime = self
        func set(_ ctx: LuaCallContext) throws -> SubscriptionSet { try ctx.userdata(1, as: SubscriptionSet.self) }
        var t = BindingTable()
        t.method("first") { ctx in
            let s = try set(ctx)
            return try runtime.firstSubscription(ctx, named: s.first(named:), matching: s.first(ofType:where:))
        }
        t.method("update") { ctx in
            let s = try set(ctx)
            let block = try ctx.function(2)
            try s.update { m in try runtime.state.call(block, [try runtime.box(m)]) }
            return 0
        }
        t.method("waitForSync") { ctx in try runtime.waitForSync(ctx, try set(ctx)) }
        t.field("state") { ctx in try ctx.returning(.string(try set(ctx).state.rawValue)) }
        t.field("errorMessage") { ctx in try ctx.returning(try set(ctx).errorMessage.map { .string($0) } ?? .nil) }
        t.field("version") { ctx in try ctx.returning(.integer(try set(ctx).version)) }
        try register(
            SubscriptionSet.self, name: "SubscriptionSet", t,
            index: { ctx in
                let s = try set(ctx)
                guard let i = ctx.elementIndex(2, count: s.count) else { return try ctx.returning(.nil) }
                return try ctx.returning(try runtime.subscriptionTable(s[i]))
            },
            metamethods: [
                "__len": { ctx in try ctx.returning(.integer(Int64(try set(ctx).count))) },
                "__tostring": { ctx in
                    try ctx.returning(.string("SubscriptionSet(\(try set(ctx).count) subscriptions)"))
                },
            ])
    }

    private func registerMutableSubscriptionSet() throws {
        unowned let runtime = self
        func mutable(_ ctx: LuaCallContext) throws -> MutableSubscriptionSet {
            try ctx.userdata(1, as: MutableSubscriptionSet.self)
        }
        var t = BindingTable()
        t.method("append") { ctx in
            try mutable(ctx).append(try ctx.userdata(2, as: QuerySubscriptionBox.self).subscription)
            return 0
        }
        t.method("remove") { ctx in
            try mutable(ctx).remove(named: try ctx.string(2))
            return 0
        }
        t.method("removeAll") { ctx in
            if let className = try ctx.optionalString(2) {
                try mutable(ctx).removeAll(ofType: className)
            } else {
                try mutable(ctx).removeAll()
            }
            return 0
        }
        t.method("first") { ctx in
            let s = try mutable(ctx)
            return try runtime.firstSubscription(ctx, named: s.first(named:), matching: s.first(ofType:where:))
        }
        try register(
            MutableSubscriptionSet.self, name: "MutableSubscriptionSet", t,
            index: { ctx in
                let s = try mutable(ctx)
                guard let i = ctx.elementIndex(2, count: s.count) else { return try ctx.returning(.nil) }
                return try ctx.returning(try runtime.subscriptionTable(s.subscriptions[i]))
            },
            metamethods: ["__len": { ctx in try ctx.returning(.integer(Int64(try mutable(ctx).count))) }])
    }

    private func registerQuerySubscription() throws {
        unowned let runtime = self
        func query(_ ctx: LuaCallContext) throws -> QuerySubscription {
            try ctx.userdata(1, as: QuerySubscriptionBox.self).subscription
        }
        var t = BindingTable()
        t.field("name") { ctx in try ctx.returning(try query(ctx).name.map { .string($0) } ?? .nil) }
        t.field("objectClassName") { ctx in try ctx.returning(.string(try query(ctx).className)) }
        t.field("queryString") { ctx in try ctx.returning(.string(try query(ctx).query)) }
        try register(QuerySubscriptionBox.self, name: "QuerySubscription", t)
        try state.register("QuerySubscription") { ctx in
            let className = try ctx.string(1)
            let options = try ctx.optionalTable(2).map { try runtime.state.copy($0) } ?? LuaTable()
            let query = options["where"].stringValue ?? options["query"].stringValue ?? "TRUEPREDICATE"
            let subscription = QuerySubscription(className: className, name: options["name"].stringValue, query: query)
            return try runtime.push(ctx, QuerySubscriptionBox(subscription))
        }
    }

    /// A subscription as the table `{name =, objectClassName =, queryString =, createdAt =, updatedAt =}`.
    private func subscriptionTable(_ s: SyncSubscription) throws -> LuaValue {
        .plainTable(
            LuaTable(fields: [
                "name": s.name.map { .string($0) } ?? .nil,
                "objectClassName": .string(s.objectClassName),
                "queryString": .string(s.queryString),
                "createdAt": try box(DateBox(s.createdAt)),
                "updatedAt": try box(DateBox(s.updatedAt)),
            ]))
    }

    /// `first("name")` or `first("Class", "query")`.
    private func firstSubscription(
        _ ctx: LuaCallContext, named: (String) -> SyncSubscription?,
        matching: (String, String) -> SyncSubscription?
    ) throws -> Int {
        let found = ctx.isNil(3) ? named(try ctx.string(2)) : matching(try ctx.string(2), try ctx.string(3))
        return try ctx.returning(try found.map(subscriptionTable) ?? .nil)
    }
}
