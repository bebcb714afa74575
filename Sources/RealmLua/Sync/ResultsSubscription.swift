import Foundation
import LuaSandbox
import RealmDatabase

/// When `results:subscribe{…}` waits for the server (RealmSwift's `WaitForSyncMode`).
enum WaitForSyncMode: String, CaseIterable {
    /// Only when the call created the subscription (the default).
    case onCreation
    /// Every time, even when the subscription existed.
    case always
    /// Never: the subscription syncs in the background.
    case never
}

/// `results:subscribe{ name =, waitForSync =, timeout = }` and `results:unsubscribe()`: the results'
/// query as a flexible-sync subscription (RealmSwift's `Results.subscribe(name:waitForSync:timeout:)`
/// and `unsubscribe()`).
extension RealmLuaRuntime {
    func registerResultsSubscription(_ t: inout BindingTable) {
        unowned let runtime = self
        t.method("subscribe", returns: .sameClass("Results")) { ctx in
            let results = try ctx.userdata(1, as: Results.self)
            try runtime.subscribe(results, ctx)
            return try runtime.push(ctx, results)
        }
        t.method("unsubscribe") { ctx in
            try runtime.unsubscribe(try ctx.userdata(1, as: Results.self))
            return 0
        }
    }

    /// RealmSwift's `Results.subscribe` (RLMResults `subscribeWithName:waitForSync:`): with
    /// `onCreation`, a subscription that already is the results' query (the one with that name on
    /// this query, or without a name an unnamed one on it) is left as it is and not waited for.
    /// Otherwise the subscription is made, or the named one given this query (a name held by
    /// another query is updated, as `updateExisting: true` does), remembered by the results for
    /// `unsubscribe`, and waited for unless `never`.
    private func subscribe(_ results: Results, _ ctx: LuaCallContext) throws {
        let query = try subscriptionQuery(results, "subscribe")
        let options = try ctx.optionalTable(2).map { try state.copy($0) } ?? LuaTable()
        let name = try optionalString(options["name"], "results:subscribe: name")
        let mode = try waitForSyncMode(options["waitForSync"])
        let timeout = try syncTimeout(options["timeout"], "results:subscribe")
        let set = try results.realm.subscriptions
        // A named and an unnamed subscription on one query are distinct (as in Realm).
        let identity: SubscriptionIdentity =
            name.map { .named($0) } ?? .unnamed(className: results.className, query: query)
        let exists =
            set.first(identity).map { $0.objectClassName == results.className && $0.queryString == query }
            ?? false
        if mode == .onCreation && exists { return }
        try set.update {
            if let name {
                try $0.update(named: name, className: results.className, query: query)
            } else {
                try $0.append(QuerySubscription(className: results.className, query: query))
            }
        }
        results.associatedSubscription = identity
        if mode != .never { try waitForSubscriptions(set, "results:subscribe", timeout: timeout) }
    }

    /// RealmSwift's `Results.unsubscribe()`: removes the subscription these results made; results
    /// that made none remove the unnamed subscription on their query, when the first subscription
    /// on it is unnamed (a named one is left: its name is how its owner finds it). Nothing when none.
    private func unsubscribe(_ results: Results) throws {
        let query = try subscriptionQuery(results, "unsubscribe")
        let set = try results.realm.subscriptions
        // The one these results made; else an unnamed one on the query, when it is the first there.
        let identity =
            results.associatedSubscription
            ?? (set.first(ofType: results.className, where: query)?.name == nil
                ? .unnamed(className: results.className, query: query) : nil)
        guard let identity, set.first(identity) != nil else { return }
        try set.update { mutable in
            switch identity {
            case .named(let name): try mutable.remove(named: name)
            case .unnamed(let className, let query): try mutable.removeUnnamed(ofType: className, where: query)
            }
        }
        results.associatedSubscription = nil
    }

    /// The query text a subscription to `results` holds.
    private func subscriptionQuery(_ results: Results, _ function: String) throws -> String {
        guard let query = results.queryText else {
            throw luaError(
                "results:\(function): only a class's objects filtered by query text can be a subscription "
                    + "(not a collection's objects, nor a query with an object or a dictionary as an argument)")
        }
        return query
    }

    private func waitForSyncMode(_ value: LuaValue) throws -> WaitForSyncMode {
        if value.isNil { return .onCreation }
        guard let text = value.stringValue, let mode = WaitForSyncMode(rawValue: text) else {
            let names = WaitForSyncMode.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            throw luaError("results:subscribe: waitForSync must be one of \(names), got \(value)")
        }
        return mode
    }

    private func optionalString(_ value: LuaValue, _ what: String) throws -> String? {
        if value.isNil { return nil }
        guard let text = value.stringValue else { throw luaError("\(what) must be a string, got \(value.typeName)") }
        return text
    }
}
