import LuaSandbox
import RealmDatabase
import RealmSync

/// Reads a plugin's `sync` table (docs/SYNC.md "Rules in the plugin") into `SyncRules`:
///
///     sync = {
///       queryable = { Dog = { "owner", "age" } },
///       permissions = { Dog = { read = "owner == $user OR shared == true", write = "owner == $user" } },
///     }
///
/// Checks the shape and the class and field names against the plugin's own schema; the queries
/// themselves are compiled by `PluginSyncRules.compile`. Every error names the plugin and the key
/// (`plugin doggo: sync.permissions.Dog.read must be a query string or a boolean, not a number`).
struct PluginSyncRules {
    let plugin: String
    let schema: Schema

    static let syncKeys = ["queryable", "permissions"]
    static let ruleKeys = ["read", "write"]

    func fail(_ message: String) -> HostError { HostError.plugin("plugin \(plugin): \(message)") }

    /// The rules of the plugin's `sync` field (`nil`: no rules, every class private per user).
    func read(_ sync: LuaValue) throws -> SyncRules {
        if sync.isNil { return SyncRules() }
        let table = try self.table(sync, at: "sync", shape: "a table { queryable = …, permissions = … }")
        try refuseUnknownKeys(table, at: "sync", known: Self.syncKeys)
        return SyncRules(
            queryable: try queryable(table["queryable"]), permissions: try permissions(table["permissions"]))
    }

    // MARK: queryable

    /// `queryable = { Class = { "field", … } }`.
    func queryable(_ value: LuaValue) throws -> [String: [String]] {
        if value.isNil { return [:] }
        let table = try self.table(value, at: "sync.queryable", shape: "a table of class names to lists of field names")
        var out = [String: [String]]()
        for (className, fields) in try classEntries(table, at: "sync.queryable") {
            out[className.name] = try queryableFields(
                fields, of: className.objectSchema, at: "sync.queryable.\(className.name)")
        }
        return out
    }

    /// A class's queryable fields: a list of names of its top-level scalar properties, each once.
    func queryableFields(_ value: LuaValue, of objectSchema: ObjectSchema, at key: String) throws -> [String] {
        let list = try self.table(value, at: key, shape: "a list of field names")
        guard list.hash.isEmpty else { throw fail("\(key) must be a list of field names, not a table with keys") }
        var fields = [String]()
        for (index, element) in list.array.enumerated() {
            let elementKey = "\(key)[\(index + 1)]"
            guard case .string(let name) = element else {
                throw fail("\(elementKey) must be a field name (a string), not a \(element.typeName)")
            }
            guard let property = objectSchema[name] else {
                throw fail("\(elementKey): class '\(objectSchema.className)' has no property '\(name)'")
            }
            guard !property.isLink, !property.isCollection, property.isPersisted else {
                throw fail(
                    "\(elementKey): '\(name)' is a \(property.typeString) property; only top-level fields of "
                        + "a scalar type are queryable")
            }
            guard !fields.contains(name) else { throw fail("\(key) lists '\(name)' twice") }
            fields.append(name)
        }
        return fields
    }

    // MARK: permissions

    /// `permissions = { Class = { read = rule, write = rule } }`.
    func permissions(_ value: LuaValue) throws -> [String: SyncRules.ClassRules] {
        if value.isNil { return [:] }
        let table = try self.table(
            value, at: "sync.permissions", shape: "a table of class names to { read = …, write = … }")
        var out = [String: SyncRules.ClassRules]()
        for (className, rules) in try classEntries(table, at: "sync.permissions") {
            let key = "sync.permissions.\(className.name)"
            let rulesTable = try self.table(rules, at: key, shape: "a table { read = …, write = … }")
            try refuseUnknownKeys(rulesTable, at: key, known: Self.ruleKeys)
            out[className.name] = SyncRules.ClassRules(
                read: try rule(rulesTable["read"], at: "\(key).read"),
                write: try rule(rulesTable["write"], at: "\(key).write"))
        }
        return out
    }

