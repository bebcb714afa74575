import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmLua

/// How the REPL prints values (`.mode`).
enum OutputMode: String, CaseIterable, Sendable {
    /// Objects, results and lists of objects as aligned tables; other values as Lua shows them.
    case table
    /// Everything as JSON (objects with their properties, results as arrays).
    case json
    /// Everything as Lua constructors (`Object("Dog", { … })`).
    case lua
}

/// Prints what a REPL statement returns.
///
/// Objects, results and lists are found with `LuaValueReader.inspect` (the tenant session's). In table mode, results
/// show their first `maxRows` objects and end with `… N more`.
struct ValuePrinter {
    /// The tenant session's view of the returned values (objects behind userdata, table items).
    let reader: LuaValueReader
    var mode: OutputMode
    var style: Style
    /// Rows shown for results and lists in table mode.
    var maxRows = 20
    /// The width tables must fit in (the terminal's), nil for no limit.
    var maxWidth: Int?

    /// The text for a statement's values, nil when there is nothing to print.
    func render(_ values: [LuaValue]) -> String? {
        guard !values.isEmpty else { return nil }
        let parts = values.map { value -> String in
            do {
                switch mode {
                case .table: return try tableText(value)
                case .json: return try json(value, depth: 0)
                case .lua: return try luaText(value, indent: "")
                }
            } catch {
                return style.red("(cannot print this \(value.typeName): \(error))")
            }
        }
        if parts.count > 1, parts.allSatisfy({ !$0.contains("\n") }) { return parts.joined(separator: "\t") }
        return parts.joined(separator: "\n")
    }

    // MARK: Table mode

    func tableText(_ value: LuaValue) throws -> String {
        if let inspected = try reader.inspect(value) {
            switch inspected {
            case .object(let o):
                guard let schema = o.objectSchema else { return o.description }
                if o.isManaged && o.isInvalidated { return style.dim("\(o.className) (deleted, invalidated)") }
                return try objectsTable([o], schema: schema, total: 1, numbered: false)
            case .results(let r):
                let total = try r.countObjects()
                var objects = [DynamicObject]()
                for i in 0..<min(total, maxRows) { objects.append(try r[i]) }
                return try objectsTable(objects, schema: r.objectSchema, total: total, numbered: true)
            case .list(let l):
                return try collectionTable(l, count: l.count, element: { try l[$0] })
            case .set(let set):
                return try collectionTable(set, count: set.count, element: { try set[$0] })
            case .map(let map):
                let entries = try map.entries().sorted { $0.key < $1.key }
                let rows = entries.prefix(maxRows).map { [$0.key, cell($0.value)] }
                var table = TextTable(headers: ["key", map.property.name], rows: Array(rows))
                table.maxCellWidth = 60
                var text = rows.isEmpty ? style.dim("(empty map)") : table.render(style: style, maxWidth: maxWidth)
                if entries.count > rows.count { text += "\n" + style.dim("… \(entries.count - rows.count) more") }
                return text
            case .realm(let r):
                return realmSummary(r)
            }
        }
        if case .table(let ref) = value, let (objects, schema) = try objectSequence(ref) {
            return try objectsTable(
                Array(objects.prefix(maxRows)), schema: schema, total: objects.count, numbered: true)
        }
        return try display(value)
    }

    /// Objects as rows, their persisted properties as columns.
    /// A list or set: its objects as a table of objects, or its values numbered.
    private func collectionTable(_ collection: ManagedCollection, count total: Int, element: (Int) throws -> RealmValue)
        throws -> String
    {
        let property = collection.property
        if property.type == .object, let className = property.objectClassName,
            let schema = collection.realm.schema[className]
        {
            var objects = [DynamicObject]()
            for i in 0..<min(total, maxRows) { if let o = try element(i).objectValue { objects.append(o) } }
            return try objectsTable(objects, schema: schema, total: total, numbered: true)
        }
        var rows = [[String]]()
        for i in 0..<min(total, maxRows) { rows.append(["\(i + 1)", cell(try element(i))]) }
        var table = TextTable(headers: ["#", property.name], rows: rows, rightAligned: [0])
        table.maxCellWidth = 60
        var text =
            rows.isEmpty
            ? style.dim("(empty \(property.collection.rawValue))") : table.render(style: style, maxWidth: maxWidth)
        if total > rows.count { text += "\n" + style.dim("… \(total - rows.count) more") }
        return text
    }

