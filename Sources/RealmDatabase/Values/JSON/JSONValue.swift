import Foundation

/// One JSON value as the realm formats see it: plain JSON, plus the two shapes the export format
/// gives a meaning to (`{"$date": "…"}`-style tagged values and `{"$ref": key}` links).
///
/// Decoding (`Decodable`) keeps JSON's types apart: `true` is `.bool`, `1` is `.int`, `1.5` is
/// `.double` (a number with an integral value, `1.0`, reads as `.int`: Foundation's decoder does not
/// keep the difference). Objects keep their fields in order, so that writing one back (`text`)
/// follows the schema's order rather than a dictionary's.
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

// MARK: - Decoding

extension JSONValue: Decodable {
    /// Any object key.
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            self = try JSONValue.object(from: keyed)
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var items = [JSONValue]()
            while !unkeyed.isAtEnd { items.append(try unkeyed.decode(JSONValue.self)) }
            self = .array(items)
        } else {
            self = try JSONValue.scalar(from: decoder.singleValueContainer())
        }
    }

    private static func scalar(from single: SingleValueDecodingContainer) throws -> JSONValue {
        if single.decodeNil() { return .null }
        // Bool first: Foundation's decoder refuses to read a number as a Bool (and `true` as a number).
        if let b = try? single.decode(Bool.self) { return .bool(b) }
        if let i = try? single.decode(Int64.self) { return .int(i) }
        if let d = try? single.decode(Double.self) { return .double(d) }
        return .string(try single.decode(String.self))
    }

    /// An object, or a tagged value or link when its keys say so. Fields are sorted by name:
    /// Foundation's decoder gives them in no particular order.
    private static func object(from keyed: KeyedDecodingContainer<Key>) throws -> JSONValue {
        let keys = keyed.allKeys.sorted { $0.stringValue < $1.stringValue }
        let names = keys.map(\.stringValue)
        let isLink = names == ["$ref"] || names == ["$class", "$ref"]
        if isLink, let key = try? keyed.decode(Int64.self, forKey: Key(stringValue: "$ref")) {
            let className = try keyed.decodeIfPresent(String.self, forKey: Key(stringValue: "$class"))
            return .ref(key, className: className)
        }
        if keys.count == 1, let tag = names.first, tag.hasPrefix("$"), tag != "$key",
            let text = try? keyed.decode(String.self, forKey: keys[0])
        {
            return .tagged(tag, text)
        }
        return .object(try keys.map { Field($0.stringValue, try keyed.decode(JSONValue.self, forKey: $0)) })
    }

    /// Parses JSON text.
    ///
    /// - Throws: `RealmJSONError` naming where the text is not JSON (`objects.Dog[3]`).
    public static func parse(_ data: Data) throws -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            let path = JSONPath.text(context.codingPath)
            throw RealmJSONError(path: path, "not valid JSON (\(context.debugDescription))")
        } catch {
            throw RealmJSONError(path: "", "not valid JSON (\(error))")
        }
    }
}

/// A decoding path as the error messages write it: `objects.Dog[3].weight`.
enum JSONPath {
    static func text(_ path: [CodingKey]) -> String {
        var out = ""
        for key in path {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                out += (out.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return out
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
        write(to: &out, layout: layout, indent: "")
        return out
    }

    private func write(to out: inout String, layout: Layout, indent: String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONText.number(d)
        case .string(let s): out += JSONText.quoted(s)
        case .tagged(let tag, let text): out += "{" + JSONText.quoted(tag) + ": " + JSONText.quoted(text) + "}"
        case .ref(let key, let className):
            out += "{\"$ref\": \(key)"
            if let className { out += ", \"$class\": " + JSONText.quoted(className) }
            out += "}"
        case .object(let fields):
            let items = fields.map { (JSONText.quoted($0.name) + ": ", $0.value) }
            JSONValue.writeList(items, open: "{", close: "}", to: &out, layout: layout, indent: indent)
        case .array(let values):
            let items = values.map { ("", $0) }
            JSONValue.writeList(items, open: "[", close: "]", to: &out, layout: layout, indent: indent)
        }
    }

    private static func writeList(
        _ items: [(String, JSONValue)], open: String, close: String,
        to out: inout String, layout: Layout, indent: String
    ) {
        guard !items.isEmpty else {
            out += open + close
            return
        }
        let inner = indent + "  "
        out += open
        for (i, (prefix, value)) in items.enumerated() {
            if i > 0 { out += layout == .line ? ", " : "," }
            if layout == .indented { out += "\n" + inner }
            out += prefix
            value.write(to: &out, layout: layout, indent: inner)
        }
        if layout == .indented { out += "\n" + indent }
        out += close
    }
}
