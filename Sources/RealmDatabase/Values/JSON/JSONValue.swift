import Foundation

/// One JSON value as the realm formats see it: plain JSON, plus the two shapes the export format
/// gives a meaning to (`{"$date": "…"}`-style tagged values and `{"$ref": key}` links).
///
/// Reading (`parse`) keeps JSON's types apart: `true` is `.bool`, `1` is `.int`, `1.5` is
/// `.double` (a number with an integral value, `1.0`, reads as `.int`). Objects keep their fields
/// in order, so that writing one back (`text`) follows the schema's order rather than a
/// dictionary's; parsed objects have theirs sorted by name.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    /// A value of a type JSON lacks, by its tag and text: `{"$date": "2024-01-01T00:00:00Z"}`.
    case tagged(String, String)
    /// A link to the object exported with `"$key": key`; a link in a mixed value names its class.
    case ref(Int64, className: String?)
    case object([Field])
    case array([JSONValue])

    /// One field of an object.
    public struct Field: Equatable, Sendable {
        public var name: String
        public var value: JSONValue

        public init(_ name: String, _ value: JSONValue) {
            self.name = name
            self.value = value
        }
    }

    /// The value of an object's field, nil for other values or a missing field.
    public subscript(field name: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.name == name }?.value
    }

    /// A short name of the value's JSON kind, for error messages ("found a boolean").
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a number"
        case .string: return "a string"
        case .tagged(let tag, _): return "a \(tag) value"
        case .ref: return "a $ref link"
        case .object: return "an object"
        case .array: return "an array"
        }
    }
}

// MARK: - Reading

extension JSONValue {
    /// Parses JSON text (`JSONParser`: strict RFC 8259, nested at most 512 levels).
    ///
    /// - Throws: `RealmJSONError` naming the byte where the text stops being JSON.
    public static func parse(_ data: Data) throws -> JSONValue {
        do {
            return try parse(data, maxDepth: 512)
        } catch {
            throw RealmJSONError(path: "", "not valid JSON (\(error))")
        }
    }

    /// Parses JSON text nested at most `maxDepth` levels.
    public static func parse(_ data: Data, maxDepth: Int) throws(JSONSyntaxError) -> JSONValue {
        // `withUnsafeBytes` rethrows untyped errors: the result carries the typed one out.
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(JSONSyntaxError) in try JSONParser.parse(bytes, maxDepth: maxDepth) }
        }
        return try result.get()
    }

    /// An object's fields as the realm formats read them: a link when they are `$ref` (and
    /// `$class`), a tagged value when there is one `$`-named string field (not `$key`), else an
    /// object with its fields sorted by name (as they were read before `JSONParser`, so that the
    /// writers' output did not change).
    static func shaped(_ fields: [Field]) -> JSONValue {
        let sorted = fields.sorted { $0.name < $1.name }
        let names = sorted.map(\.name)
        if names == ["$ref"] || names == ["$class", "$ref"], case .int(let key) = sorted[names.count - 1].value {
            if names.count == 1 { return .ref(key, className: nil) }
            if case .string(let className) = sorted[0].value { return .ref(key, className: className) }
        }
        if sorted.count == 1, sorted[0].name.hasPrefix("$"), sorted[0].name != "$key",
            case .string(let text) = sorted[0].value
        {
            return .tagged(sorted[0].name, text)
        }
        return .object(sorted)
    }
}

// MARK: - Writing

extension JSONValue {
    /// How `text` lays a value out.
    public enum Layout: Sendable {
        /// All on one line, `{"name": "Rex", "tags": ["a", "b"]}` (the REPL).
        case line
        /// One field or item per line, indented by two spaces (export files).
        case indented
    }

    /// The value as JSON text, objects' fields in their order.
    public func text(_ layout: Layout = .line) -> String {
        var out = ""
        // Room for a log line or a small answer: growing from empty reallocates at every doubling.
        out.reserveCapacity(256)
        write(to: &out, layout: layout, indent: "")
        return out
    }

    private func write(to out: inout String, layout: Layout, indent: String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONText.number(d)
        case .string(let s): JSONText.appendQuoted(s, to: &out)
        case .tagged(let tag, let text):
            out += "{"
            JSONText.appendQuoted(tag, to: &out)
            out += ": "
            JSONText.appendQuoted(text, to: &out)
            out += "}"
        case .ref(let key, let className):
            out += "{\"$ref\": \(key)"
            if let className {
                out += ", \"$class\": "
                JSONText.appendQuoted(className, to: &out)
            }
            out += "}"
        case .object(let fields):
            JSONValue.writeList(fields, open: "{", close: "}", to: &out, layout: layout, indent: indent) { field, out in
                JSONText.appendQuoted(field.name, to: &out)
                out += ": "
                field.value.write(to: &out, layout: layout, indent: indent + "  ")
            }
        case .array(let values):
            JSONValue.writeList(values, open: "[", close: "]", to: &out, layout: layout, indent: indent) { value, out in
                value.write(to: &out, layout: layout, indent: indent + "  ")
            }
        }
    }

    /// The items between `open` and `close`, each written by `item`: on one line, or one per line
    /// indented by two spaces more than `indent`.
    private static func writeList<Item>(
        _ items: [Item], open: String, close: String, to out: inout String, layout: Layout, indent: String,
        item: (Item, inout String) -> Void
    ) {
        guard !items.isEmpty else {
            out += open + close
            return
        }
        out += open
        for (i, value) in items.enumerated() {
            if i > 0 { out += layout == .line ? ", " : "," }
            if layout == .indented { out += "\n" + indent + "  " }
            item(value, &out)
        }
        if layout == .indented { out += "\n" + indent }
        out += close
    }
}
