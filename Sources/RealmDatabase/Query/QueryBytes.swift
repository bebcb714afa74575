/// The ASCII bytes the query tokenizer tests for, by name (as Lua's `llex.c` writes character
/// literals). `UInt8(ascii:)` of a literal folds to a constant in release builds, so the lexer's
/// per-byte loops compare against plain integers.
enum ASCII {
    static let tab = UInt8(ascii: "\t")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let bang = UInt8(ascii: "!")
    static let doubleQuote = UInt8(ascii: "\"")
    static let dollar = UInt8(ascii: "$")
    static let ampersand = UInt8(ascii: "&")
    static let singleQuote = UInt8(ascii: "'")
    static let leftParen = UInt8(ascii: "(")
    static let rightParen = UInt8(ascii: ")")
    static let star = UInt8(ascii: "*")
    static let plus = UInt8(ascii: "+")
    static let comma = UInt8(ascii: ",")
    static let minus = UInt8(ascii: "-")
    static let dot = UInt8(ascii: ".")
    static let slash = UInt8(ascii: "/")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let colon = UInt8(ascii: ":")
    static let less = UInt8(ascii: "<")
    static let equal = UInt8(ascii: "=")
    static let greater = UInt8(ascii: ">")
    static let at = UInt8(ascii: "@")
    static let upperA = UInt8(ascii: "A")
    static let upperF = UInt8(ascii: "F")
    static let upperZ = UInt8(ascii: "Z")
    static let leftBracket = UInt8(ascii: "[")
    static let backslash = UInt8(ascii: "\\")
    static let rightBracket = UInt8(ascii: "]")
    static let underscore = UInt8(ascii: "_")
    static let lowerA = UInt8(ascii: "a")
    static let lowerF = UInt8(ascii: "f")
    static let lowerZ = UInt8(ascii: "z")
    static let leftBrace = UInt8(ascii: "{")
    static let pipe = UInt8(ascii: "|")
    static let rightBrace = UInt8(ascii: "}")
    /// Bytes from here up are not ASCII: parts of multi-byte UTF-8 sequences.
    static let firstNonASCII: UInt8 = 0x80
    /// The lowest lead byte of a (non-overlong) multi-byte UTF-8 sequence.
    static let firstUTF8Lead: UInt8 = 0xC2
    /// Added to an upper-case ASCII letter, gives its lower-case form.
    static let caseOffset: UInt8 = 32

    @inline(__always) static func isUpperLetter(_ c: UInt8) -> Bool { c >= upperA && c <= upperZ }
}
