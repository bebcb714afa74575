import Foundation

// The Realm Query Language tokenizer, modelled on realm-core's `query_flex.ll`: longest match,
// words are classified by the parser in context (keywords such as `sort` or `contains` are also
// valid property names), numbers carry a sign only when the sign touches the digits.

/// A lexical token with its byte offset in the UTF-8 query text.
/// Operators and punctuation (normalised: `=` is `==`, `<>` is `!=`, `=<` is `<=`, `=>` is `>=`).
enum QuerySymbol: String {
    case equal = "==", notEqual = "!=", less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
    case and = "&&", or = "||", bang = "!", plus = "+", minus = "-", star = "*", slash = "/"
    case leftParen = "(", rightParen = ")", leftBracket = "[", rightBracket = "]", leftBrace = "{", rightBrace = "}"
    case comma = ",", dot = "."
}

/// Words with a meaning in some position, classified once with Realm's case rules
/// (`and`, `or`, `null`, `sort`, … in any case; `not`, `in`, `any`, `true`, … lower or upper case only).
enum QueryKeyword {
    case and, or, not, any, all, noneOf, truePredicate, falsePredicate, trueValue, falseValue, null, infinity, nan
    case subquery, sort, distinct, limit, ascending, descending
    case beginsWith, endsWith, contains, like, between, `in`, text, first, last

    /// Up to 16 ASCII bytes packed into two integers, to look words up without allocating.
    struct Packed: Hashable {
        var a: UInt64 = 0
        var b: UInt64 = 0

        init?<C: Collection>(_ bytes: C, lowercase: Bool) where C.Element == UInt8 {
            guard bytes.count <= 16 else { return nil }
            var i = 0
            for var c in bytes {
                guard c < 0x80 else { return nil }
                if lowercase && c >= 0x41 && c <= 0x5A { c += 32 }
                if i < 8 { a |= UInt64(c) << (8 * UInt64(i)) } else { b |= UInt64(c) << (8 * UInt64(i - 8)) }
                i += 1
            }
        }
    }

    /// Keywords that must be written in lower or upper case exactly.
    private static let exactCase: [Packed: QueryKeyword] = {
        var t = [Packed: QueryKeyword]()
        let words: [(String, QueryKeyword)] = [
            ("not", .not), ("NOT", .not), ("any", .any), ("ANY", .any), ("some", .any), ("SOME", .any),
            ("all", .all), ("ALL", .all), ("none", .noneOf), ("NONE", .noneOf), ("true", .trueValue), ("TRUE", .trueValue),
            ("false", .falseValue), ("FALSE", .falseValue), ("in", .in), ("IN", .in),
        ]
        for (w, k) in words { t[Packed(Array(w.utf8), lowercase: false)!] = k }
        return t
    }()

    /// Keywords in any case, by their lower-case spelling.
    private static let anyCase: [Packed: QueryKeyword] = {
        var t = [Packed: QueryKeyword]()
        let words: [(String, QueryKeyword)] = [
            ("and", .and), ("or", .or), ("truepredicate", .truePredicate), ("falsepredicate", .falsePredicate),
            ("null", .null), ("nil", .null), ("inf", .infinity), ("infinity", .infinity), ("nan", .nan),
            ("subquery", .subquery), ("sort", .sort), ("distinct", .distinct), ("limit", .limit),
            ("asc", .ascending), ("ascending", .ascending), ("desc", .descending), ("descending", .descending),
            ("beginswith", .beginsWith), ("endswith", .endsWith), ("contains", .contains), ("like", .like),
            ("between", .between), ("text", .text), ("first", .first), ("last", .last),
        ]
        for (w, k) in words { t[Packed(Array(w.utf8), lowercase: false)!] = k }
        return t
    }()

