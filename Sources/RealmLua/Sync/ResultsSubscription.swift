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

    /// Adds the results' query as a subscription unless it is one already (the one with that name,
    /// or without a name an unnamed one on the same class and query), then waits as `waitForSync`
    /// says. A name another query holds is Realm's error (`append` raises it).
    private func subscribe(_ results: Results, _ ctx: LuaCallContext) throws {
        let query = try subscriptionQuery(results, "subscribe")
        let options = try ctx.optionalTable(2).map { try state.copy($0) } ?? LuaTable()
        let name = try optionalString(options["name"], "results:subscribe: name")
        let mode = try waitForSyncMode(options["waitForSync"])
        let timeout = try syncTimeout(options["timeout"], "results:subscribe")
        let set = try results.realm.subscriptions
        // A named and an unnamed subscription on one query are distinct (as in Realm).
        let existing: SyncSubscription? =
            if let name {
                set.first(named: name)
            } else {
                set.first { $0.name == nil && $0.objectClassName == results.className && $0.queryString == query }
            }
        let exists = existing.map { $0.objectClassName == results.className && $0.queryString == query } ?? false
        if !exists {
            try set.update { try $0.append(QuerySubscription(className: results.className, name: name, query: query)) }
        }
        if mode == .always || (mode == .onCreation && !exists) {
            try waitForSubscriptions(set, "results:subscribe", timeout: timeout)
        }
    }

    /// Removes every subscription on the results' class and query, named or not (nothing when none).
    private func unsubscribe(_ results: Results) throws {
        let query = try subscriptionQuery(results, "unsubscribe")
        let set = try results.realm.subscriptions
        guard set.first(ofType: results.className, where: query) != nil else { return }
        try set.update { try $0.remove(ofType: results.className, where: query) }
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