    /// A rule: a query over the class's queryable fields, or `true` / `false`.
    func rule(_ value: LuaValue, at key: String) throws -> SyncRules.Rule {
        switch value {
        case .boolean(let constant):
            return .always(constant)
        case .string(let query) where query.contains(where: { !$0.isWhitespace }):
            return .query(query)
        case .string:
            throw fail("\(key) is an empty query; use true or false for a rule that does not depend on the object")
        case .nil:
            throw fail("\(key) is missing: give a query string or a boolean")
        default:
            throw fail("\(key) must be a query string or a boolean, not a \(value.typeName)")
        }
    }

    // MARK: shared checks

    /// A class named by a key of `queryable` or `permissions`: in the plugin's schema, with a primary key.
    struct ClassName {
        let name: String
        let objectSchema: ObjectSchema
    }

    /// The entries of a table keyed by class names, in name order (so the first error reported
    /// does not depend on hash order).
    func classEntries(_ table: LuaTable, at key: String) throws -> [(ClassName, LuaValue)] {
        if let first = table.array.first {
            throw fail("\(key) must be keyed by class names, not a list (its first item is a \(first.typeName))")
        }
        var entries = [(ClassName, LuaValue)]()
        for (rawKey, value) in table.hash {
            guard case .string(let name) = rawKey else {
                throw fail(
                    "\(Self.path(key, rawKey)): \(key) must be keyed by class names, not by a \(rawKey.typeName)")
            }
            guard let objectSchema = schema[name] else {
                let classes = schema.classNames.sorted().joined(separator: ", ")
                throw fail("\(key).\(name): the plugin's schema has no class '\(name)' (it has: \(classes))")
            }
            guard objectSchema.primaryKey != nil else {
                throw fail("\(key).\(name): class '\(name)' has no primary key, and only classes with one sync")
            }
            entries.append((ClassName(name: name, objectSchema: objectSchema), value))
        }
        return entries.sorted { $0.0.name < $1.0.name }
    }

    /// A table value, or an error saying what `key` must be.
    func table(_ value: LuaValue, at key: String, shape: String) throws -> LuaTable {
        guard case .plainTable(let table) = value else {
            throw fail("\(key) must be \(shape), not a \(value.typeName)")
        }
        return table
    }

    /// Refuses any key of `table` outside `known`, naming it.
    func refuseUnknownKeys(_ table: LuaTable, at key: String, known: [String]) throws {
        if let problem = NamedFields.problem(table, known: known, field: key, owner: key) { throw fail(problem) }
    }

    /// `sync.name` for a string key, `sync[1]` for any other.
    static func path(_ base: String, _ key: LuaValue) -> String {
        if case .string(let name) = key { return "\(base).\(name)" }
        return "\(base)[\(key.description)]"
    }
}

extension PluginSyncRules {
    /// Compiles the plugin's rules against its schema, so that a query the compiler refuses
    /// (unknown or non-queryable field, link path, syntax) stops the host at start, naming the
    /// plugin and the rule (`plugin doggo: sync.permissions.Dog.read: …`).
    func compile(_ rules: SyncRules) throws {
        do {
            _ = try SyncPermissions.compile(rules, schema: schema)
        } catch let error as SyncError {
            throw fail(error.message)
        }
    }

    /// The rules of several plugins as one: each class ruled by at most one plugin (a class
    /// appears in its `queryable` or `permissions`); two plugins ruling one class is an error
    /// naming both.
    static func merge(_ plugins: [(plugin: String, rules: SyncRules)]) throws -> SyncRules {
        var merged = SyncRules()
        var ruledBy = [String: String]()
        for (plugin, rules) in plugins {
            for className in Set(rules.queryable.keys).union(rules.permissions.keys).sorted() {
                if let other = ruledBy[className] {
                    throw HostError.plugin(
                        "plugins \(other) and \(plugin) both give sync rules for class '\(className)'; "
                            + "a class's rules belong to one plugin")
                }
                ruledBy[className] = plugin
            }
            merged.queryable.merge(rules.queryable) { first, _ in first }
            merged.permissions.merge(rules.permissions) { first, _ in first }
        }
        return merged
    }
}