    static func classify<C: Collection>(_ word: C) -> QueryKeyword? where C.Element == UInt8 {
        guard word.count >= 2, word.count <= 14 else { return nil }
        if let p = Packed(word, lowercase: false), let k = exactCase[p] { return k }
        if let p = Packed(word, lowercase: true), let k = anyCase[p] { return k }
        return nil
    }

    static func classify(_ word: String) -> QueryKeyword? { classify(Array(word.utf8)) }
}

struct QueryToken {
    enum Kind {
        /// An identifier-like word; `keyword` tells what it could mean (decided by the parser in context).
        case word(String, keyword: QueryKeyword?)
        /// `$0`, `$1`, …
        case argument(Int)
        case integer(Int64, text: String)
        /// A float literal; `text` keeps the digits for exact decimal128 conversion. `isFloat`: `f` suffix.
        case float(Double, text: String, isFloat: Bool)
        /// `inf`, `-infinity`, `nan` (sign included).
        case special(Double, text: String)
        case string(String)
        case base64(Data, text: String)
        case timestamp(Timestamp)
        case objectId(ObjectId)
        case uuid(UUID)
        /// `O<key>`: an object key literal.
        case objectKey(Int64)
        /// `[c]`, `[d]`, `[cd]`: case- and diacritic-insensitivity.
        case modifier(caseInsensitive: Bool, diacriticInsensitive: Bool)
        /// `@count`, `@size`, `@sum`, `@avg`, `@min`, `@max`, `@links`, `@type`, `@keys`, `@values`.
        case atKeyword(String)
        case symbol(QuerySymbol)
        case end
    }

    var kind: Kind
    /// Byte offset of the token's first byte.
    var offset: Int
    /// Byte length of the token's text.
    var length: Int
}

/// A syntax error found while tokenizing or parsing, with the byte offset of the offending text.
struct QuerySyntaxError: Error {
    var offset: Int
    var message: String
}

struct QueryLexer {
    /// The query's UTF-8 bytes (a buffer pointer: no reference counting or copies per access).
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var tokens: [QueryToken] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func tokenize(_ text: String) throws -> [QueryToken] {
        let utf8 = Array(text.utf8)
        return try utf8.withUnsafeBufferPointer { buffer in
            var lexer = QueryLexer(buffer)
            lexer.tokens.reserveCapacity(utf8.count / 3 + 2)
            try lexer.run()
            return lexer.tokens
        }
    }

