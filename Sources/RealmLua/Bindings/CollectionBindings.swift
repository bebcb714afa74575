import Foundation
import LuaSandbox
import RealmDatabase

/// Lists, sets and maps of an object's properties. `append`, `remove`, `insert`, assignment of an
/// element and map keys are implicit writes, as the REPL's everyday verbs.
extension RealmLuaRuntime {
    func registerCollections() throws {
        func list(_ ctx: LuaCallContext) throws -> List { try ctx.userdata(1, as: ListBox.self).list }
        func set(_ ctx: LuaCallContext) throws -> MutableSet { try ctx.userdata(1, as: SetBox.self).set }
        func map(_ ctx: LuaCallContext) throws -> Map { try ctx.userdata(1, as: MapBox.self).map }

        var listMethods: [String: LuaFunction] = [
            "append": { [unowned self] ctx in try list(ctx).append(try realmArgument(ctx, 2)); return 0 },
            "remove": { [unowned self] ctx in
                let l = try list(ctx)
                switch ctx.argument(2) {
                case .integer(let i): try l.remove(at: Int(i) - 1)
                default:
                    guard case .object(let o) = try realmArgument(ctx, 2) else { throw ctx.argumentError(2, "an object or an index expected") }
                    try l.remove(o)
                }
                return 0
            },
            "insert": { [unowned self] ctx in
                let l = try list(ctx)
                let value = try realmArgument(ctx, 2)
                let index = try ctx.optionalInteger(3).map { Int($0) - 1 } ?? l.count
                try l.insert(value, at: index, writeMode: .implicit)
                return 0
            },
            "move": { ctx in
                let l = try list(ctx)
                let from = Int(try ctx.integer(2)) - 1, to = Int(try ctx.integer(3)) - 1
                try l.move(from: from, to: to, writeMode: .implicit)
                return 0
            },
            "removeAll": { ctx in
                let l = try list(ctx)
                try l.removeAll(writeMode: .implicit)
                return 0
            },
            "count": { ctx in try ctx.returning(.integer(Int64(try list(ctx).count))) },
            "indexOf": { [unowned self] ctx in
                guard let i = try list(ctx).index(of: try realmArgument(ctx, 2)) else { return try ctx.returning(.nil) }
                return try ctx.returning(.integer(Int64(i + 1)))
            },
            "freeze": { [unowned self] ctx in try ctx.returning(try box(ListBox(try list(ctx).freeze()))) },
            "thaw": { [unowned self] ctx in try ctx.returning(try list(ctx).thaw().map { try box(ListBox($0)) } ?? .nil) },
            "toTable": { [unowned self] ctx in try ctx.returning(try toLua(.list(try list(ctx).values()))) },
        ]
        // Querying a list of objects goes through Results in list order.
        for name in ["where", "filter", "sorted", "distinct", "min", "max", "sum", "average", "observe", "first", "last"] {
            listMethods[name] = { [unowned self] ctx in
                let l = try list(ctx)
                if l.property.type != .object, ["min", "max", "sum", "average"].contains(name) {
                    return try ctx.returning(try toLua(try primitiveAggregate(name, try l.values())))
                }
                var arguments: [LuaValue] = [.string(name), try box(ResultsBox(try l.asResults()))]
                if ctx.argumentCount >= 2 { arguments += (2...ctx.argumentCount).map { ctx.argument($0) } }
                return try ctx.returning(try state.call(try methodForwarder(), arguments))
            }
        }
        try state.registerType(ListBox.self, name: "List", metatable: LuaMetatable(
            methods: listMethods,
            index: { [unowned self] ctx in
                let l = try list(ctx)
                switch ctx.argument(2) {
                case .integer(let i):
                    guard i >= 1, i <= Int64(l.count) else { return try ctx.returning(.nil) }
                    return try ctx.returning(try toLua(try l[Int(i) - 1]))
                case .string("isFrozen"): return try ctx.returning(.boolean(l.isFrozen))
                case .string("isInvalidated"): return try ctx.returning(.boolean(l.isInvalidated))
                default: return try ctx.returning(.nil)
                }
            },
            newIndex: { [unowned self] ctx in
                let l = try list(ctx)
                let i = Int(try ctx.integer(2)) - 1
                let value = try realmArgument(ctx, 3)
                try l.set(value, at: i, writeMode: .implicit)
                return 0
            },
            metamethods: [
                "__len": { ctx in try ctx.returning(.integer(Int64(try list(ctx).count))) },
                "__tostring": { ctx in
                    let l = try list(ctx)
                    return try ctx.returning(.string("List<\(l.property.objectClassName ?? l.property.type.rawValue)>(\(l.count) items)"))
                },
                "__pairs": { [unowned self] ctx in
                    let l = try list(ctx)
                    return try ctx.returning(.function(try indexIterator(count: { l.count }, element: { try self.toLua(try l[$0]) })))
                },
            ]))

        try state.registerType(SetBox.self, name: "Set", metatable: LuaMetatable(
            methods: [
                "insert": { [unowned self] ctx in try set(ctx).insert(try realmArgument(ctx, 2)); return 0 },
                "remove": { [unowned self] ctx in try set(ctx).remove(try realmArgument(ctx, 2)); return 0 },
                "contains": { [unowned self] ctx in try ctx.returning(.boolean(try set(ctx).contains(try realmArgument(ctx, 2)))) },
                "removeAll": { ctx in
                    let s = try set(ctx)
                    try s.removeAll(writeMode: .implicit)
                    return 0
                },
                "count": { ctx in try ctx.returning(.integer(Int64(try set(ctx).count))) },
                "toTable": { [unowned self] ctx in try ctx.returning(try toLua(.list(try set(ctx).values()))) },
            ],
            index: { [unowned self] ctx in
                let s = try set(ctx)
                guard case .integer(let i) = ctx.argument(2), i >= 1, i <= Int64(s.count) else { return try ctx.returning(.nil) }
                return try ctx.returning(try toLua(try s[Int(i) - 1]))
            },
            metamethods: [
                "__len": { ctx in try ctx.returning(.integer(Int64(try set(ctx).count))) },
                "__tostring": { ctx in try ctx.returning(.string("Set(\(try set(ctx).count) items)")) },
                "__pairs": { [unowned self] ctx in
                    let s = try set(ctx)
                    return try ctx.returning(.function(try indexIterator(count: { s.count }, element: { try self.toLua(try s[$0]) })))
                },
            ]))

        try state.registerType(MapBox.self, name: "Map", metatable: LuaMetatable(
            methods: [
                "keys": { ctx in try ctx.returning(.plainTable(LuaTable(array: try map(ctx).keys.map { .string($0) }))) },
                "removeAll": { ctx in
                    let m = try map(ctx)
                    try m.removeAll(writeMode: .implicit)
                    return 0
                },
                "toTable": { [unowned self] ctx in try ctx.returning(try toLua(.dictionary(try map(ctx).entries()))) },
            ],
            index: { [unowned self] ctx in
                guard case .string(let key) = ctx.argument(2) else { return try ctx.returning(.nil) }
                return try ctx.returning(try map(ctx).value(forKey: key).map(toLua) ?? .nil)
            },
            newIndex: { [unowned self] ctx in
                let m = try map(ctx)
                let key = try ctx.string(2)
                if ctx.isNil(3) { try m.removeValue(forKey: key) } else { try m.setValue(try realmArgument(ctx, 3), forKey: key) }
                return 0
            },
            metamethods: [
                "__len": { ctx in try ctx.returning(.integer(Int64(try map(ctx).count))) },
                "__tostring": { ctx in try ctx.returning(.string("Map(\(try map(ctx).count) entries)")) },
                "__pairs": { [unowned self] ctx in
                    let entries = try map(ctx).entries().sorted { $0.key < $1.key }
                    var i = 0
                    let next = try state.makeFunction { [unowned self] inner in
                        guard i < entries.count else { return try inner.returning(.nil) }
                        i += 1
                        return try inner.returning(.string(entries[i - 1].key), try toLua(entries[i - 1].value))
                    }
                    return try ctx.returning(.function(next))
                },
            ]))
    }

    /// A Lua function `(name, target, ...)` calling `target:name(...)`: how a list forwards its
    /// query methods to the Results of its objects.
    private func methodForwarder() throws -> LuaFunctionRef {
        if let forwarder { return forwarder }
        let f = try state.load("local name, target = ...; return target[name](target, select(3, ...))", chunkName: "=realm-api")
        forwarder = f
        return f
    }

    /// min/max/sum/average of a list of primitives, computed over its values.
    func primitiveAggregate(_ name: String, _ values: [RealmValue]) throws -> RealmValue {
        let numbers = values.compactMap(\.numericValue)
        switch name {
        case "sum":
            if values.allSatisfy({ if case .int = $0 { return true }; return $0.isNull }) {
                return .int(values.compactMap(\.intValue).reduce(0, +))
            }
            return .double(numbers.reduce(0, +))
        case "average": return numbers.isEmpty ? .null : .double(numbers.reduce(0, +) / Double(numbers.count))
        default:
            let numbered = values.compactMap { v in v.numericValue.map { (v, $0) } }
            let pick = name == "min" ? numbered.min { $0.1 < $1.1 } : numbered.max { $0.1 < $1.1 }
            return pick?.0 ?? .null
        }
    }
}
