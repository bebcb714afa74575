import Foundation

/// Writing JSON text by hand, for output whose field order and layout matter (`JSONValue.text`,
/// realm-bench's report): strings escaped as RFC 8259 asks, numbers as JSON reads them.
///
/// A hand writer because `JSONEncoder` on this toolchain emits an object's keys in a different
/// order on every run, and `JSONSerialization` keeps no order: objects must come out in schema order.
public enum JSONText {
    public static func quoted(_ s: String) -> String {
        var out = ""
        appendQuoted(s, to: &out)
        return out
    }

    /// Appends `s` as a JSON string. A string with nothing to escape (the common case) is appended
    /// whole: scalar by scalar, this was most of an API answer's writing time (perf).
    public static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += s
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{08}": out += "\\b"
                case "\u{0C}": out += "\\f"
                default:
                    if scalar.value < 0x20 {
                        out += String(format: "\\u%04x", scalar.value)
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        out += "\""
    }

    public static func number(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(format: "%.1f", d) }
        return "\(d)"
    }

    /// Objects (and arrays of objects) one per line; short arrays of values on one line.
    public static func array(_ items: [String], compact: Bool = false) -> String {
        if items.isEmpty { return "[]" }
        if compact { return "[" + items.joined(separator: ", ") + "]" }
        return "[\n" + items.map { "  " + $0 }.joined(separator: ",\n") + "\n]"
    }

    public static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(quoted($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }
}
