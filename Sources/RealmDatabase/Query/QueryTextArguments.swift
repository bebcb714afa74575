import Foundation
import RealmQuery

/// A query's text with its `$n` arguments written in as literals, as realm-core's query description
/// does: a flexible-sync subscription stores a query as text alone (`Results.queryText`).
enum QueryTextArguments {
    /// `query` with each `$n` replaced by argument n's literal; nil when an argument has none that
    /// means the same everywhere (an object: its key is this file's; a dictionary) or the text does
    /// not tokenize.
    static func substituting(_ query: String, _ arguments: [RealmValue]) -> String? {
        guard !arguments.isEmpty else { return query }
        guard let placeholders = QueryLexer.argumentPlaceholders(in: query) else { return nil }
        let bytes = Array(query.utf8)
        var out: [UInt8] = []
        var copied = 0
        for placeholder in placeholders {
            let n = placeholder.argument
            guard arguments.indices.contains(n), let literal = literal(arguments[n]),
                placeholder.bytes.lowerBound >= copied, placeholder.bytes.upperBound <= bytes.count
            else { return nil }
            out += bytes[copied..<placeholder.bytes.lowerBound]
            out += Array(literal.utf8)
            copied = placeholder.bytes.upperBound
        }
        out += bytes[copied...]
        return String(decoding: out, as: UTF8.self)
    }

    /// The Realm Query Language literal of `value`, which the lexer reads back as the same value.
    static func literal(_ value: RealmValue) -> String? {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return number(d)
        case .float(let f): return number(Double(f)).map { f.isFinite ? $0 + "f" : $0 }
        case .string(let s): return quoted(s)
        case .data(let d): return "B64\"\(d.base64EncodedString())\""
        case .date(let t): return "T\(t.seconds):\(t.nanoseconds)"
        case .decimal128(let d): return d.isNaN || d.isInfinite ? nil : d.description
        case .objectId(let o): return "oid(\(o.stringValue))"
        case .uuid(let u): return "uuid(\(u.uuidString.lowercased()))"
        case .list(let items):
            let literals = items.map(literal)
            guard !literals.contains(where: { $0 == nil }) else { return nil }
            return "{" + literals.compactMap { $0 }.joined(separator: ", ") + "}"
        case .object, .dictionary: return nil
        }
    }

    /// Shortest round-tripping digits (Swift's `description`), or `inf`, `-inf`, `nan`.
    private static func number(_ d: Double) -> String? {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        return "\(d)"
    }

    /// A double-quoted string literal, escaping what the lexer unescapes.
    private static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{0}": out += "\\0"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
