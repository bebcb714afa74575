import RealmDatabase
import RealmHost

/// Schemas as people read them: a table per class, or the Lua notation plugins declare them in.
enum SchemaText {
    /// One table per class (or only `className`), properties in schema order.
    static func tables(_ schema: Schema, only className: String? = nil, style: Style) -> String {
        let classes = schema.objectSchemas.filter { className == nil || $0.className == className }
        return classes.map { table($0, style: style) }.joined(separator: "\n\n")
    }

    static func table(_ objectSchema: ObjectSchema, style: Style) -> String {
        var title = style.bold(objectSchema.className)
        if objectSchema.isEmbedded { title += style.dim(" (embedded)") }
        if let pk = objectSchema.primaryKey { title += style.dim(" (primary key \(pk))") }
        var table = TextTable(headers: ["property", "type", "notes"])
        for p in objectSchema.properties {
            var notes = [String]()
            if p.isPrimaryKey { notes.append("primary key") }
            if p.isIndexed && !p.isPrimaryKey { notes.append("indexed") }
            if let d = p.defaultValue { notes.append("default \(literal(d))") }
            if p.type == .linkingObjects {
                let (origin, originProperty) = (p.objectClassName ?? "?", p.linkOriginPropertyName ?? "?")
                notes.append("computed: the \(origin) objects whose \(originProperty) link here")
            }
            table.rows.append([p.name, p.typeString, notes.joined(separator: ", ")])
        }
        table.maxCellWidth = 80
        return title + "\n" + table.render(style: style)
    }

    /// The schema as a plugin declares it (LUA-API.md's notation).
    static func lua(_ schema: Schema) -> String {
        var lines = ["schema = {"]
        for o in schema.objectSchemas {
            var head = "  { name = \(quoted(o.className))"
            if let pk = o.primaryKey { head += ", primaryKey = \(quoted(pk))" }
            if o.isEmbedded { head += ", embedded = true" }
            lines.append(head + ", properties = {")
            for p in o.properties {
                let value: String
                if p.type == .linkingObjects {
                    let objectType = quoted(p.objectClassName ?? "")
                    let property = quoted(p.linkOriginPropertyName ?? "")
                    value = "{ type = \"linkingObjects\", objectType = \(objectType), property = \(property) }"
                } else if p.defaultValue != nil || (p.isIndexed && !p.isPrimaryKey) {
                    var fields = ["type = \(quoted(p.typeString))"]
                    if p.isIndexed && !p.isPrimaryKey { fields.append("indexed = true") }
                    if let d = p.defaultValue { fields.append("default = \(literal(d))") }
                    value = "{ " + fields.joined(separator: ", ") + " }"
                } else {
                    value = quoted(p.typeString)
                }
                let key = isIdentifier(p.name) ? p.name : "[\(quoted(p.name))]"
                lines.append("      \(key) = \(value),")
            }
            lines.append("  }},")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    static func literal(_ v: RealmValue) -> String {
        switch v {
        case .string(let s): return quoted(s)
        case .null: return "nil"
        default: return v.description
        }
    }

    static func quoted(_ s: String) -> String { LuaText.quoted(s) }

    static func isIdentifier(_ s: String) -> Bool { LuaText.isIdentifier(s) }
}

/// Lua source text helpers.
enum LuaText {
    static let keywords: Set<String> = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return s.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        } && !keywords.contains(s)
    }

    /// A Lua string literal.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    // Three digits always: Lua reads up to three after `\`, so "\1" followed by
                    // the character "2" would read back as "\12".
                    out += String(format: "\\%03d", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
