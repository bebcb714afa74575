import Foundation

/// A receiver expression as completion reads it: a name followed by field reads, method calls and
/// indexes (`realm:objects("Dog"):where("age > 2")`, `people[1].dogs`). Nothing else: a plain
/// call (`f()`), an operator or a table constructor makes it unreadable, and completion gives up.
struct ReceiverChain: Equatable {
    enum Step: Equatable {
        /// `.name`
        case field(String)
        /// `:name(…)`, with its first argument when that is a string literal.
        case method(String, firstString: String?)
        /// `[…]`, with the integer when the index is an integer literal.
        case index(Int64?)
    }

    let head: String
    let steps: [Step]

    /// Parses `text`; nil when it is not such a chain.
    static func parse(_ text: String) -> ReceiverChain? {
        var scanner = Scanner(Array(text))
        guard let head = scanner.name() else { return nil }
        var steps = [Step]()
        while true {
            scanner.skipSpaces()
            guard let c = scanner.peek() else { break }
            switch c {
            case ".":
                scanner.advance()
                guard let name = scanner.name() else { return nil }
                steps.append(.field(name))
            case ":":
                scanner.advance()
                guard let name = scanner.name(), let first = scanner.arguments() else { return nil }
                steps.append(.method(name, firstString: first))
            case "[":
                guard let inside = scanner.bracketed(open: "[", close: "]") else { return nil }
                steps.append(.index(Int64(inside.trimmingCharacters(in: .whitespaces))))
            default:
                return nil
            }
        }
        return ReceiverChain(head: head, steps: steps)
    }

    /// A cursor over the characters of an expression.
    private struct Scanner {
        let chars: [Character]
        var i = 0

        init(_ chars: [Character]) { self.chars = chars }

        func peek() -> Character? { i < chars.count ? chars[i] : nil }
        mutating func advance() { i += 1 }
        mutating func skipSpaces() { while let c = peek(), c == " " || c == "\t" { advance() } }

        static func isNameStart(_ c: Character) -> Bool { c == "_" || (c.isASCII && c.isLetter) }
        static func isNameCharacter(_ c: Character) -> Bool { c == "_" || (c.isASCII && (c.isLetter || c.isNumber)) }

        mutating func name() -> String? {
            skipSpaces()
            guard let c = peek(), Self.isNameStart(c) else { return nil }
            let start = i
            while let c = peek(), Self.isNameCharacter(c) { advance() }
            return String(chars[start..<i])
        }

        /// `(…)` of a method call: the first argument if it is a string literal, "" when it is not
        /// (an empty string is no class name), nil when the parentheses do not close.
        mutating func arguments() -> String?? {
            skipSpaces()
            guard peek() == "(", let inside = bracketed(open: "(", close: ")") else { return nil }
            let trimmed = inside.trimmingCharacters(in: .whitespaces)
            guard let quote = trimmed.first, quote == "\"" || quote == "'" else { return .some(nil) }
            let body = trimmed.dropFirst()
            guard let end = body.firstIndex(of: quote), !body[..<end].contains("\\") else { return .some(nil) }
            return .some(String(body[..<end]))
        }

        /// The text between `open` at the cursor and its matching `close` (string literals skipped).
        mutating func bracketed(open: Character, close: Character) -> String? {
            guard peek() == open else { return nil }
            let start = i + 1
            var depth = 0
            var quote: Character?
            while let c = peek() {
                if let q = quote {
                    if c == "\\" { advance() } else if c == q { quote = nil }
                } else if c == "\"" || c == "'" {
                    quote = c
                } else if c == open {
                    depth += 1
                } else if c == close {
                    depth -= 1
                    if depth == 0 {
                        advance()
                        return String(chars[start..<(i - 1)])
                    }
                }
                advance()
            }
            return nil
        }
    }
}
