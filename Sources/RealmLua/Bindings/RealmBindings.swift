import Foundation
import LuaSandbox
import RealmDatabase

/// The `Realm` userdata: reading, writing, freezing, observing.
extension RealmLuaRuntime {
    func registerRealm() throws {
        func realm(_ ctx: LuaCallContext) throws -> Realm { try ctx.userdata(1, as: Realm.self) }
        func policy(_ ctx: LuaCallContext, _ i: Int) throws -> UpdatePolicy {
            guard let name = try ctx.optionalString(i) else { return .error }
            guard let p = UpdatePolicy(rawValue: name) else { throw ctx.argumentError(i, "update policy must be \"error\", \"modified\" or \"all\", got '\(name)'") }
            return p
        }
        let methods: [String: LuaFunction] = [
            "objects": { [unowned self] ctx in try push(ctx, try realm(ctx).objects(try ctx.string(2))) },
            "object": { [unowned self] ctx in
                let object = try realm(ctx).object(ofType: try ctx.string(2), forPrimaryKey: try realmArgument(ctx, 3))
                return try push(ctx, object)
            },
            "write": { [unowned self] ctx in
                let r = try realm(ctx)
                let body = try ctx.function(2)
                let results = try r.write { try state.call(body, []) }
                return try ctx.returning(results)
            },
            "beginWrite": { ctx in try realm(ctx).beginWrite(); return 0 },
            "commitWrite": { ctx in try realm(ctx).commitWrite(); return 0 },
            "cancelWrite": { ctx in try realm(ctx).cancelWrite(); return 0 },
            "add": { [unowned self] ctx in
                let r = try realm(ctx)
                guard case .object(let o) = try realmArgument(ctx, 2) else { throw ctx.argumentError(2, "an Object expected") }
                let p = try policy(ctx, 3)
                try r.writeImplicitly { try r.add(o, update: p) }
                return try push(ctx, o)
            },
            "create": { [unowned self] ctx in
                let r = try realm(ctx)
                let className = try ctx.string(2)
                let value = ctx.isNil(3) ? RealmValue.dictionary([:]) : try realmArgument(ctx, 3)
                let p = try policy(ctx, 4)
                let o = try r.writeImplicitly { try r.create(className, value: value, update: p) }
                return try push(ctx, o)
            },
            "delete": { [unowned self] ctx in
                let r = try realm(ctx)
                try r.writeImplicitly { try delete(ctx.argument(2), from: r) }
                return 0
            },
            "deleteAll": { ctx in
                let r = try realm(ctx)
                try r.writeImplicitly { try r.deleteAll() }
                return 0
            },
            "freeze": { [unowned self] ctx in try push(ctx, try realm(ctx).freeze()) },
            "thaw": { [unowned self] ctx in
                let live = try realm(ctx).thaw()
                track(live)
                return try push(ctx, live)
            },
            "refresh": { ctx in try ctx.returning(.boolean(try realm(ctx).refresh())) },
            "observe": { [unowned self] ctx in
                let r = try realm(ctx)
                let callback = try ctx.function(2)
                let token = try r.observe { [weak self] _, realm in
                    guard let self else { return }
                    self.deliver(callback, [.string("didChange"), (try? self.box(realm)) ?? .nil])
                }
                return try push(ctx, token)
            },
        ]
        try state.registerType(Realm.self, name: "Realm", metatable: LuaMetatable(
            methods: methods,
            index: { [unowned self] ctx in
                let r = try realm(ctx)
                switch try ctx.string(2) {
                case "configuration":
                    let c = ConfigurationBox(r.configuration)
                    return try push(ctx, c)
                case "schema": return try ctx.returning(schemaTable(r.schema))
                case "isFrozen": return try ctx.returning(.boolean(r.isFrozen))
                case "isInWriteTransaction": return try ctx.returning(.boolean(r.isInWriteTransaction))
                case "schemaVersion": return try ctx.returning(.integer(Int64(clamping: r.schemaVersion)))
                case "subscriptions": return try push(ctx, try r.subscriptions)
                default: return try ctx.returning(.nil)
                }
            },
            metamethods: [
                "__tostring": { ctx in
                    let r = try realm(ctx)
                    let name = r.configuration.inMemoryIdentifier ?? r.configuration.fileURL?.lastPathComponent ?? "?"
                    return try ctx.returning(.string("Realm(\(name)\(r.isFrozen ? ", frozen" : ""))"))
                },
                "__eq": { ctx in
                    guard let a = ctx.testUserdata(1, as: Realm.self), let b = ctx.testUserdata(2, as: Realm.self) else { return try ctx.returning(false) }
                    return try ctx.returning(.boolean(a === b))
                },
            ]))

        try state.registerType(NotificationToken.self, name: "NotificationToken", metatable: LuaMetatable(methods: [
            "invalidate": { ctx in try ctx.userdata(1, as: NotificationToken.self).invalidate(); return 0 },
        ]))
    }

    /// `realm:delete(x)` for an object, results, a list or a sequence of objects.
    func delete(_ value: LuaValue, from realm: Realm) throws {
        if case .userdata(let ref) = value {
            switch try state.hostObject(ref) {
            case let o as DynamicObject: return try realm.delete(o)
            case let r as Results: return try realm.delete(r)
            case let l as List: return try realm.delete(l)
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
        throw luaError("realm:delete expects an object, results, a list or a table of objects, got \(value.typeName)")
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
        func list(_ indexes: [Int]) -> LuaValue { .plainTable(LuaTable(array: indexes.map { .integer(Int64($0 + 1)) })) }
        switch change {
        case .initial:
            return .plainTable(LuaTable(fields: ["kind": "initial", "deletions": list([]), "insertions": list([]), "modifications": list([])]))
        case let .update(_, deletions, insertions, modifications):
            return .plainTable(LuaTable(fields: ["kind": "update", "deletions": list(deletions), "insertions": list(insertions), "modifications": list(modifications)]))
        case .error(let e):
            return .plainTable(LuaTable(fields: ["kind": "error", "error": .string("\(e)")]))
        }
    }
}
