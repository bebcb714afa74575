import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmLua

/// Tab completion: what can replace the word left of the cursor.
///
/// - `.he` → dot commands (built-in and plugin); `.user `, `.schema `, `.mode `, `.timer `,
///   `.read ` → their arguments (users, classes, modes, Lua files).
/// - `realm:ob`, `dogs:so`, `dog.na`, `string.fo` → the methods (after `:`) or fields and
///   properties (after `.`) of the value left of it, as the bindings list them
///   (`RealmLuaRuntime.memberNames`). Nothing is evaluated: globals and plain-table fields are read
///   raw, and calls are followed by their declared result types (`realm:objects("Dog"):`).
/// - Inside the string of `objects("`, `object("`, `create("` → class names; of `where("`,
///   `sorted("`, … → the property names of the receiver's class.
/// - Anything else → globals and keywords.
struct Completer {
    unowned let session: ReplSession

    /// String arguments that name a class.
    static let classArgumentMethods: Set<String> = [
        "objects", "object", "create", "Object", "enumerateObjects", "deleteData",
        "QuerySubscription", "removeAll", "renameProperty",
    ]
    /// String arguments that name properties of the receiver's class.
    static let propertyArgumentMethods: Set<String> = [
        "where", "filter", "sorted", "distinct", "min", "max", "sum", "average", "get",
    ]

    /// The words that can replace `word`, which follows `before` on the line.
    func complete(before: String, word: String) -> [String] {
        let candidates: [String]
        let trimmed = before.drop { $0 == " " || $0 == "\t" }
        if session.isAtStatementStart && trimmed == "." {
            candidates = (try? dotCommandNames()) ?? DotCommands.builtinNames
        } else if session.isAtStatementStart && trimmed.hasPrefix(".") && DotCommands.isCommand(String(trimmed)) {
            return dotArgument(String(trimmed), word: word)
        } else if let call = openStringCall(before) {
            candidates = stringArgument(call)
        } else if let last = before.last, last == "." || last == ":" {
            candidates = members(of: String(before.dropLast()), methodsOnly: last == ":")
        } else {
            candidates = globals() + LuaText.keywords.sorted()
        }
        return Array(Set(candidates.filter { $0.hasPrefix(word) && !$0.isEmpty })).sorted()
    }

    // MARK: Dot commands

    func dotCommandNames() throws -> [String] {
        DotCommands.builtinNames + (try session.withTenant { $0.commandNames })
    }

