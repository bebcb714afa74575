/// The ASCII bytes the query tokenizer tests for, by name (as Lua's `llex.c` writes character
/// literals). `UInt8(ascii:)` of a literal folds to a constant in release builds, so the lexer's
/// per-byte loops compare against plain integers.
package enum ASCII {
    package static let tab = UInt8(ascii: "\t")
    package static let newline = UInt8(ascii: "\n")
    package static let carriageReturn = UInt8(ascii: "\r")
    package static let space = UInt8(ascii: " ")
    package static let bang = UInt8(ascii: "!")
    package static let doubleQuote = UInt8(ascii: "\"")
    package static let dollar = UInt8(ascii: "$")
    package static let ampersand = UInt8(ascii: "&")
    package static let singleQuote = UInt8(ascii: "'")
    package static let leftParen = UInt8(ascii: "(")
    package static let rightParen = UInt8(ascii: ")")
    package static let star = UInt8(ascii: "*")
    package static let plus = UInt8(ascii: "+")
    package static let comma = UInt8(ascii: ",")
    package static let minus = UInt8(ascii: "-")
    package static let dot = UInt8(ascii: ".")
    package static let slash = UInt8(ascii: "/")
    package static let zero = UInt8(ascii: "0")
    package static let nine = UInt8(ascii: "9")
    package static let colon = UInt8(ascii: ":")
    package static let less = UInt8(ascii: "<")
    package static let equal = UInt8(ascii: "=")
    package static let greater = UInt8(ascii: ">")
    package static let at = UInt8(ascii: "@")
    package static let upperA = UInt8(ascii: "A")
    package static let upperF = UInt8(ascii: "F")
    package static let upperZ = UInt8(ascii: "Z")
    package static let leftBracket = UInt8(ascii: "[")
    package static let backslash = UInt8(ascii: "\\")
    package static let rightBracket = UInt8(ascii: "]")
    package static let underscore = UInt8(ascii: "_")
    package static let lowerA = UInt8(ascii: "a")
    package static let lowerF = UInt8(ascii: "f")
    package static let lowerZ = UInt8(ascii: "z")
    package static let leftBrace = UInt8(ascii: "{")
    package static let pipe = UInt8(ascii: "|")
    package static let rightBrace = UInt8(ascii: "}")
    /// Bytes from here up are not ASCII: parts of multi-byte UTF-8 sequences.
    package static let firstNonASCII: UInt8 = 0x80
    /// The lowest lead byte of a (non-overlong) multi-byte UTF-8 sequence.
    package static let firstUTF8Lead: UInt8 = 0xC2
    /// Added to an upper-case ASCII letter, gives its lower-case form.
    package static let caseOffset: UInt8 = 32

    @inline(__always) static func isUpperLetter(_ c: UInt8) -> Bool { c >= upperA && c <= upperZ }
}
