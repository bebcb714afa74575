import Foundation
import RealmValues

// The Realm Query Language tokenizer, modelled on realm-core's `query_flex.ll`: longest match,
// words are classified by the parser in context (keywords such as `sort` or `contains` are also
// valid property names), numbers carry a sign only when the sign touches the digits.

/// A lexical token with its byte offset in the UTF-8 query text.
/// Operators and punctuation (normalised: `=` is `==`, `<>` is `!=`, `=<` is `<=`, `=>` is `>=`).
enum QuerySymbol: String {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessEqual = "<="
    case greater = ">"
    case greaterEqual = ">="
    case and = "&&"
    case or = "||"
    case bang = "!"
    case plus = "+"
    case minus = "-"
    case star = "*"
    case slash = "/"
    case leftParen = "("
    case rightParen = ")"
    case leftBracket = "["
    case rightBracket = "]"
    case leftBrace = "{"
    case rightBrace = "}"
    case comma = ","
    case dot = "."
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
                guard c < ASCII.firstNonASCII else { return nil }
                if lowercase && ASCII.isUpperLetter(c) { c += ASCII.caseOffset }
                if i < 8 {
                    a |= UInt64(c) << (8 * UInt64(i))
                } else {
                    b |= UInt64(c) << (8 * UInt64(i - 8))
                }
                i += 1
            }
        }
    }

    /// Keywords that must be written in lower or upper case exactly.
    private static let exactCase: [Packed: QueryKeyword] = table([
        ("not", .not), ("NOT", .not), ("any", .any), ("ANY", .any), ("some", .any), ("SOME", .any),
        ("all", .all), ("ALL", .all), ("none", .noneOf), ("NONE", .noneOf),
        ("true", .trueValue), ("TRUE", .trueValue), ("false", .falseValue), ("FALSE", .falseValue),
        ("in", .in), ("IN", .in),
    ])

    /// Keywords in any case, by their lower-case spelling.
    private static let anyCase: [Packed: QueryKeyword] = table([
        ("and", .and), ("or", .or), ("truepredicate", .truePredicate), ("falsepredicate", .falsePredicate),
        ("null", .null), ("nil", .null), ("inf", .infinity), ("infinity", .infinity), ("nan", .nan),
        ("subquery", .subquery), ("sort", .sort), ("distinct", .distinct), ("limit", .limit),
        ("asc", .ascending), ("ascending", .ascending), ("desc", .descending), ("descending", .descending),
        ("beginswith", .beginsWith), ("endswith", .endsWith), ("contains", .contains), ("like", .like),
        ("between", .between), ("text", .text), ("first", .first), ("last", .last),
    ])

    /// The words are short ASCII literals, so every one packs.
    private static func table(_ words: [(String, QueryKeyword)]) -> [Packed: QueryKeyword] {
        var t = [Packed: QueryKeyword]()
        for (w, k) in words {
            if let packed = Packed(Array(w.utf8), lowercase: false) { t[packed] = k }
        }
        return t
    }

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

