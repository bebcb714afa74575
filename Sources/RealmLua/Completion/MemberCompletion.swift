import Foundation
import LuaSandbox
import RealmDatabase

/// Tab completion's questions, answered from the bindings' own tables (`LuaState.members(ofType:)`
/// and the declared `MemberResult`s) and the realm's schema.
///
/// Nothing is evaluated that could write, open a connection or pin a version: a receiver is read
/// only as far as raw table reads go (`rawget`: no `__index` of a script runs), and past a host
/// value its type is followed on paper: `realm:objects("Dog"):freeze():` lists Results' members
/// without calling `objects` or `freeze`.
extension RealmLuaRuntime {
    /// The names that can follow `receiver` and `:` (`methodsOnly`) or `.`.
    public func memberNames(of receiver: String, methodsOnly: Bool) -> [String] {
        guard let chain = ReceiverChain.parse(receiver), let known = resolve(chain) else { return [] }
        return names(of: known, methodsOnly: methodsOnly)
    }

    /// The schema of the class the receiver's value holds (`dogs`, `realm:objects("Dog")`, a list of
    /// objects, an object), for completing property names inside `where("…")`.
    public func objectSchema(ofReceiver receiver: String) -> ObjectSchema? {
        guard let chain = ReceiverChain.parse(receiver), case .host(let host)? = resolve(chain) else { return nil }
        return host.objectSchema
    }

    /// The globals' names (the REPL's variables, the API, the standard library).
    public func globalNames() -> [String] {
        guard let globals = try? state.globals else { return [] }
        return tableKeys(.table(globals), methodsOnly: false)
    }

    // MARK: Resolving a receiver

    /// A host value as completion knows it: its Lua type, and for objects and collections their
    /// class in a schema.
    struct HostType {
        var typeName: String
        var className: String?
        var schema: Schema?

        var objectSchema: ObjectSchema? { className.flatMap { schema?[$0] } }
    }

    enum Known {
        /// A value read without running code (a global, a field of a plain table).
        case value(LuaValue)
        /// A host value known by its type only.
        case host(HostType)
    }

    func resolve(_ chain: ReceiverChain) -> Known? {
        var known = Known.value(state.global(chain.head))
        for step in chain.steps {
            guard let next = self.step(known, step) else { return nil }
            known = next
        }
        if case .value(let value) = known { return hostType(of: value).map(Known.host) ?? known }
        return known
    }

    private func step(_ known: Known, _ step: ReceiverChain.Step) -> Known? {
        switch known {
        case .value(let value):
            if let host = hostType(of: value) { return self.step(.host(host), step) }
            guard case .table(let table) = value else { return nil }
            switch step {
            case .field(let name): return (try? state.get(table, .string(name))).map(Known.value)
            case .index(let i?): return (try? state.get(table, .integer(i))).map(Known.value)
            default: return nil
            }
        case .host(let host):
            return hostStep(host, step).map(Known.host)
        }
    }

    /// A member of a host type, followed on paper.
    private func hostStep(_ host: HostType, _ step: ReceiverChain.Step) -> HostType? {
        let declared = memberResults[host.typeName] ?? [:]
        switch step {
        case .field(let name):
            if let result = declared[name] { return apply(result, to: host, argument: nil) }
            guard host.typeName == "Object", let property = host.objectSchema?[name] else { return nil }
            return propertyType(property, in: host.schema)
        case .method(let name, let argument):
            return declared[name].flatMap { apply($0, to: host, argument: argument) }
        case .index:
            guard ["Results", "List", "Set"].contains(host.typeName), host.objectSchema != nil else { return nil }
            return HostType(typeName: "Object", className: host.className, schema: host.schema)
        }
    }

    private func apply(_ result: MemberResult, to host: HostType, argument: String?) -> HostType {
        switch result {
        case .sameClass(let type): return HostType(typeName: type, className: host.className, schema: host.schema)
        case .classArgument(let type): return HostType(typeName: type, className: argument, schema: host.schema)
        case .element: return HostType(typeName: "Object", className: host.className, schema: host.schema)
        case .plain(let type): return HostType(typeName: type, className: nil, schema: host.schema)
        }
    }