    func objectsTable(_ objects: [DynamicObject], schema: ObjectSchema, total: Int, numbered: Bool) throws -> String {
        guard total > 0 else { return style.dim("(no \(schema.className) objects)") }
        let properties = schema.properties.filter(\.isPersisted)
        var table = TextTable(headers: (numbered ? ["#"] : []) + properties.map(\.name))
        let offset = numbered ? 1 : 0
        if numbered { table.rightAligned.insert(0) }
        for (i, p) in properties.enumerated()
        where !p.isCollection && [.int, .float, .double, .decimal128].contains(p.type) {
            table.rightAligned.insert(i + offset)
        }
        for (n, object) in objects.enumerated() {
            var row = numbered ? ["\(n + 1)"] : []
            if object.isManaged && object.isInvalidated {
                row.append("(deleted)")
            } else {
                for p in properties { row.append(cell(try object.value(forKey: p.name), property: p)) }
            }
            table.rows.append(row)
        }
        var text = table.render(style: style, maxWidth: maxWidth)
        if total > objects.count { text += "\n" + style.dim("… \(total - objects.count) more") }
        return text
    }

    /// A Lua sequence whose items are all objects of one class (`{dog1, dog2}`), else nil.
    func objectSequence(_ ref: LuaTableRef) throws -> ([DynamicObject], ObjectSchema)? {
        let n = try reader.length(ref)
        guard n > 0 else { return nil }
        var objects = [DynamicObject]()
        for i in 1...n {
            guard case .object(let o)? = try reader.inspect(try reader.element(ref, at: i)) else { return nil }
            if let first = objects.first, first.className != o.className { return nil }
            objects.append(o)
        }
        guard let schema = objects[0].objectSchema else { return nil }
        return (objects, schema)
    }

    /// One table cell.
    func cell(_ value: RealmValue, property: Property? = nil) -> String {
        switch value {
        case .null: return "nil"
        case .string(let s): return s
        case .float(let f): return LuaFormat.number(Double(f))
        case .double(let d): return LuaFormat.number(d)
        case .object(let o): return linkLabel(o)
        case .list(let items):
            if let p = property, p.type == .object || p.type == .linkingObjects {
                return "\(items.count) \(p.objectClassName ?? "objects")"
            }
            return "[" + items.map { cell($0) }.joined(separator: ", ") + "]"
        case .dictionary(let d):
            return "{" + d.keys.sorted().map { "\($0): \(cell(d[$0]!))" }.joined(separator: ", ") + "}"
        default: return value.description
        }
    }

    /// A link in a cell: `Person(Dale)` (the first string property), else the primary key.
    func linkLabel(_ o: DynamicObject) -> String {
        if o.isManaged && o.isInvalidated { return "\(o.className)(deleted)" }
        guard let schema = o.objectSchema else { return o.className }
        if let p = schema.properties.first(where: { $0.type == .string && !$0.isCollection && !$0.isPrimaryKey }),
            case .string(let s)? = try? o.value(forKey: p.name), !s.isEmpty
        {
            return "\(o.className)(\(s))"
        }
        if let pk = schema.primaryKey, let v = try? o.value(forKey: pk) { return "\(o.className)(\(v))" }
        return o.className
    }

    func realmSummary(_ realm: Realm) -> String {
        let name = realm.configuration.inMemoryIdentifier ?? realm.configuration.fileURL?.lastPathComponent ?? "?"
        var parts = [String]()
        for o in realm.schema.objectSchemas where !o.isEmbedded {
            parts.append("\(o.className) \((try? realm.objects(o.className).countObjects()) ?? 0)")
        }
        return "Realm(\(name)\(realm.isFrozen ? ", frozen" : "")) schema version \(realm.schemaVersion)"
            + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }

    /// A value the way the `lua` program prints it (strings bare), tables as constructors.
    func display(_ value: LuaValue) throws -> String {
        if case .string(let s) = value { return s }
        return try luaText(value, indent: "")
    }