package struct QueryLexer {
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

    /// The `$n` placeholders of `text`: each one's argument number and the byte range it spans, in
    /// order; nil when the text does not tokenize. What writes arguments into a query's text uses it.
    package static func argumentPlaceholders(in text: String) -> [(argument: Int, bytes: Range<Int>)]? {
        guard let tokens = try? tokenize(text) else { return nil }
        return tokens.compactMap { token in
            guard case .argument(let n) = token.kind else { return nil }
            return (n, token.offset..<token.offset + token.length)
        }
    }

    // MARK: - Character classes

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= ASCII.zero && c <= ASCII.nine }

    @inline(__always) static func isHex(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= ASCII.lowerA && c <= ASCII.lowerF) || (c >= ASCII.upperA && c <= ASCII.upperF)
    }

    @inline(__always) static func isLetter(_ c: UInt8) -> Bool {
        (c >= ASCII.lowerA && c <= ASCII.lowerZ) || (c >= ASCII.upperA && c <= ASCII.upperZ)
    }

    /// First character of an identifier: a letter, `_`, `$`, or the lead byte of a multi-byte UTF-8 sequence.
    @inline(__always) static func isIdentifierStart(_ c: UInt8) -> Bool {
        isLetter(c) || c == ASCII.underscore || c == ASCII.dollar || c >= ASCII.firstUTF8Lead
    }

    /// Later characters: letters, digits, `_`, `-`, `$`, and UTF-8 bytes.
    @inline(__always) static func isIdentifierChar(_ c: UInt8) -> Bool {
        isIdentifierStart(c) || isDigit(c) || c == ASCII.minus || c >= ASCII.firstNonASCII
    }

    @inline(__always) static func isSpace(_ c: UInt8) -> Bool {
        c == ASCII.space || c == ASCII.tab || c == ASCII.carriageReturn || c == ASCII.newline
    }

    private func at(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

    /// The end of the run of decimal digits starting at `k`.
    private func digitsEnd(from k: Int) -> Int {
        var k = k
        while k < bytes.count, Self.isDigit(bytes[k]) { k += 1 }
        return k
    }

    private func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    // MARK: - Tokenizing

    mutating func run() throws {
        var i = 0
        let n = bytes.count
        while true {
            while i < n, Self.isSpace(bytes[i]) { i += 1 }
            if i >= n {
                tokens.append(QueryToken(kind: .end, offset: n, length: 0))
                return
            }
            let start = i
            let kind = try scan(&i)
            tokens.append(QueryToken(kind: kind, offset: start, length: i - start))
        }
    }

    /// The token starting at `i`, chosen by its first byte; advances `i` past it.
    private func scan(_ i: inout Int) throws -> QueryToken.Kind {
        let c = bytes[i]
        if Self.isDigit(c) || (c == ASCII.dot && Self.isDigit(at(i + 1))) {
            // A readable timestamp starts with the digits of its year.
            if let timestamp = try scanReadableTimestamp(&i) { return timestamp }
            return try scanNumber(&i, signed: false)
        }
        switch c {
        case ASCII.plus, ASCII.minus: return try scanSign(&i)
        case ASCII.doubleQuote, ASCII.singleQuote: return .string(try scanString(&i))
        case ASCII.at: return try scanAtKeyword(&i)
        case ASCII.leftBracket: return scanBracket(&i)
        default: break
        }
        // Words (and the literal forms that start like words).
        if Self.isIdentifierStart(c) || c == ASCII.backslash {
            return try scanWordLike(&i)
        }
        return try scanOperator(&i)
    }

    /// `+` or `-`: the sign of a number or of `inf`/`nan` when it touches them, else an operator.
    private func scanSign(_ i: inout Int) throws -> QueryToken.Kind {
        let start = i
        let sign = bytes[i]
        let next = at(i + 1)
        if Self.isDigit(next) || (next == ASCII.dot && Self.isDigit(at(i + 2))) {
            return try scanNumber(&i, signed: true)
        }
        if let special = scanSpecialFloat(from: i + 1) {
            i = special.end
            return .special(sign == ASCII.minus ? -special.value : special.value, text: text(start..<i))
        }
        i += 1
        return .symbol(sign == ASCII.plus ? .plus : .minus)
    }

    private static let atKeywords = ["count", "size", "sum", "avg", "min", "max", "links", "type", "keys", "values"]

    /// `@count`, `@links`, …
    private func scanAtKeyword(_ i: inout Int) throws -> QueryToken.Kind {
        var j = i + 1
        while j < bytes.count, Self.isLetter(bytes[j]) { j += 1 }
        let word = text((i + 1)..<j)
        guard Self.atKeywords.contains(word) else {
            let expected = Self.atKeywords.map { "@" + $0 }.joined(separator: ", ")
            throw QuerySyntaxError(
                offset: i,
                message: word.isEmpty
                    ? "invalid character '@'"
                    : "unknown operator '@\(word)' (expected one of \(expected))")
        }
        i = j
        return .atKeyword(word)
    }

    /// `[c]`, `[d]`, `[cd]`, `[dc]`: a string operator's modifier; otherwise a `[`.
    private func scanBracket(_ i: inout Int) -> QueryToken.Kind {
        let c = UInt8(ascii: "c")
        let d = UInt8(ascii: "d")
        let b1 = at(i + 1)
        let b2 = at(i + 2)
        let b3 = at(i + 3)
        if (b1 == c || b1 == d) && b2 == ASCII.rightBracket {
            i += 3
            return .modifier(caseInsensitive: b1 == c, diacriticInsensitive: b1 == d)
        }
        if (b1 == c && b2 == d || b1 == d && b2 == c) && b3 == ASCII.rightBracket {
            i += 4
            return .modifier(caseInsensitive: true, diacriticInsensitive: true)
        }
        i += 1
        return .symbol(.leftBracket)
    }

    /// Operators and punctuation, two-byte forms first (longest match).
    private func scanOperator(_ i: inout Int) throws -> QueryToken.Kind {
        if let symbol = Self.twoByteSymbol(bytes[i], at(i + 1)) {
            i += 2
            return .symbol(symbol)
        }
        guard let symbol = Self.oneByteSymbol(bytes[i]) else {
            throw invalidCharacter(at: i)
        }
        i += 1
        return .symbol(symbol)
    }

    private static func twoByteSymbol(_ c: UInt8, _ d: UInt8) -> QuerySymbol? {
        switch (c, d) {
        case (ASCII.equal, ASCII.equal): return .equal
        case (ASCII.bang, ASCII.equal), (ASCII.less, ASCII.greater): return .notEqual
        case (ASCII.less, ASCII.equal), (ASCII.equal, ASCII.less): return .lessEqual
        case (ASCII.greater, ASCII.equal), (ASCII.equal, ASCII.greater): return .greaterEqual
        case (ASCII.ampersand, ASCII.ampersand): return .and
        case (ASCII.pipe, ASCII.pipe): return .or
        default: return nil
        }
    }

    private static func oneByteSymbol(_ c: UInt8) -> QuerySymbol? {
        switch c {
        case ASCII.equal: return .equal
        case ASCII.less: return .less
        case ASCII.greater: return .greater
        case ASCII.bang: return .bang
        case ASCII.star: return .star
        case ASCII.slash: return .slash
        case ASCII.leftParen: return .leftParen
        case ASCII.rightParen: return .rightParen
        case ASCII.rightBracket: return .rightBracket
        case ASCII.leftBrace: return .leftBrace
        case ASCII.rightBrace: return .rightBrace
        case ASCII.comma: return .comma
        case ASCII.dot: return .dot
        default: return nil
        }
    }

    private func invalidCharacter(at offset: Int) -> QuerySyntaxError {
        let shown = Self.describeCharacter(at: offset, in: bytes)
        return QuerySyntaxError(offset: offset, message: "invalid character '\(shown)'")
    }

    static func describeCharacter<C: RandomAccessCollection>(at offset: Int, in bytes: C) -> String
    where C.Element == UInt8, C.Index == Int {
        guard offset < bytes.count else { return "" }
        var end = offset + 1
        // UTF-8 continuation bytes are 10xxxxxx.
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        let s = String(decoding: bytes[offset..<end], as: UTF8.self)
        if let scalar = s.unicodeScalars.first, scalar.value < 0x20 || scalar.value == 0x7F {
            return String(format: "\\u%04X", scalar.value)
        }
        return s
    }

    // MARK: - Numbers

    /// `inf`, `infinity`, `nan` (any case) starting at `j`, not followed by an identifier character.
    private func scanSpecialFloat(from j: Int) -> (value: Double, end: Int)? {
        // At most the 8 letters of "infinity", and then the word must end: scanning the whole
        // identifier instead (which may go on with '-') made a run of '-' quadratic.
        var k = j
        while k < bytes.count, k - j < 9, Self.isLetter(bytes[k]) { k += 1 }
        guard k > j, k - j <= 8, !Self.isIdentifierChar(at(k)) else { return nil }
        switch text(j..<k).lowercased() {
        case "inf", "infinity": return (Double.infinity, k)
        case "nan": return (Double.nan, k)
        default: return nil
        }
    }

    /// A number starting at `i` (after its sign when `signed`): hexadecimal, integer or float.
    private func scanNumber(_ i: inout Int, signed: Bool) throws -> QueryToken.Kind {
        var j = i
        var negative = false
        if signed {
            negative = bytes[j] == ASCII.minus
            j += 1
        }
        if let hex = try scanHexInteger(&i, digitsAt: j, negative: negative) { return hex }
        return try scanDecimal(&i, digitsAt: j)
    }

    /// `0x1F`, `-0x80`: an integer in hexadecimal; nil when no hexadecimal digit follows the `0x`.
    private func scanHexInteger(_ i: inout Int, digitsAt j: Int, negative: Bool) throws -> QueryToken.Kind? {
        let x = at(j + 1)
        guard at(j) == ASCII.zero, x == UInt8(ascii: "x") || x == UInt8(ascii: "X") else { return nil }
        let start = i
        var k = j + 2
        while k < bytes.count, Self.isHex(bytes[k]) { k += 1 }
        guard k > j + 2 else { return nil }
        let literal = text(start..<k)
        guard let magnitude = UInt64(text((j + 2)..<k), radix: 16) else {
            throw QuerySyntaxError(offset: start, message: "hexadecimal number '\(literal)' is out of range")
        }
        let limit = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        guard magnitude <= limit else {
            throw QuerySyntaxError(offset: start, message: "number '\(literal)' is out of range")
        }
        let value: Int64
        if negative {
            value = magnitude == limit ? Int64.min : -Int64(magnitude)
        } else {
            value = Int64(magnitude)
        }
        i = k
        return .integer(value, text: literal)
    }

    /// Digits with an optional fraction, exponent and `f` suffix; an integer when it has none of them.
    private func scanDecimal(_ i: inout Int, digitsAt j: Int) throws -> QueryToken.Kind {
        let start = i
        var k = digitsEnd(from: j)
        var isFloatLiteral = false
        if at(k) == ASCII.dot, Self.isDigit(at(k + 1)) || k > j {
            // `10.`, `.5`, `1.25`
            isFloatLiteral = true
            k = digitsEnd(from: k + 1)
        }
        if let end = exponentEnd(at: k) {
            isFloatLiteral = true
            k = end
        }
        // An `f` suffix makes a float.
        let floatSuffix = at(k) == UInt8(ascii: "f") && !Self.isIdentifierChar(at(k + 1))
        let literal = text(start..<k)
        i = floatSuffix ? k + 1 : k
        if !isFloatLiteral && !floatSuffix {
            if let v = Int64(literal) { return .integer(v, text: literal) }
            // Too large for an int: keep it as a float (still exact for decimal128 conversion).
            return .float(Double(literal) ?? .nan, text: literal, isFloat: false)
        }
        guard let v = Double(literal.hasPrefix("+") ? String(literal.dropFirst()) : literal) else {
            throw QuerySyntaxError(offset: start, message: "invalid number '\(literal)'")
        }
        return .float(v, text: literal, isFloat: floatSuffix)
    }

    /// The end of an exponent (`e5`, `E-3`) starting at `k`, or nil when there is none.
    private func exponentEnd(at k: Int) -> Int? {
        guard at(k) == UInt8(ascii: "e") || at(k) == UInt8(ascii: "E") else { return nil }
        var e = k + 1
        if at(e) == ASCII.plus || at(e) == ASCII.minus { e += 1 }
        guard Self.isDigit(at(e)) else { return nil }
        return digitsEnd(from: e)
    }

    // MARK: - Timestamps

    /// The fields of `YYYY-MM-DD@HH:MM:SS[:NANOS]`, as written (validated by `makeTimestamp`).
    private struct ReadableTimestamp {
        var year: Int64, month: Int64, day: Int64
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, nanos: Int64 = 0
    }

    /// The value of the decimal digits at `j` (saturating past 11 digits), advancing `j`; nil when none.
    private func readDigits(_ j: inout Int) -> Int64? {
        let s = j
        var v: Int64 = 0
        while j < bytes.count, Self.isDigit(bytes[j]) {
            if v < 100_000_000_000 { v = v * 10 + Int64(bytes[j] - ASCII.zero) }
            j += 1
        }
        return j > s ? v : nil
    }

    /// `invalid date '<text>'`, with what was expected when known.
    private func invalidDate(_ range: Range<Int>, _ expected: String? = nil) -> QuerySyntaxError {
        let detail = expected.map { ": " + $0 } ?? ""
        return QuerySyntaxError(offset: range.lowerBound, message: "invalid date '\(text(range))'\(detail)")
    }

    /// `YYYY-MM-DD@HH:MM:SS[:NANOS]` or with `T`; returns nil when the text is not shaped like one.
    private func scanReadableTimestamp(_ i: inout Int) throws -> QueryToken.Kind? {
        var j = i
        guard var fields = try readDate(&j) else { return nil }
        try readTime(&j, start: i, into: &fields)
        if Self.isIdentifierChar(at(j)) || at(j) == ASCII.colon || at(j) == ASCII.at {
            throw invalidDate(i..<min(j + 1, bytes.count))
        }
        let timestamp = try makeTimestamp(fields, text: text(i..<j), offset: i)
        i = j
        return .timestamp(timestamp)
    }

    /// `YYYY-MM-DD` and the `@` or `T` after it; nil when the text is not a date.
    private func readDate(_ j: inout Int) throws -> ReadableTimestamp? {
        let start = j
        guard let year = readDigits(&j), at(j) == ASCII.minus else { return nil }
        j += 1
        guard let month = readDigits(&j), at(j) == ASCII.minus else { return nil }
        j += 1
        guard let day = readDigits(&j) else { return nil }
        guard at(j) == ASCII.at || at(j) == UInt8(ascii: "T") else {
            // `2017-12-04` without a time: not a timestamp (Realm requires the time part).
            let c = at(j)
            if c == ASCII.space || c == 0 || c == ASCII.rightParen || c == ASCII.comma || c == ASCII.rightBrace {
                throw invalidDate(start..<j, "expected '@' or 'T' and a time (YYYY-MM-DD@HH:MM:SS)")
            }
            return nil
        }
        j += 1
        return ReadableTimestamp(year: year, month: month, day: day)
    }

    /// `HH:MM:SS[:NANOS]` after the date that starts at `start`.
    private func readTime(_ j: inout Int, start: Int, into fields: inout ReadableTimestamp) throws {
        guard let hour = readDigits(&j), at(j) == ASCII.colon else {
            throw invalidDate(start..<j, "expected HH:MM:SS after the date")
        }
        j += 1
        guard let minute = readDigits(&j), at(j) == ASCII.colon else {
            throw invalidDate(start..<j, "expected HH:MM:SS after the date")
        }
        j += 1
        guard let second = readDigits(&j) else {
            throw invalidDate(start..<j, "expected the seconds")
        }
        fields.hour = hour
        fields.minute = minute
        fields.second = second
        if at(j) == ASCII.colon {
            j += 1
            guard let nanos = readDigits(&j) else {
                throw invalidDate(start..<j, "expected nanoseconds after ':'")
            }
            fields.nanos = nanos
        }
    }

    /// Checks the fields' ranges and converts them to a timestamp.
    private func makeTimestamp(_ f: ReadableTimestamp, text: String, offset: Int) throws -> Timestamp {
        guard f.year >= 1900 else {
            throw QuerySyntaxError(offset: offset, message: "Conversion of dates before 1900 is not supported.")
        }
        guard (1...12).contains(f.month), (1...31).contains(f.day), f.hour < 24, f.minute < 60, f.second < 61,
            f.nanos < 1_000_000_000, f.year < 10_000
        else {
            throw QuerySyntaxError(offset: offset, message: "invalid date '\(text)'")
        }
        let days = daysFromCivil(f.year, Int(f.month), Int(f.day))
        var seconds = days * 86400 + f.hour * 3600 + f.minute * 60 + f.second
        var ns = f.nanos
        // Realm's quirk: before the epoch, the nanoseconds take the sign of the seconds.
        if seconds < 0 { ns = -ns }
        if seconds == 0 && ns < 0 { seconds = 0 }
        guard let ts = Timestamp(seconds: seconds, nanoseconds: Int32(ns)), ts.storedNanoseconds != nil else {
            throw QuerySyntaxError(offset: offset, message: "date '\(text)' is out of the supported range")
        }
        return ts
    }

    /// `T<seconds>:<nanos>` (each with an optional sign); nil when the text is not shaped like one.
    private func scanSecondsTimestamp(_ i: inout Int) throws -> QueryToken.Kind? {
        let start = i
        var j = i + 1
        let negativeSeconds = at(j) == ASCII.minus
        if at(j) == ASCII.plus || negativeSeconds { j += 1 }
        let secondsStart = j
        j = digitsEnd(from: j)
        guard j > secondsStart, at(j) == ASCII.colon else { return nil }
        let secondsText = text(secondsStart..<j)
        j += 1
        let negativeNanos = at(j) == ASCII.minus
        if at(j) == ASCII.plus || negativeNanos { j += 1 }
        let nanosStart = j
        j = digitsEnd(from: j)
        guard j > nanosStart else { return nil }
        let literal = text(start..<j)
        guard let s = Int64(secondsText), let n = Int32(text(nanosStart..<j)), n < 1_000_000_000 else {
            throw QuerySyntaxError(offset: start, message: "invalid timestamp '\(literal)'")
        }
        guard let ts = Timestamp(seconds: negativeSeconds ? -s : s, nanoseconds: negativeNanos ? -n : n) else {
            let message = "invalid timestamp '\(literal)': seconds and nanoseconds must have the same sign"
            throw QuerySyntaxError(offset: start, message: message)
        }
        guard ts.storedNanoseconds != nil else {
            throw QuerySyntaxError(offset: start, message: "timestamp '\(literal)' is out of the supported range")
        }
        i = j
        return .timestamp(ts)
    }

    // MARK: - Strings

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
            if c == quote {
                j += 1
                break
            }
            if c == ASCII.backslash {
                try appendEscape(at: &j, to: &out)
                continue
            }
            out.append(c)
            j += 1
        }
        i = j
        return String(decoding: out, as: UTF8.self)
    }

    /// The escape sequence at `j` (a backslash) in a string literal, decoded onto `out`.
    private func appendEscape(at j: inout Int, to out: inout [UInt8]) throws {
        let e = at(j + 1)
        switch e {
        case ASCII.doubleQuote, ASCII.singleQuote, ASCII.backslash, ASCII.slash: out.append(e)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(ASCII.newline)
        case UInt8(ascii: "r"): out.append(ASCII.carriageReturn)
        case UInt8(ascii: "t"): out.append(ASCII.tab)
        case ASCII.zero: out.append(0x00)
        case UInt8(ascii: "u"):
            try appendUnicodeEscape(at: j, to: &out)
            j += 6
            return
        default:
            let shown = Self.describeCharacter(at: j + 1, in: bytes)
            throw QuerySyntaxError(offset: j, message: "invalid escape sequence '\\\(shown)' in string")
        }
        j += 2
    }

    /// `\uXXXX` at `j`; an unpaired surrogate becomes U+FFFD.
    private func appendUnicodeEscape(at j: Int, to out: inout [UInt8]) throws {
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let d = hexValue(at(j + 2 + k)) else {
                let message = "invalid unicode escape in string: expected 4 hexadecimal digits after '\\u'"
                throw QuerySyntaxError(offset: j, message: message)
            }
            v = v << 4 | UInt32(d)
        }
        let scalar = Unicode.Scalar(v) ?? "\u{FFFD}"
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    // MARK: - Words

    /// A word, or a literal that starts like one: `T1:0`, `$0`, `O12`, `B64"…"`, `oid(…)`, `uuid(…)`.
    private func scanWordLike(_ i: inout Int) throws -> QueryToken.Kind {
        if bytes[i] == UInt8(ascii: "T"), let timestamp = try scanSecondsTimestamp(&i) { return timestamp }
        let start = i
        let (word, j) = try readWord(from: i)
        let text = String(decoding: word, as: UTF8.self)
        if let numbered = try numberedWord(word, text: text, offset: start) {
            i = j
            return numbered
        }
        if text == "B64", at(j) == ASCII.doubleQuote { return try scanBase64(&i, quoteAt: j) }
        if at(j) == ASCII.leftParen {
            if text == "oid" { return try scanObjectId(&i, parenAt: j) }
            if text == "uuid" { return try scanUUID(&i, parenAt: j) }
        }
        i = j
        return .word(text, keyword: QueryKeyword.classify(word))
    }

    /// The word at `i` with its `\ ` escapes decoded, and where it ends.
    private func readWord(from i: Int) throws -> (word: [UInt8], end: Int) {
        var j = i
        var word = [UInt8]()
        while j < bytes.count {
            let c = bytes[j]
            if c == ASCII.backslash {
                word.append(try wordEscape(at: j))
                j += 2
                continue
            }
            guard j == i ? Self.isIdentifierStart(c) : Self.isIdentifierChar(c) else { break }
            word.append(c)
            j += 1
        }
        if word.isEmpty {
            throw invalidCharacter(at: i)
        }
        return (word, j)
    }

    /// The byte a property name's escape at `j` (a backslash) stands for.
    private func wordEscape(at j: Int) throws -> UInt8 {
        switch at(j + 1) {
        case ASCII.space: return ASCII.space
        case UInt8(ascii: "n"): return ASCII.newline
        case UInt8(ascii: "r"): return ASCII.carriageReturn
        case UInt8(ascii: "t"): return ASCII.tab
        default:
            let shown = Self.describeCharacter(at: j + 1, in: bytes)
            throw QuerySyntaxError(offset: j, message: "invalid escape '\\\(shown)' in a property name")
        }
    }

    /// `$<n>` (an argument) and `O<key>` (an object key); nil for other words.
    private func numberedWord(_ word: [UInt8], text: String, offset: Int) throws -> QueryToken.Kind? {
        guard word.count > 1, word.dropFirst().allSatisfy(Self.isDigit) else { return nil }
        if word[0] == ASCII.dollar {
            guard let n = Int(text.dropFirst()) else {
                throw QuerySyntaxError(offset: offset, message: "argument index '\(text)' is out of range")
            }
            return .argument(n)
        }
        if word[0] == UInt8(ascii: "O") {
            guard let n = Int64(text.dropFirst()) else {
                throw QuerySyntaxError(offset: offset, message: "object key '\(text)' is out of range")
            }
            return .objectKey(n)
        }
        return nil
    }

    @inline(__always) private static func isBase64(_ c: UInt8) -> Bool {
        isLetter(c) || isDigit(c) || c == ASCII.slash || c == ASCII.plus || c == ASCII.equal
    }

    /// `B64"…"`, the word `B64` starting at `i` and its opening quote at `j`.
    private func scanBase64(_ i: inout Int, quoteAt j: Int) throws -> QueryToken.Kind {
        var k = j + 1
        while k < bytes.count, Self.isBase64(bytes[k]) { k += 1 }
        guard at(k) == ASCII.doubleQuote else {
            throw QuerySyntaxError(
                offset: i,
                message: "invalid base64 literal: expected base64 characters and a closing '\"'")
        }
        let b64 = text((j + 1)..<k)
        guard let data = Data(base64Encoded: b64) ?? Data(base64Encoded: Self.padBase64(b64)) else {
            throw QuerySyntaxError(offset: i, message: "invalid base64 literal 'B64\"\(b64)\"'")
        }
        i = k + 1
        return .base64(data, text: b64)
    }

    /// `oid(<24 hex>)`, the word `oid` starting at `i` and its parenthesis at `j`.
    private func scanObjectId(_ i: inout Int, parenAt j: Int) throws -> QueryToken.Kind {
        var k = j + 1
        while k < bytes.count, Self.isHex(bytes[k]) { k += 1 }
        if k - (j + 1) == 24, at(k) == ASCII.rightParen, let oid = ObjectId(string: text((j + 1)..<k)) {
            i = k + 1
            return .objectId(oid)
        }
        throw QuerySyntaxError(offset: i, message: "invalid ObjectId literal: expected oid(<24 hexadecimal digits>)")
    }

    /// `uuid(8-4-4-4-12)`, the word `uuid` starting at `i` and its parenthesis at `j`.
    private func scanUUID(_ i: inout Int, parenAt j: Int) throws -> QueryToken.Kind {
        let k = j + 1 + 36
        if k < bytes.count, bytes[k] == ASCII.rightParen {
            let body = text((j + 1)..<k)
            let parts = body.split(separator: "-", omittingEmptySubsequences: false)
            if parts.map(\.count) == [8, 4, 4, 4, 12], parts.allSatisfy({ $0.utf8.allSatisfy(Self.isHex) }),
                let uuid = UUID(uuidString: body)
            {
                i = k + 1
                return .uuid(uuid)
            }
        }
        throw QuerySyntaxError(
            offset: i,
            message: "invalid UUID literal: expected uuid(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)")
    }

    static func padBase64(_ s: String) -> String {
        let r = s.count % 4
        return r == 0 ? s : s + String(repeating: "=", count: 4 - r)
    }
}
