import Foundation
import LuaSandbox
import RealmDatabase

/// Objects: `dog.name` reads, `dog.name = "Rex"` writes (an implicit write transaction),
/// `Object("Dog", {…})` makes an unmanaged one.
extension RealmLuaRuntime {
    func registerObject() throws {
        unowned let runtime = self
        try register(
            DynamicObject.self, name: "Object", objectTable(),
            index: { ctx in
                let o = try ctx.userdata(1, as: DynamicObject.self)
                guard case .string(let key) = ctx.argument(2) else { return try ctx.returning(.nil) }
                return try ctx.returning(try runtime.property(o, key))
            },
            newIndex: { ctx in
                let o = try ctx.userdata(1, as: DynamicObject.self)
                try o.setValue(try runtime.realmArgument(ctx, 3), forKey: try ctx.string(2), mode: .implicit)
                return 0
            },
            metamethods: objectMetamethods())
        try state.register("Object") { try runtime.newObject($0) }
        try registerUnmanagedCollection()
    }

    private func objectTable() -> BindingTable {
        unowned let runtime = self
        func object(_ ctx: LuaCallContext) throws -> DynamicObject { try ctx.userdata(1, as: DynamicObject.self) }
        var t = BindingTable()
        t.method("toTable") { ctx in
            try ctx.returning(try runtime.toLua(.dictionary(try object(ctx).dictionaryValue())))
        }
        t.method("get") { ctx in try ctx.returning(try runtime.property(try object(ctx), try ctx.string(2))) }
        t.method("freeze", returns: .sameClass("Object")) { ctx in try runtime.push(ctx, try object(ctx).freeze()) }
        t.method("thaw", returns: .sameClass("Object")) { ctx in
            guard let live = try object(ctx).thaw() else { return try ctx.returning(.nil) }
            if let realm = live.realm { runtime.track(realm) }
            return try runtime.push(ctx, live)
        }
        t.method("observe", returns: .plain("NotificationToken")) { try runtime.observeObject($0) }
        t.field("isInvalidated") { ctx in try ctx.returning(.boolean(try object(ctx).checkInvalidated())) }
        t.field("isFrozen") { ctx in try ctx.returning(.boolean(try object(ctx).isFrozen)) }
        t.field("realm", returns: .plain("Realm")) { ctx in try runtime.push(ctx, try object(ctx).realm) }
        t.field("className") { ctx in try ctx.returning(.string(try object(ctx).className)) }
        return t
    }

    private func objectMetamethods() -> [String: LuaFunction] {
        unowned let runtime = self
        return [
            "__tostring": { ctx in
                try ctx.returning(.string(runtime.describe(try ctx.userdata(1, as: DynamicObject.self))))
            },
            "__eq": { ctx in
                guard let a = ctx.testUserdata(1, as: DynamicObject.self),
                    let b = ctx.testUserdata(2, as: DynamicObject.self)
                else { return try ctx.returning(false) }
                return try ctx.returning(.boolean(a.isSameObject(as: b)))
            },
            "__pairs": { try runtime.objectPairs($0) },
        ]
    }

    private func observeObject(_ ctx: LuaCallContext) throws -> Int {
        let o = try ctx.userdata(1, as: DynamicObject.self)
        let callback = try ctx.function(2)
        let token = try o.observe { [weak self] change in
            guard let self else { return }
            self.deliver(callback, [self.objectChangeTable(change)])
        }
        return try push(ctx, token)
    }

    /// An object change as `{kind = "change", properties = {{name =, oldValue =, newValue =}, …}}`,
    /// `{kind = "deleted"}` or `{kind = "error", error = …}`.
    private func objectChangeTable(_ change: ObjectChange) -> LuaValue {
        switch change {
        case .deleted: return .plainTable(LuaTable(fields: ["kind": "deleted"]))
        case .error(let e): return .plainTable(LuaTable(fields: ["kind": "error", "error": .string("\(e)")]))
        case .change(_, let props):
            let list = props.map { p -> LuaValue in
                .plainTable(
                    LuaTable(fields: [
                        "name": .string(p.name),
                        "oldValue": (try? p.oldValue.map(toLua) ?? .nil) ?? .nil,
                        "newValue": (try? p.newValue.map(toLua) ?? .nil) ?? .nil,
                    ]))
            }
            return .plainTable(LuaTable(fields: ["kind": "change", "properties": .plainTable(LuaTable(array: list))]))
        }
    }

    /// `pairs(object)`: the properties in schema order.
    private func objectPairs(_ ctx: LuaCallContext) throws -> Int {
        let o = try ctx.userdata(1, as: DynamicObject.self)
        let names = try o.objectSchema?.properties.map(\.name) ?? o.dictionaryValue().keys.sorted()
        var i = 0
        let next = try state.makeFunction { [unowned self] inner in
            guard i < names.count else { return try inner.returning(.nil) }
            let name = names[i]
            i += 1
            return try inner.returning(.string(name), try property(o, name))
        }
        return try ctx.returning(.function(next))
    }

    /// `Object("Dog", {…})`: an unmanaged object.
    private func newObject(_ ctx: LuaCallContext) throws -> Int {
        let className = try ctx.string(1)
        let values: [String: RealmValue]
        switch try ctx.isNil(2) ? .dictionary([:]) : realmArgument(ctx, 2) {
        case .dictionary(let d): values = d
        case .list(let l) where l.isEmpty: values = [:]
        default: throw ctx.argumentError(2, "a table of property values expected")
        }
        guard let schema = objectSchema(ofClass: className) else {
            return try push(ctx, DynamicObject(className: className, value: values))
        }
        return try push(ctx, try DynamicObject(objectSchema: schema, value: values))
    }

    /// The schema an unmanaged object of a class is built with (Lua has no model classes): the
    /// default configuration's, else that of the realm opened last that has the class.
    private func objectSchema(ofClass className: String) -> ObjectSchema? {
        if let schema = defaultConfiguration.configuration.schema?[className] { return schema }
        return openRealms.reversed().lazy.compactMap { $0.schema[className] }.first
    }

    /// A property as Lua sees it: collections live, backlinks as results, the rest as values.
    func property(_ o: DynamicObject, _ name: String) throws -> LuaValue {
        guard let p = o.objectSchema?[name] else {
            if o.isManaged {
                throw RealmError(.invalidProperty, "Property '\(name)' does not exist on object type '\(o.className)'.")
            }
            return try toLua(try o.value(forKey: name))
        }
        if !o.isManaged, p.isCollection { return try box(UnmanagedCollection(owner: o, property: p)) }
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
            if let pk = o.objectSchema?.primaryKey, let k = try? o.value(forKey: pk) {
                return "\(o.className)(\(short(k)))"
            }
            return o.className
        default: return v.description
        }
    }
}