    // MARK: Lua mode

    func luaText(_ value: LuaValue, indent: String, depth: Int = 0) throws -> String {
        switch value {
        case .nil: return "nil"
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .number(let d): return LuaFormat.number(d)
        case .string(let s): return LuaText.quoted(s)
        case .bytes(let b): return LuaText.quoted(String(decoding: b, as: UTF8.self))
        case .function, .opaque: return try tostring(value)
        case .userdata:
            if let inspected = try reader.inspect(value) {
                switch inspected {
                case .object(let o): return try luaObject(o, indent: indent, depth: depth)
                case .results(let r):
                    var items = [String]()
                    try r.forEach { items.append(try luaObject($0, indent: indent + "  ", depth: depth + 1)) }
                    return luaList(items, indent: indent)
                case .list(let l):
                    return luaList(
                        try l.values().map { try luaLiteral($0, indent: indent + "  ", depth: depth + 1) },
                        indent: indent)
                case .set, .map: break  // as their values, below
                case .realm: return try tostring(value)
                }
            }
            if let v = try? reader.realmValue(value) { return try luaLiteral(v, indent: indent, depth: depth) }
            return try tostring(value)
        case .table(let ref):
            guard depth < 8, let table = try? reader.copy(ref, maxDepth: 8) else { return try tostring(value) }
            return try luaTable(table, indent: indent, depth: depth)
        case .plainTable(let table):
            return try luaTable(table, indent: indent, depth: depth)
        }
    }

    func luaTable(_ table: LuaTable, indent: String, depth: Int) throws -> String {
        var items = try table.array.map { try luaText($0, indent: indent + "  ", depth: depth + 1) }
        let keys = table.hash.keys.sorted { a, b in
            switch (a, b) {
            case (.string(let x), .string(let y)): return x < y
            case (.string, _): return false
            case (_, .string): return true
            default: return a.description < b.description
            }
        }
        for key in keys {
            let v = try luaText(table.hash[key]!, indent: indent + "  ", depth: depth + 1)
            if case .string(let s) = key, LuaText.isIdentifier(s) {
                items.append("\(s) = \(v)")
            } else {
                items.append("[\(try luaText(key, indent: indent, depth: depth + 1))] = \(v)")
            }
        }
        return luaList(items, indent: indent)
    }

    /// `{ a, b }` on one line when short, else one item per line.
    func luaList(_ items: [String], indent: String) -> String {
        if items.isEmpty { return "{}" }
        let oneLine = "{ " + items.joined(separator: ", ") + " }"
        if oneLine.count + indent.count <= 100, !oneLine.contains("\n") { return oneLine }
        return "{\n" + items.map { indent + "  " + $0 + "," }.joined(separator: "\n") + "\n" + indent + "}"
    }

    /// An object as the call that makes it: `Object("Dog", { name = "Bandido", … })`.
    func luaObject(_ o: DynamicObject, indent: String, depth: Int) throws -> String {
        guard let schema = o.objectSchema else { return LuaText.quoted(o.description) }
        if o.isManaged && o.isInvalidated { return "nil --[[ deleted \(o.className) ]]" }
        var items = [String]()
        for p in schema.properties where p.isPersisted {
            let v = try o.value(forKey: p.name)
            if v.isNull { continue }
            let key = LuaText.isIdentifier(p.name) ? p.name : "[\(LuaText.quoted(p.name))]"
            items.append("\(key) = \(try luaLiteral(v, indent: indent + "  ", depth: depth + 1))")
        }
        return "Object(\(LuaText.quoted(o.className)), \(luaList(items, indent: indent)))"
    }

