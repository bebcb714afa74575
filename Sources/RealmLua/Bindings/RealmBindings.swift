import Foundation
import LuaSandbox
import RealmDatabase

/// The `Realm` userdata: reading, writing, freezing, observing.
extension RealmLuaRuntime {
    func registerRealm() throws {
        try register(
            Realm.self, name: "Realm", realmTable(),
            metamethods: [
                "__tostring": { ctx in
                    let r = try ctx.userdata(1, as: Realm.self)
                    let name = r.configuration.inMemoryIdentifier ?? r.configuration.fileURL?.lastPathComponent ?? "?"
                    return try ctx.returning(.string("Realm(\(name)\(r.isFrozen ? ", frozen" : ""))"))
                },
                "__eq": { ctx in
                    guard let a = ctx.testUserdata(1, as: Realm.self), let b = ctx.testUserdata(2, as: Realm.self)
                    else {
                        return try ctx.returning(false)
                    }
                    return try ctx.returning(.boolean(a === b))
                },
            ])
        var token = BindingTable()
        token.method("invalidate") { ctx in
            try ctx.userdata(1, as: NotificationToken.self).invalidate()
            return 0
        }
        try register(NotificationToken.self, name: "NotificationToken", token)
    }

    private func realmTable() -> BindingTable {
        unowned let runtime = self
        func realm(_ ctx: LuaCallContext) throws -> Realm { try ctx.userdata(1, as: Realm.self) }
        var t = BindingTable()
        t.method("objects", returns: .classArgument("Results")) { ctx in
            try runtime.push(ctx, try realm(ctx).objects(try ctx.string(2)))
        }
        t.method("object", returns: .classArgument("Object")) { ctx in
            let key = try runtime.realmArgument(ctx, 3)
            return try runtime.push(ctx, try realm(ctx).object(ofType: try ctx.string(2), forPrimaryKey: key))
        }
        t.method("write") { ctx in
            let r = try realm(ctx)
            let body = try ctx.function(2)
            return try ctx.returning(try r.write { try runtime.state.call(body, []) })
        }
        t.method("beginWrite") { ctx in
            try realm(ctx).beginWrite()
            return 0
        }
        t.method("commitWrite") { ctx in
            try realm(ctx).commitWrite()
            return 0
        }
        t.method("cancelWrite") { ctx in
            let r = try realm(ctx)
            // RealmSwift's `cancelWrite()` throws with no write open (realm-core's message).
            guard r.isInWriteTransaction else { throw RealmError.notInWriteToCancel }
            try r.checkCanCancelWrite()
            r.cancelWrite()
            return 0
        }
        t.method("add", returns: .plain("Object")) { try runtime.add($0) }
        t.method("create", returns: .classArgument("Object")) { try runtime.create($0) }
        // add, create, delete and deleteAll need a write transaction, as Realm's: they are not
        // implicit verbs (LUA-API.md lists those).
        t.method("delete") { ctx in
            try runtime.delete(ctx.argument(2), from: try realm(ctx))
            return 0
        }
        t.method("deleteAll") { ctx in
            try realm(ctx).deleteAll()
            return 0
        }
        t.method("freeze", returns: .plain("Realm")) { ctx in try runtime.push(ctx, try realm(ctx).freeze()) }
        t.method("thaw", returns: .plain("Realm")) { ctx in
            let live = try realm(ctx).thaw()
            runtime.track(live)
            return try runtime.push(ctx, live)
        }
        t.method("refresh") { ctx in try ctx.returning(.boolean(try realm(ctx).refresh())) }
        t.method("observe", returns: .plain("NotificationToken")) { try runtime.observeRealm($0) }
        addRealmFields(to: &t)
        return t
    }

    /// `realm.configuration`, `.schema`, `.isFrozen`, `.isInWriteTransaction`, `.schemaVersion`,
    /// `.subscriptions`.
    private func addRealmFields(to t: inout BindingTable) {
        unowned let runtime = self
        func realm(_ ctx: LuaCallContext) throws -> Realm { try ctx.userdata(1, as: Realm.self) }
        t.field("configuration", returns: .plain("Configuration")) { ctx in
            try runtime.push(ctx, ConfigurationBox(try realm(ctx).configuration))
        }
        t.field("schema") { ctx in try ctx.returning(runtime.schemaTable(try realm(ctx).schema)) }
        t.field("isFrozen") { ctx in try ctx.returning(.boolean(try realm(ctx).isFrozen)) }
        t.field("isInWriteTransaction") { ctx in try ctx.returning(.boolean(try realm(ctx).isInWriteTransaction)) }
        t.field("schemaVersion") { ctx in
            try ctx.returning(.integer(Int64(clamping: try realm(ctx).fetchSchemaVersion())))
        }
        t.field("subscriptions", returns: .plain("SubscriptionSet")) { ctx in
            try runtime.push(ctx, try realm(ctx).subscriptions)
        }
        t.field("syncSession", returns: .plain("SyncSession")) { ctx in
            try runtime.push(ctx, runtime.syncSession(of: try realm(ctx)).map(SyncSessionBox.init))
        }
    }