    // MARK: - Character classes

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    @inline(__always) static func isHex(_ c: UInt8) -> Bool { isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46) }
    @inline(__always) static func isLetter(_ c: UInt8) -> Bool { (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) }
    /// First character of an identifier: a letter, `_`, `$`, or the lead byte of a multi-byte UTF-8 sequence.
    @inline(__always) static func isIdentifierStart(_ c: UInt8) -> Bool { isLetter(c) || c == 0x5F || c == 0x24 || c >= 0xC2 }
    /// Later characters: letters, digits, `_`, `-`, `$`, and UTF-8 bytes.
    @inline(__always) static func isIdentifierChar(_ c: UInt8) -> Bool { isIdentifierStart(c) || isDigit(c) || c == 0x2D || c >= 0x80 }

    private func at(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

    // MARK: - Tokenizing

    mutating func run() throws {
        var i = 0
        let n = bytes.count
        while true {
            while i < n, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0D || bytes[i] == 0x0A { i += 1 }
            if i >= n {
                tokens.append(QueryToken(kind: .end, offset: n, length: 0))
                return
            }
            let start = i
            let kind = try scan(&i)
            tokens.append(QueryToken(kind: kind, offset: start, length: i - start))
        }
    }

    private func scan(_ i: inout Int) throws -> QueryToken.Kind {
        let start = i
        let c = bytes[i]

        // Numbers (with a sign touching the digits), timestamps, special floats with a sign.
        if Self.isDigit(c) || (c == 0x2E && Self.isDigit(at(i + 1))) {
            if let ts = try scanReadableTimestamp(&i) { return ts }
            return try scanNumber(&i, signed: false)
        }
        if c == 0x2B || c == 0x2D { // + -
            let next = at(i + 1)
            if Self.isDigit(next) || (next == 0x2E && Self.isDigit(at(i + 2))) {
                return try scanNumber(&i, signed: true)
            }
            if let special = scanSpecialFloat(from: i + 1) {
                i = special.end
                return .special(c == 0x2D ? -special.value : special.value, text: String(decoding: bytes[start..<i], as: UTF8.self))
            }
            i += 1
            return .symbol(c == 0x2B ? .plus : .minus)
        }
        // Strings.
        if c == 0x22 || c == 0x27 { return .string(try scanString(&i)) }
        // `@keyword`.
        if c == 0x40 {
            var j = i + 1
            while j < bytes.count, Self.isLetter(bytes[j]) { j += 1 }
            let word = String(decoding: bytes[(i + 1)..<j], as: UTF8.self)
            let known = ["count", "size", "sum", "avg", "min", "max", "links", "type", "keys", "values"]
            guard known.contains(word) else {
                throw QuerySyntaxError(offset: start, message: word.isEmpty
                    ? "invalid character '@'"
                    : "unknown operator '@\(word)' (expected one of @count, @size, @sum, @avg, @min, @max, @links, @type, @keys, @values)")
            }
            i = j
            return .atKeyword(word)
        }
        // `[c]`, `[d]`, `[cd]`, `[dc]`.
        if c == 0x5B {
            let b1 = at(i + 1), b2 = at(i + 2), b3 = at(i + 3)
            if (b1 == 0x63 || b1 == 0x64) && b2 == 0x5D {
                i += 3
                return .modifier(caseInsensitive: b1 == 0x63, diacriticInsensitive: b1 == 0x64)
            }
            if (b1 == 0x63 && b2 == 0x64 || b1 == 0x64 && b2 == 0x63) && b3 == 0x5D {
                i += 4
                return .modifier(caseInsensitive: true, diacriticInsensitive: true)
            }
            i += 1
            return .symbol(.leftBracket)
        }
        // Words (and the literal forms that start like words).
        if Self.isIdentifierStart(c) || c == 0x5C {
            return try scanWordLike(&i)
        }
        // Operators and punctuation.
        let d = at(i + 1)
        switch (c, d) {
        case (0x3D, 0x3D): i += 2; return .symbol(.equal)
        case (0x21, 0x3D), (0x3C, 0x3E): i += 2; return .symbol(.notEqual)
        case (0x3C, 0x3D), (0x3D, 0x3C): i += 2; return .symbol(.lessEqual)
        case (0x3E, 0x3D), (0x3D, 0x3E): i += 2; return .symbol(.greaterEqual)
        case (0x26, 0x26): i += 2; return .symbol(.and)
        case (0x7C, 0x7C): i += 2; return .symbol(.or)
        default: break
        }
        switch c {
        case 0x3D: i += 1; return .symbol(.equal)
        case 0x3C: i += 1; return .symbol(.less)
        case 0x3E: i += 1; return .symbol(.greater)
        case 0x21: i += 1; return .symbol(.bang)
        case 0x2A: i += 1; return .symbol(.star)
        case 0x2F: i += 1; return .symbol(.slash)
        case 0x28: i += 1; return .symbol(.leftParen)
        case 0x29: i += 1; return .symbol(.rightParen)
        case 0x5D: i += 1; return .symbol(.rightBracket)
        case 0x7B: i += 1; return .symbol(.leftBrace)
        case 0x7D: i += 1; return .symbol(.rightBrace)
        case 0x2C: i += 1; return .symbol(.comma)
        case 0x2E: i += 1; return .symbol(.dot)
        default:
            throw QuerySyntaxError(offset: start, message: "invalid character '\(Self.describeCharacter(at: start, in: bytes))'")
        }
    }

    static func describeCharacter<C: RandomAccessCollection>(at offset: Int, in bytes: C) -> String where C.Element == UInt8, C.Index == Int {
        guard offset < bytes.count else { return "" }
        var end = offset + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        let s = String(decoding: bytes[offset..<end], as: UTF8.self)
        if let scalar = s.unicodeScalars.first, scalar.value < 0x20 || scalar.value == 0x7F {
            return String(format: "\\u%04X", scalar.value)
        }
        return s
    }

    /// `inf`, `infinity`, `nan` (any case) starting at `j`, not followed by an identifier character.
    private func scanSpecialFloat(from j: Int) -> (value: Double, end: Int)? {
        // At most the 8 letters of "infinity", and then the word must end: scanning the whole
        // identifier instead (which may go on with '-') made a run of '-' quadratic.
        var k = j
        while k < bytes.count, k - j < 9, Self.isLetter(bytes[k]) { k += 1 }
        guard k > j, k - j <= 8, !Self.isIdentifierChar(at(k)) else { return nil }
        let word = String(decoding: bytes[j..<k], as: UTF8.self).lowercased()
        switch word {
        case "inf", "infinity": return (Double.infinity, k)
        case "nan": return (Double.nan, k)
        default: return nil
        }
    }

    private func scanNumber(_ i: inout Int, signed: Bool) throws -> QueryToken.Kind {
        let start = i
        var j = i
        var negative = false
        if signed { negative = bytes[j] == 0x2D; j += 1 }
        // Hexadecimal.
        if at(j) == 0x30, at(j + 1) == 0x78 || at(j + 1) == 0x58 {
            var k = j + 2
            while k < bytes.count, Self.isHex(bytes[k]) { k += 1 }
            if k > j + 2 {
                let hex = String(decoding: bytes[(j + 2)..<k], as: UTF8.self)
                guard let magnitude = UInt64(hex, radix: 16) else {
                    throw QuerySyntaxError(offset: start, message: "hexadecimal number '\(String(decoding: bytes[start..<k], as: UTF8.self))' is out of range")
                }
                let value: Int64
                if negative {
                    guard magnitude <= UInt64(Int64.max) + 1 else {
                        throw QuerySyntaxError(offset: start, message: "number '\(String(decoding: bytes[start..<k], as: UTF8.self))' is out of range")
                    }
                    value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
                } else {
                    guard magnitude <= UInt64(Int64.max) else {
                        throw QuerySyntaxError(offset: start, message: "number '\(String(decoding: bytes[start..<k], as: UTF8.self))' is out of range")
                    }
                    value = Int64(magnitude)
                }
                i = k
                return .integer(value, text: String(decoding: bytes[start..<k], as: UTF8.self))
            }
        }
        var k = j
        while k < bytes.count, Self.isDigit(bytes[k]) { k += 1 }
        let intEnd = k
        var isFloatLiteral = false
        if at(k) == 0x2E, Self.isDigit(at(k + 1)) || k > j {
            // `10.`, `.5`, `1.25`
            isFloatLiteral = true
            k += 1
            while k < bytes.count, Self.isDigit(bytes[k]) { k += 1 }
        }
        if at(k) == 0x65 || at(k) == 0x45 { // exponent
            var e = k + 1
            if at(e) == 0x2B || at(e) == 0x2D { e += 1 }
            if Self.isDigit(at(e)) {
                while e < bytes.count, Self.isDigit(bytes[e]) { e += 1 }
                isFloatLiteral = true
                k = e
            }
        }
        var floatSuffix = false
        if at(k) == 0x66, !Self.isIdentifierChar(at(k + 1)) { // `f` suffix: a float
            floatSuffix = true
            isFloatLiteral = true
        }
        let text = String(decoding: bytes[start..<k], as: UTF8.self)
        if floatSuffix { k += 1 }
        i = k
        if !isFloatLiteral {
            if let v = Int64(text) { return .integer(v, text: text) }
            // Too large for an int: keep it as a float (still exact for decimal128 conversion).
            return .float(Double(text) ?? .nan, text: text, isFloat: false)
        }
        _ = intEnd
        guard let v = Double(text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
            throw QuerySyntaxError(offset: start, message: "invalid number '\(text)'")
        }
        return .float(v, text: text, isFloat: floatSuffix)
    }

    /// `YYYY-MM-DD@HH:MM:SS[:NANOS]` or with `T`; returns nil when the text is not shaped like one.
    private func scanReadableTimestamp(_ i: inout Int) throws -> QueryToken.Kind? {
        var j = i
        func digits() -> (Int64, Int)? {
            let s = j
            var v: Int64 = 0
            while j < bytes.count, Self.isDigit(bytes[j]) {
                if v < 100_000_000_000 { v = v * 10 + Int64(bytes[j] - 0x30) }
                j += 1
            }
            return j > s ? (v, j - s) : nil
        }
        guard let year = digits(), at(j) == 0x2D else { return nil }
        j += 1
        guard let month = digits(), at(j) == 0x2D else { return nil }
        j += 1
        guard let day = digits() else { return nil }
        guard at(j) == 0x40 || at(j) == 0x54 else {
            // `2017-12-04` without a time: not a timestamp (Realm requires the time part).
            if at(j) == 0x20 || at(j) == 0 || at(j) == 0x29 || at(j) == 0x2C || at(j) == 0x7D {
                throw QuerySyntaxError(offset: i, message: "invalid date '\(String(decoding: bytes[i..<j], as: UTF8.self))': expected '@' or 'T' and a time (YYYY-MM-DD@HH:MM:SS)")
            }
            return nil
        }
        j += 1
        guard let hour = digits(), at(j) == 0x3A else {
            throw QuerySyntaxError(offset: i, message: "invalid date '\(String(decoding: bytes[i..<j], as: UTF8.self))': expected HH:MM:SS after the date")
        }
        j += 1
        guard let minute = digits(), at(j) == 0x3A else {
            throw QuerySyntaxError(offset: i, message: "invalid date '\(String(decoding: bytes[i..<j], as: UTF8.self))': expected HH:MM:SS after the date")
        }
        j += 1
        guard let second = digits() else {
            throw QuerySyntaxError(offset: i, message: "invalid date '\(String(decoding: bytes[i..<j], as: UTF8.self))': expected the seconds")
        }
        var nanos: Int64 = 0
        if at(j) == 0x3A {
            j += 1
            guard let ns = digits() else {
                throw QuerySyntaxError(offset: i, message: "invalid date '\(String(decoding: bytes[i..<j], as: UTF8.self))': expected nanoseconds after ':'")
            }
            nanos = ns.0
        }
        if Self.isIdentifierChar(at(j)) || at(j) == 0x3A || at(j) == 0x40 {
            throw QuerySyntaxError(offset: i, message: "invalid date '\(String(decoding: bytes[i..<min(j + 1, bytes.count)], as: UTF8.self))'")
        }
        let text = String(decoding: bytes[i..<j], as: UTF8.self)
        guard year.0 >= 1900 else {
            throw QuerySyntaxError(offset: i, message: "Conversion of dates before 1900 is not supported.")
        }
        guard (1...12).contains(month.0), (1...31).contains(day.0), hour.0 < 24, minute.0 < 60, second.0 < 61,
              nanos < 1_000_000_000, year.0 < 10_000 else {
            throw QuerySyntaxError(offset: i, message: "invalid date '\(text)'")
        }
        var seconds = daysFromCivil(year.0, Int(month.0), Int(day.0)) * 86400 + hour.0 * 3600 + minute.0 * 60 + second.0
        var ns = nanos
        // Realm's quirk: before the epoch, the nanoseconds take the sign of the seconds.
        if seconds < 0 { ns = -ns }
        if seconds == 0 && ns < 0 { seconds = 0 }
        guard let ts = Timestamp(seconds: seconds, nanoseconds: Int32(ns)), ts.storedNanoseconds != nil else {
            throw QuerySyntaxError(offset: i, message: "date '\(text)' is out of the supported range")
        }
        i = j
        return .timestamp(ts)
    }

    private func scanString(_ i: inout Int) throws -> String {
        let start = i
        let quote = bytes[i]
        var j = i + 1
        var out = [UInt8]()
        while true {
            guard j < bytes.count else {
                throw QuerySyntaxError(offset: start, message: "unterminated string literal")
            }
            let c = bytes[j]
            if c == quote { j += 1; break }
            if c == 0x5C {
                let e = at(j + 1)
                switch e {
                case 0x22: out.append(0x22)
                case 0x27: out.append(0x27)
                case 0x5C: out.append(0x5C)
                case 0x2F: out.append(0x2F)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x30: out.append(0x00)
                case 0x75:
                    var v: UInt32 = 0
                    for k in 0..<4 {
                        let h = at(j + 2 + k)
                        guard let d = hexValue(h) else {
                            throw QuerySyntaxError(offset: j, message: "invalid unicode escape in string: expected 4 hexadecimal digits after '\\u'")
                        }
                        v = v << 4 | UInt32(d)
                    }
                    let scalar = Unicode.Scalar(v) ?? Unicode.Scalar(0xFFFD)!
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    j += 6
                    continue
                default:
                    throw QuerySyntaxError(offset: j, message: "invalid escape sequence '\\\(Self.describeCharacter(at: j + 1, in: bytes))' in string")
                }
                j += 2
                continue
            }
            out.append(c)
            j += 1
        }
        i = j
        return String(decoding: out, as: UTF8.self)
    }

    private func scanWordLike(_ i: inout Int) throws -> QueryToken.Kind {
        let start = i
        // `T<seconds>:<nanos>`
        if bytes[i] == 0x54 {
            var j = i + 1
            var negSeconds = false
            if at(j) == 0x2B || at(j) == 0x2D { negSeconds = at(j) == 0x2D; j += 1 }
            let ds = j
            while j < bytes.count, Self.isDigit(bytes[j]) { j += 1 }
            if j > ds, at(j) == 0x3A {
                let secondsText = String(decoding: bytes[ds..<j], as: UTF8.self)
                j += 1
                var negNanos = false
                if at(j) == 0x2B || at(j) == 0x2D { negNanos = at(j) == 0x2D; j += 1 }
                let dn = j
                while j < bytes.count, Self.isDigit(bytes[j]) { j += 1 }
                if j > dn {
                    let nanosText = String(decoding: bytes[dn..<j], as: UTF8.self)
                    let text = String(decoding: bytes[start..<j], as: UTF8.self)
                    guard let s = Int64(secondsText), let n = Int32(nanosText), n < 1_000_000_000 else {
                        throw QuerySyntaxError(offset: start, message: "invalid timestamp '\(text)'")
                    }
                    let seconds = negSeconds ? -s : s
                    let nanos = negNanos ? -n : n
                    guard let ts = Timestamp(seconds: seconds, nanoseconds: nanos) else {
                        throw QuerySyntaxError(offset: start, message: "invalid timestamp '\(text)': seconds and nanoseconds must have the same sign")
                    }
                    guard ts.storedNanoseconds != nil else {
                        throw QuerySyntaxError(offset: start, message: "timestamp '\(text)' is out of the supported range")
                    }
                    i = j
                    return .timestamp(ts)
                }
            }
        }
        // The word itself, with `\ ` escapes.
        var j = i
        var word = [UInt8]()
        while j < bytes.count {
            let c = bytes[j]
            if c == 0x5C {
                let e = at(j + 1)
                switch e {
                case 0x20: word.append(0x20)
                case 0x6E: word.append(0x0A)
                case 0x72: word.append(0x0D)
                case 0x74: word.append(0x09)
                default:
                    throw QuerySyntaxError(offset: j, message: "invalid escape '\\\(Self.describeCharacter(at: j + 1, in: bytes))' in a property name")
                }
                j += 2
                continue
            }
            if j == i ? Self.isIdentifierStart(c) : Self.isIdentifierChar(c) {
                word.append(c)
                j += 1
            } else {
                break
            }
        }
        if word.isEmpty {
            throw QuerySyntaxError(offset: start, message: "invalid character '\(Self.describeCharacter(at: start, in: bytes))'")
        }
        let text = String(decoding: word, as: UTF8.self)
        // `$<n>`: an argument.
        if word.count > 1, word[0] == 0x24, word.dropFirst().allSatisfy(Self.isDigit) {
            guard let n = Int(text.dropFirst()) else {
                throw QuerySyntaxError(offset: start, message: "argument index '\(text)' is out of range")
            }
            i = j
            return .argument(n)
        }
        // `O<key>`: an object key.
        if word.count > 1, word[0] == 0x4F, word.dropFirst().allSatisfy(Self.isDigit) {
            guard let n = Int64(text.dropFirst()) else {
                throw QuerySyntaxError(offset: start, message: "object key '\(text)' is out of range")
            }
            i = j
            return .objectKey(n)
        }
        // `B64"…"`
        if text == "B64", at(j) == 0x22 {
            var k = j + 1
            while k < bytes.count, Self.isLetter(bytes[k]) || Self.isDigit(bytes[k]) || bytes[k] == 0x2F || bytes[k] == 0x2B || bytes[k] == 0x3D { k += 1 }
            guard at(k) == 0x22 else {
                throw QuerySyntaxError(offset: start, message: "invalid base64 literal: expected base64 characters and a closing '\"'")
            }
            let b64 = String(decoding: bytes[(j + 1)..<k], as: UTF8.self)
            guard let data = Data(base64Encoded: b64) ?? Data(base64Encoded: Self.padBase64(b64)) else {
                throw QuerySyntaxError(offset: start, message: "invalid base64 literal 'B64\"\(b64)\"'")
            }
            i = k + 1
            return .base64(data, text: b64)
        }
        // `oid(<24 hex>)` and `uuid(8-4-4-4-12)`.
        if at(j) == 0x28 {
            if text == "oid" {
                var k = j + 1
                while k < bytes.count, Self.isHex(bytes[k]) { k += 1 }
                if k - (j + 1) == 24, at(k) == 0x29, let oid = ObjectId(string: String(decoding: bytes[(j + 1)..<k], as: UTF8.self)) {
                    i = k + 1
                    return .objectId(oid)
                }
                throw QuerySyntaxError(offset: start, message: "invalid ObjectId literal: expected oid(<24 hexadecimal digits>)")
            }
            if text == "uuid" {
                let k = j + 1 + 36
                if k < bytes.count, bytes[k] == 0x29 {
                    let body = String(decoding: bytes[(j + 1)..<k], as: UTF8.self)
                    let parts = body.split(separator: "-", omittingEmptySubsequences: false)
                    if parts.map(\.count) == [8, 4, 4, 4, 12], parts.allSatisfy({ $0.utf8.allSatisfy(Self.isHex) }),
                       let uuid = UUID(uuidString: body) {
                        i = k + 1
                        return .uuid(uuid)
                    }
                }
                throw QuerySyntaxError(offset: start, message: "invalid UUID literal: expected uuid(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)")
            }
        }
        i = j
        return .word(text, keyword: QueryKeyword.classify(word))
    }

    static func padBase64(_ s: String) -> String {
        let r = s.count % 4
        return r == 0 ? s : s + String(repeating: "=", count: 4 - r)
    }
}