    /// A database value as Lua source.
    func luaLiteral(_ v: RealmValue, indent: String, depth: Int) throws -> String {
        switch v {
        case .null: return "nil"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .float(let f): return LuaFormat.number(Double(f))
        case .double(let d): return LuaFormat.number(d)
        case .string(let s): return LuaText.quoted(s)
        case .data(let d): return "Data(\(LuaText.quoted(String(decoding: d, as: UTF8.self))))"
        case .date(let t): return "Date(\(LuaText.quoted(t.description)))"
        case .decimal128(let d): return "Decimal128(\(LuaText.quoted(d.description)))"
        case .objectId(let o): return "ObjectId(\(LuaText.quoted(o.stringValue)))"
        case .uuid(let u): return "UUID(\(LuaText.quoted(u.uuidString)))"
        case .object(let o):
            if let schema = o.objectSchema, let pk = schema.primaryKey, o.isManaged {
                let key = try luaLiteral(try o.value(forKey: pk), indent: indent, depth: depth + 1)
                return "realm:object(\(LuaText.quoted(o.className)), \(key))"
            }
            guard depth < 6 else { return LuaText.quoted(o.description) }
            return try luaObject(o, indent: indent, depth: depth + 1)
        case .list(let items):
            return luaList(
                try items.map { try luaLiteral($0, indent: indent + "  ", depth: depth + 1) }, indent: indent)
        case .dictionary(let d):
            return luaList(
                try d.keys.sorted().map { k in
                    let key = LuaText.isIdentifier(k) ? k : "[\(LuaText.quoted(k))]"
                    return "\(key) = \(try luaLiteral(d[k]!, indent: indent + "  ", depth: depth + 1))"
                }, indent: indent)
        }
    }

    func tostring(_ value: LuaValue) throws -> String {
        try reader.tostring(value)
    }

    // MARK: JSON mode

    func json(_ value: LuaValue, depth: Int) throws -> String {
        switch value {
        case .nil: return "null"
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .number(let d): return JSONText.number(d)
        case .string(let s): return JSONText.quoted(s)
        case .bytes(let b): return JSONText.quoted(Data(b).base64EncodedString())
        case .function, .opaque: return JSONText.quoted(try tostring(value))
        case .userdata:
            if let inspected = try reader.inspect(value) {
                switch inspected {
                case .object(let o): return try jsonObject(o, depth: depth)
                case .results(let r):
                    var items = [String]()
                    try r.forEach { items.append(try jsonObject($0, depth: depth + 1)) }
                    return JSONText.array(items)
                case .list(let l):
                    return JSONText.array(try l.values().map { try jsonValue($0, depth: depth + 1) })
                case .set, .map: break  // as their values, below
                case .realm: return JSONText.quoted(try tostring(value))
                }
            }
            if let v = try? reader.realmValue(value) { return try jsonValue(v, depth: depth) }
            return JSONText.quoted(try tostring(value))
        case .table(let ref):
            guard depth < 16, let table = try? reader.copy(ref, maxDepth: 16) else {
                return JSONText.quoted(try tostring(value))
            }
            return try json(.plainTable(table), depth: depth)
        case .plainTable(let t):
            if t.hash.isEmpty {
                return JSONText.array(try t.array.map { try json($0, depth: depth + 1) }, compact: true)
            }
            var fields = [(String, String)]()
            for (i, v) in t.array.enumerated() { fields.append((String(i + 1), try json(v, depth: depth + 1))) }
            for (k, v) in t.hash {
                let key: String
                switch k {
                case .string(let s): key = s
                case .integer(let i): key = String(i)
                case .number(let d): key = LuaFormat.number(d)
                default: key = k.description
                }
                fields.append((key, try json(v, depth: depth + 1)))
            }
            return JSONText.object(fields.sorted { $0.0 < $1.0 })
        }
    }

    /// An object's persisted properties in schema order, written by the JSON codec export uses
    /// (its readable style: links by primary key, embedded objects inline).
    func jsonObject(_ o: DynamicObject, depth: Int) throws -> String {
        try RealmValueJSON.encode(object: o, style: .readable, depth: depth).text()
    }

    /// A database value as the JSON codec writes it (dates as `{"$date": …}`, as export does).
    func jsonValue(_ v: RealmValue, depth: Int) throws -> String {
        try RealmValueJSON.encode(v, style: .readable, depth: depth).text()
    }
}

/// Numbers as Lua 5.4 prints them (`%.14g`, and `.0` on floats that look like integers).
enum LuaFormat {
    static func number(_ d: Double) -> String {
        if d.isNaN { return d.sign == .minus ? "-nan" : "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        var s = String(format: "%.14g", d)
        if s.allSatisfy({ $0 == "-" || $0.isNumber }) { s += ".0" }
        return s
    }
}