    /// Completes the argument of a dot command. Arguments may contain break characters (file
    /// names with dots), so candidates are whole arguments, cut to what replaces `word`.
    func dotArgument(_ line: String, word: String) -> [String] {
        let text = line + word
        let parts = text.dropFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return [] }
        let command = String(parts[0])
        let argument = String(parts.last!)
        let already = argument.count - word.count
        var options: [String]
        switch command {
        case "user": options = (try? session.host.userNames()) ?? []
        case "schema": options = (try? session.withTenant { $0.realm.schema.classNames }) ?? []
        case "mode": options = OutputMode.allCases.map(\.rawValue)
        case "timer": options = ["on", "off"]
        case "read": options = luaFiles(matching: argument)
        default: options = []
        }
        return options.filter { $0.hasPrefix(argument) && $0.count >= already }.map { String($0.dropFirst(already)) }
    }

    /// Lua files and folders for `.read`.
    func luaFiles(matching prefix: String) -> [String] {
        let folder = prefix.contains("/") ? String(prefix[...prefix.lastIndex(of: "/")!]) : ""
        let path = folder.isEmpty ? "." : folder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [] }
        return names.filter { !$0.hasPrefix(".") }.compactMap { name in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(
                atPath: (path as NSString).appendingPathComponent(name), isDirectory: &isDirectory)
            if isDirectory.boolValue { return folder + name + "/" }
            return name.hasSuffix(".lua") ? folder + name : nil
        }
    }

    // MARK: Strings

    struct StringCall {
        /// The function or method whose string argument the cursor is in.
        let function: String
        /// The expression left of `:function(` (nil for a plain call).
        let receiver: String?
    }

    /// When the cursor is inside a string literal that is an argument of `f(` or `x:m(`.
    func openStringCall(_ before: String) -> StringCall? {
        var quote: Character?
        var quoteStart: String.Index?
        var escaped = false
        var i = before.startIndex
        while i < before.endIndex {
            let c = before[i]
            if let q = quote {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
                quoteStart = i
            } else if c == "-", before[i...].hasPrefix("--") {
                return nil
            }
            i = before.index(after: i)
        }
        guard quote != nil, let start = quoteStart else { return nil }
        var head = before[..<start]
        while head.last == " " { head.removeLast() }
        if head.last == "(" { head.removeLast() }
        while head.last == " " { head.removeLast() }
        if head.last == "," { return nil }
        var nameStart = head.endIndex
        while nameStart > head.startIndex, Completer.isNameCharacter(head[head.index(before: nameStart)]) {
            nameStart = head.index(before: nameStart)
        }
        let function = String(head[nameStart...])
        guard !function.isEmpty else { return nil }
        let rest = head[..<nameStart]
        if rest.last == ":" || rest.last == "." {
            return StringCall(function: function, receiver: Completer.receiver(in: String(rest.dropLast())))
        }
        return StringCall(function: function, receiver: nil)
    }

    func stringArgument(_ call: StringCall) -> [String] {
        if Completer.classArgumentMethods.contains(call.function) {
            return (try? session.withTenant { $0.realm.schema.classNames }) ?? []
        }
        if Completer.propertyArgumentMethods.contains(call.function), let receiver = call.receiver {
            return
                (try? session.withTenant { tenant in
                    tenant.runtime.objectSchema(ofReceiver: receiver)?.properties.map(\.name) ?? []
                }) ?? []
        }
        return []
    }

    // MARK: Members

    func members(of text: String, methodsOnly: Bool) -> [String] {
        guard let receiver = Completer.receiver(in: text) else { return [] }
        return (try? session.withTenant { $0.runtime.memberNames(of: receiver, methodsOnly: methodsOnly) }) ?? []
    }

    /// Globals (the REPL's variables, the API, the standard library).
    func globals() -> [String] {
        (try? session.withTenant { $0.runtime.globalNames() }) ?? []
    }

    // MARK: Lexical helpers

    static func isNameCharacter(_ c: Character) -> Bool { c == "_" || (c.isASCII && (c.isLetter || c.isNumber)) }

    /// The expression that ends `text`: names, `.`/`:` accesses, and bracketed calls or indexes
    /// (`realm:objects("Dog"):where("age > 2")`, `people[1].dogs`).
    static func receiver(in text: String) -> String? {
        let chars = Array(text)
        var i = chars.count
        while i > 0 {
            let c = chars[i - 1]
            if isNameCharacter(c) || c == "." || c == ":" {
                i -= 1
            } else if c == ")" || c == "]" {
                // Back to the matching bracket, skipping string literals.
                var depth = 0
                var j = i - 1
                var quote: Character?
                while j >= 0 {
                    let d = chars[j]
                    if let q = quote {
                        if d == q && (j == 0 || chars[j - 1] != "\\") { quote = nil }
                    } else if d == "\"" || d == "'" {
                        quote = d
                    } else if d == ")" || d == "]" {
                        depth += 1
                    } else if d == "(" || d == "[" {
                        depth -= 1
                        if depth == 0 { break }
                    }
                    j -= 1
                }
                guard j >= 0 else { return nil }
                i = j
            } else {
                break
            }
        }
        let expression = String(chars[i...]).trimmingCharacters(in: .whitespaces)
        guard let first = expression.first, first == "_" || first.isLetter else { return nil }
        return expression
    }
}

extension ReplSession {
    /// No unfinished chunk is pending (a dot command can start here).
    var isAtStatementStart: Bool { pendingIsEmpty }
}