    /// What reading an object's property gives: an object, a collection or backlinks (nil for
    /// plain values, which have no members).
    private func propertyType(_ property: Property, in schema: Schema?) -> HostType? {
        let typeName: String
        switch (property.type, property.collection) {
        case (.linkingObjects, _): typeName = "Results"
        case (_, .list): typeName = "List"
        case (_, .set): typeName = "Set"
        case (_, .map): typeName = "Map"
        case (.object, _): typeName = "Object"
        default: return nil
        }
        return HostType(typeName: typeName, className: property.objectClassName, schema: schema)
    }

    /// The type of a host value, read from the value itself (no query runs: class names and
    /// schemas are in memory).
    func hostType(of value: LuaValue) -> HostType? {
        guard case .userdata(let ref) = value, let object = try? state.hostObject(ref) else { return nil }
        switch object {
        case let r as Realm: return HostType(typeName: "Realm", className: nil, schema: r.schema)
        case let o as DynamicObject:
            let schema = o.realm?.schema ?? o.objectSchema.map { Schema([$0]) }
            return HostType(typeName: "Object", className: o.className, schema: schema)
        case let r as Results: return HostType(typeName: "Results", className: r.className, schema: r.realm.schema)
        case let c as ManagedCollection:
            let typeName = c is List ? "List" : c is MutableSet ? "Set" : "Map"
            return HostType(typeName: typeName, className: c.property.objectClassName, schema: c.realm.schema)
        default:
            return (try? state.hostTypeName(ref)).flatMap { $0 }.map { HostType(typeName: $0) }
        }
    }

    // MARK: Names

    private func names(of known: Known, methodsOnly: Bool) -> [String] {
        switch known {
        case .host(let host):
            guard let members = state.members(ofType: host.typeName) else { return [] }
            if methodsOnly { return members.methods }
            let properties = host.typeName == "Object" ? host.objectSchema?.properties.map(\.name) ?? [] : []
            return members.fields + properties
        case .value(let value):
            if case .string = value { return tableKeys(state.global("string"), methodsOnly: methodsOnly) }
            return tableKeys(value, methodsOnly: methodsOnly)
        }
    }

    /// The string keys of a table and of its metatable's `__index` tables, read raw.
    private func tableKeys(_ value: LuaValue, methodsOnly: Bool) -> [String] {
        guard case .table = value, let helper = try? completionHelper() else { return [] }
        var limits = state.limits
        limits.instructions = 100_000
        limits.time = .milliseconds(250)
        guard let results = try? state.withLimits(limits, { try state.call(helper, [value, .boolean(methodsOnly)]) }),
            case .table(let ref)? = results.first, let list = try? state.copy(ref, maxDepth: 1)
        else { return [] }
        return list.array.compactMap(\.stringValue).filter(Self.isIdentifier)
    }

    /// A chunk listing keys with `next`, `getmetatable` and `rawget` only: none of them runs a
    /// script's code. Compiled once per runtime.
    private func completionHelper() throws -> LuaFunctionRef {
        if let completionKeys { return completionKeys }
        let helper = try state.load(
            """
            local v, methodsOnly = ...
            local out, seen = {}, {}
            local function add(t, depth)
              if type(t) ~= "table" or depth > 4 then return end
              for k, x in next, t do
                if type(k) == "string" and not seen[k] and (not methodsOnly or type(x) == "function") then
                  seen[k] = true
                  out[#out + 1] = k
                end
              end
              local mt = getmetatable(t)
              if type(mt) == "table" then add(rawget(mt, "__index"), depth + 1) end
            end
            add(v, 0)
            return out
            """, chunkName: "=completion")
        completionKeys = helper
        return helper
    }

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.first, first == "_" || (first.isASCII && first.isLetter) else { return false }
        return s.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }
}
