/// Reads JSON text (RFC 8259) into a `JSONValue`, byte by byte.
///
/// Written by hand because it is on every API call's path: Foundation's `JSONDecoder` with a
/// `Decodable` walk took a third of an event loop's time in `serve_read_call` (perf), this a tenth
/// of that. The shapes are `JSONValue`'s: integers that fit `Int64` are `.int` (so is a number with
/// an integral value, `1.0` or `1e3`, as Foundation's decoder read them), other numbers `.double`;
/// objects become tagged values or links where their keys say so (`JSONValue.shaped`).
///
/// Strict where Foundation was lenient: no trailing comma, no leading zero, nothing after the
/// value. A duplicate key keeps its last value (as JavaScript's `JSON.parse` and Go do). Invalid
/// UTF-8, a lone surrogate escape, a control character in a string and a number out of `Double`'s
/// range are refused. Nesting is bounded (`maxDepth`) so that a body of a million `[` cannot
/// exhaust the stack.
struct JSONParser {
    typealias Failure = JSONSyntaxError

    private let bytes: UnsafeRawBufferPointer
    private let maxDepth: Int
    private var at = 0
    private var depth = 0

    private init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// The one value `bytes` hold, with nothing but whitespace around it.
    static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.at == bytes.count else { throw parser.failure("unexpected \(parser.found) after the value") }
        return value
    }

    // MARK: Values

    private mutating func value() throws(Failure) -> JSONValue {
        guard at < bytes.count else { throw failure("the text ends where a value was expected") }
        switch bytes[at] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected \(found) where a value was expected")
        }
    }

    private mutating func object() throws(Failure) -> JSONValue {
        try enter()
        at += 1
        var fields: [JSONValue.Field] = []
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            at += 1
            depth -= 1
            return .object([])
        }
        while true {
            guard peek(UInt8(ascii: "\"")) else { throw failure("unexpected \(found) where a key was expected") }
            let name = try string()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw failure("unexpected \(found) where ':' was expected") }
            at += 1
            skipWhitespace()
            let value = try value()
            if let same = fields.firstIndex(where: { $0.name == name }) {
                fields[same].value = value
            } else {
                fields.append(JSONValue.Field(name, value))
            }
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                at += 1
                skipWhitespace()
                continue
            }
            guard peek(UInt8(ascii: "}")) else { throw failure("unexpected \(found) where ',' or '}' was expected") }
            at += 1
            depth -= 1
            return JSONValue.shaped(fields)
        }
    }

    private mutating func array() throws(Failure) -> JSONValue {
        try enter()
        at += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            at += 1
            depth -= 1
            return .array([])
        }
        while true {
            items.append(try value())
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                at += 1
                skipWhitespace()
                continue
            }
            guard peek(UInt8(ascii: "]")) else { throw failure("unexpected \(found) where ',' or ']' was expected") }
            at += 1
            depth -= 1
            return .array(items)
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= maxDepth else {
            throw Failure(offset: at, reason: "nests deeper than \(maxDepth) levels", tooDeep: true)
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count else { throw failure("unexpected \(found) where a value was expected") }
        for i in 0..<count where bytes[at + i] != word.utf8Start[i] {
            throw failure("unexpected \(found) where a value was expected")
        }
        at += count
        return value
    }

    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() throws(Failure) -> JSONValue {
        let start = at
        if peek(UInt8(ascii: "-")) { at += 1 }
        if peek(UInt8(ascii: "0")) {
            at += 1
            if peekDigit() { throw failure("a number may not start with 0") }
        } else {
            guard peekDigit() else { throw failure("a digit must follow '-'") }
            skipDigits()
        }
        var integral = true
        if peek(UInt8(ascii: ".")) {
            integral = false
            at += 1
            guard peekDigit() else { throw failure("a digit must follow the decimal point") }
            skipDigits()
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            integral = false
            at += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { at += 1 }
            guard peekDigit() else { throw failure("a digit must follow the exponent") }
            skipDigits()
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<at])
        if integral, let int = Self.int64(text) { return .int(int) }
        guard let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite else {
            throw Failure(offset: start, reason: "the number is out of range", tooDeep: false)
        }
        // An integral value reads as an integer, as it did through Foundation's decoder.
        if double == double.rounded(), abs(double) < 9.2e18 { return .int(Int64(double)) }
        return .double(double)
    }

    /// Decimal digits with an optional '-' as an `Int64`; nil when they overflow it.
    private static func int64(_ text: UnsafeRawBufferPointer) -> Int64? {
        let negative = text.first == UInt8(ascii: "-")
        var value: Int64 = 0
        for byte in text.dropFirst(negative ? 1 : 0) {
            let digit = Int64(byte &- UInt8(ascii: "0"))
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            value = next
        }
        return value
    }

    private func peekDigit() -> Bool {
        at < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at])
    }

    private mutating func skipDigits() {
        while peekDigit() { at += 1 }
    }

    // MARK: Strings

    /// A string from its opening quote; the bytes between quotes are taken whole when nothing is
    /// escaped (the common case), else decoded run by run.
    private mutating func string() throws(Failure) -> String {
        let open = at
        at += 1
        var runStart = at
        var decoded: [UInt8]? = nil
        while at < bytes.count {
            let byte = bytes[at]
            if byte == UInt8(ascii: "\"") {
                let tail = UnsafeRawBufferPointer(rebasing: bytes[runStart..<at])
                at += 1
                if var decoded {
                    decoded.append(contentsOf: tail)
                    return try text(decoded, from: open)
                }
                return try text(tail, from: open)
            }
            if byte < 0x20 { throw failure("a control character must be escaped in a string") }
            if byte == UInt8(ascii: "\\") {
                var buffer = decoded ?? []
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<at]))
                try escape(into: &buffer)
                decoded = buffer
                runStart = at
                continue
            }
            at += 1
        }
        throw Failure(offset: open, reason: "the string is not closed", tooDeep: false)
    }

    private func text(_ utf8: some Collection<UInt8>, from open: Int) throws(Failure) -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else {
            throw Failure(offset: open, reason: "the string is not valid UTF-8", tooDeep: false)
        }
        return text
    }

    /// One escape sequence from its backslash, appended as UTF-8.
    private mutating func escape(into out: inout [UInt8]) throws(Failure) {
        at += 1
        guard at < bytes.count else { throw failure("the text ends inside an escape") }
        let letter = bytes[at]
        at += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(letter)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard peek(UInt8(ascii: "\\")), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") else {
                    throw failure("a high surrogate must be followed by a low one")
                }
                at += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else {
                    throw failure("a high surrogate must be followed by a low one")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("a low surrogate without a high one")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("not a Unicode scalar") }
            out.append(contentsOf: unicode.utf8)
        default:
            at -= 1
            throw failure("unknown escape '\\\(Character(Unicode.Scalar(letter)))'")
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard at + 4 <= bytes.count else { throw failure("\\u must be followed by four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[at]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("\\u must be followed by four hex digits")
            }
            value = value << 4 | UInt32(digit)
            at += 1
        }
        return value
    }

    // MARK: Bytes

    private func peek(_ byte: UInt8) -> Bool { at < bytes.count && bytes[at] == byte }

    private mutating func skipWhitespace() {
        while at < bytes.count {
            switch bytes[at] {
            case 0x20, 0x0A, 0x0D, 0x09: at += 1
            default: return
            }
        }
    }

    /// What is at the current byte, for a message: `'x'`, `byte 0xff` or `the end of the text`.
    private var found: String {
        guard at < bytes.count else { return "the end of the text" }
        let byte = bytes[at]
        return (0x21..<0x7F).contains(byte)
            ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    private func failure(_ reason: String) -> Failure { Failure(offset: at, reason: reason, tooDeep: false) }
}

/// Why JSON text was refused, and at which byte (from 0).
public struct JSONSyntaxError: Error, CustomStringConvertible, Sendable {
    public let offset: Int
    public let reason: String
    /// The nesting went past the limit (an API answers it with its own words).
    public let tooDeep: Bool

    public var description: String { "\(reason) at byte \(offset)" }
}