    /// `realm:add(object, policy)`: the object, now managed.
    private func add(_ ctx: LuaCallContext) throws -> Int {
        let r = try ctx.userdata(1, as: Realm.self)
        guard case .object(let o) = try realmArgument(ctx, 2) else { throw ctx.argumentError(2, "an Object expected") }
        let p = try updatePolicy(ctx, 3)
        try r.add(o, update: p)
        return try push(ctx, o)
    }

    /// `realm:create("Dog", values, policy)`.
    private func create(_ ctx: LuaCallContext) throws -> Int {
        let r = try ctx.userdata(1, as: Realm.self)
        let className = try ctx.string(2)
        let value = ctx.isNil(3) ? RealmValue.dictionary([:]) : try realmArgument(ctx, 3)
        let p = try updatePolicy(ctx, 4)
        return try push(ctx, try r.create(className, value: value, update: p))
    }

    private func updatePolicy(_ ctx: LuaCallContext, _ i: Int) throws -> UpdatePolicy {
        guard let name = try ctx.optionalString(i) else { return .error }
        guard let p = UpdatePolicy(rawValue: name) else {
            throw ctx.argumentError(i, "update policy must be \"error\", \"modified\" or \"all\", got '\(name)'")
        }
        return p
    }

    private func observeRealm(_ ctx: LuaCallContext) throws -> Int {
        let r = try ctx.userdata(1, as: Realm.self)
        let callback = try ctx.function(2)
        let token = try r.observe { [weak self] _, realm in
            guard let self else { return }
            self.deliver(callback, [.string("didChange"), (try? self.box(realm)) ?? .nil])
        }
        return try push(ctx, token)
    }

    /// `realm:delete(x)` for an object, results, a list, set or map of objects, or a sequence of objects.
    func delete(_ value: LuaValue, from realm: Realm) throws {
        if case .userdata(let ref) = value {
            switch try state.hostObject(ref) {
            case let o as DynamicObject: return try realm.delete(o)
            case let r as Results: return try realm.delete(r)
            case let l as List: return try realm.delete(l)
            case let set as MutableSet: return try realm.delete(set)
            case let m as Map: return try realm.delete(m)
            default: break
            }
        }
        if case .table(let ref) = value {
            for item in try state.copy(ref).array {
                guard case .object(let o) = try toRealm(item) else { throw luaError("realm:delete expects objects") }
                try realm.delete(o)
            }
            return
        }
        throw luaError(
            "realm:delete expects an object, results, a list, set or map of objects or a table of objects, "
                + "got \(value.typeName)")
    }

    /// Calls a notification callback; its errors are reported, not raised (the commit stands).
    func deliver(_ callback: LuaFunctionRef, _ arguments: [LuaValue]) {
        do {
            try state.call(callback, arguments)
        } catch {
            state.outputHandler?("notification callback failed: \(error)")
        }
    }

    /// A change set as the Lua table `{kind = "update", deletions = {…}, insertions = {…}, modifications = {…}}`.
    func changeTable(_ change: RealmCollectionChange) -> LuaValue {
        func list(_ indexes: [Int]) -> LuaValue {
            .plainTable(LuaTable(array: indexes.map { .integer(Int64($0 + 1)) }))
        }
        switch change {
        case .initial:
            return .plainTable(
                LuaTable(fields: [
                    "kind": "initial", "deletions": list([]), "insertions": list([]), "modifications": list([]),
                ]))
        case .update(_, let deletions, let insertions, let modifications):
            return .plainTable(
                LuaTable(fields: [
                    "kind": "update", "deletions": list(deletions), "insertions": list(insertions),
                    "modifications": list(modifications),
                ]))
        case .error(let e):
            return .plainTable(LuaTable(fields: ["kind": "error", "error": .string("\(e)")]))
        }
    }
}
