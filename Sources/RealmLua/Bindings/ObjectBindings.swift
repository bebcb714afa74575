import Foundation
import LuaSandbox
import RealmDatabase

/// Objects: `dog.name` reads, `dog.name = "Rex"` writes (an implicit write transaction),
/// `Object("Dog", {…})` makes an unmanaged one.
extension RealmLuaRuntime {
    func registerObject() throws {
        func object(_ ctx: LuaCallContext) throws -> DynamicObject { try ctx.userdata(1, as: DynamicObject.self) }
        let methods: [String: LuaFunction] = [
            "toTable": { [unowned self] ctx in try ctx.returning(try toLua(.dictionary(try object(ctx).dictionaryValue()))) },
            "get": { [unowned self] ctx in try ctx.returning(try property(try object(ctx), try ctx.string(2))) },
            "freeze": { [unowned self] ctx in try push(ctx, try object(ctx).freeze()) },
            "thaw": { [unowned self] ctx in
                guard let live = try object(ctx).thaw() else { return try ctx.returning(.nil) }
                if let realm = live.realm { track(realm) }
                return try push(ctx, live)
            },
            "observe": { [unowned self] ctx in
                let o = try object(ctx)
                let callback = try ctx.function(2)
                let token = try o.observe { [weak self] change in
                    guard let self else { return }
                    let table: LuaValue
                    switch change {
                    case .deleted: table = .plainTable(LuaTable(fields: ["kind": "deleted"]))
                    case .error(let e): table = .plainTable(LuaTable(fields: ["kind": "error", "error": .string("\(e)")]))
                    case .change(_, let props):
                        let list = props.map { p -> LuaValue in
                            .plainTable(LuaTable(fields: ["name": .string(p.name),
                                                          "oldValue": (try? p.oldValue.map(self.toLua) ?? .nil) ?? .nil,
                                                          "newValue": (try? p.newValue.map(self.toLua) ?? .nil) ?? .nil]))
                        }
                        table = .plainTable(LuaTable(fields: ["kind": "change", "properties": .plainTable(LuaTable(array: list))]))
                    }
                    self.deliver(callback, [table])
                }
                return try push(ctx, token)
            },
        ]
        try state.registerType(DynamicObject.self, name: "Object", metatable: LuaMetatable(
            methods: methods,
            index: { [unowned self] ctx in
                let o = try object(ctx)
                guard case .string(let key) = ctx.argument(2) else { return try ctx.returning(.nil) }
                switch key {
                case "isInvalidated": return try ctx.returning(.boolean(o.isInvalidated))
                case "isFrozen": return try ctx.returning(.boolean(o.isFrozen))
                case "realm": return try push(ctx, o.realm)
                case "className": return try ctx.returning(.string(o.className))
                default: return try ctx.returning(try property(o, key))
                }
            },
            newIndex: { [unowned self] ctx in
                let o = try object(ctx)
                try o.setValue(try realmArgument(ctx, 3), forKey: try ctx.string(2), mode: .implicit)
                return 0
            },
            metamethods: [
                "__tostring": { [unowned self] ctx in try ctx.returning(.string(describe(try object(ctx)))) },
                "__eq": { ctx in
                    guard let a = ctx.testUserdata(1, as: DynamicObject.self), let b = ctx.testUserdata(2, as: DynamicObject.self) else { return try ctx.returning(false) }
                    return try ctx.returning(.boolean(a.isSameObject(as: b)))
                },
                "__pairs": { [unowned self] ctx in
                    let o = try object(ctx)
                    let names = try o.objectSchema?.properties.map(\.name) ?? o.dictionaryValue().keys.sorted()
                    var i = 0
                    let next = try state.makeFunction { [unowned self] inner in
                        guard i < names.count else { return try inner.returning(.nil) }
                        let name = names[i]
                        i += 1
                        return try inner.returning(.string(name), try property(o, name))
                    }
                    return try ctx.returning(.function(next))
                },
            ]))
        try state.register("Object") { [unowned self] ctx in
            let className = try ctx.string(1)
            let values: [String: RealmValue]
            switch try ctx.isNil(2) ? .dictionary([:]) : realmArgument(ctx, 2) {
            case .dictionary(let d): values = d
            case .list(let l) where l.isEmpty: values = [:]
            default: throw ctx.argumentError(2, "a table of property values expected")
            }
            return try push(ctx, DynamicObject(className: className, value: values))
        }
    }

    /// A property as Lua sees it: collections live, backlinks as results, the rest as values.
    func property(_ o: DynamicObject, _ name: String) throws -> LuaValue {
        guard let p = o.objectSchema?[name] else {
            if o.isManaged { throw RealmError(.invalidProperty, "Property '\(name)' does not exist on object type '\(o.className)'.") }
            return try toLua(try o.value(forKey: name))
        }
        switch (p.type, p.collection) {
        case (.linkingObjects, _): return try box(try o.linkingObjects(name))
        case (_, .list): return try box(try o.dynamicList(name))
        case (_, .set): return try box(try o.dynamicMutableSet(name))
        case (_, .map): return try box(try o.dynamicMap(name))
        default: return try toLua(try o.value(forKey: name))
        }
    }

    /// `Dog{_id = …, name = "Rex", age = 3}` (links by class, collections by size).
    func describe(_ o: DynamicObject) -> String {
        guard o.isManaged else { return o.description }
        if o.isInvalidated { return "\(o.className){invalidated}" }
        guard let schema = o.objectSchema else { return o.description }
        let parts = schema.properties.compactMap { p -> String? in
            switch (p.type, p.collection) {
            case (.linkingObjects, _): return nil
            case (_, .none):
                guard let v = try? o.value(forKey: p.name) else { return nil }
                return "\(p.name) = \(short(v))"
            default:
                guard case .list(let items)? = try? o.value(forKey: p.name) else {
                    if case .dictionary(let d)? = try? o.value(forKey: p.name) { return "\(p.name) = {\(d.count)}" }
                    return nil
                }
                return "\(p.name) = [\(items.count)]"
            }
        }
        return "\(o.className){\(parts.joined(separator: ", "))}"
    }

    func short(_ v: RealmValue) -> String {
        switch v {
        case .string(let s): return "\"\(s)\""
        case .object(let o):
            if let pk = o.objectSchema?.primaryKey, let k = try? o.value(forKey: pk) { return "\(o.className)(\(short(k)))" }
            return o.className
        default: return v.description
        }
    }
}
