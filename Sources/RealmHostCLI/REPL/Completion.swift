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
///   properties (after `.`) of the value left of it. That value is computed only when the
///   expression is names, fields and calls of reading methods (`realm:objects("Dog"):where(…)`),
///   under a small instruction and time budget.
/// - Inside the string of `objects("`, `object("`, `create("` → class names; of `where("`,
///   `sorted("`, … → the property names of the receiver's class.
/// - Anything else → globals and keywords.
struct Completer {
    unowned let session: ReplSession

    /// Methods that only read, so a receiver calling them may be evaluated to complete after it.
    static let readingMethods: Set<String> = [
        "objects", "object", "where", "filter", "sorted", "distinct", "freeze", "thaw", "first", "last",
        "toTable", "get", "count", "min", "max", "sum", "average", "indexOf", "keys", "contains",
    ]
    /// String arguments that name a class.
    static let classArgumentMethods: Set<String> = ["objects", "object", "create", "Object", "enumerateObjects", "deleteData",
                                                     "QuerySubscription", "removeAll", "renameProperty"]
    /// String arguments that name properties of the receiver's class.
    static let propertyArgumentMethods: Set<String> = ["where", "filter", "sorted", "distinct", "min", "max", "sum", "average", "get"]

    /// Members of the host's userdata types, by the name `getmetatable` returns.
    static let members: [String: (methods: [String], fields: [String])] = [
        "Realm": (["add", "beginWrite", "cancelWrite", "commitWrite", "create", "delete", "deleteAll", "freeze", "object",
                   "objects", "observe", "refresh", "thaw", "write"],
                  ["configuration", "isFrozen", "isInWriteTransaction", "schema", "schemaVersion", "subscriptions"]),
        "Results": (["append", "average", "count", "distinct", "filter", "first", "freeze", "indexOf", "last", "max", "min",
                     "observe", "remove", "sorted", "sum", "thaw", "toTable", "where"], []),
        "List": (["append", "average", "count", "distinct", "filter", "freeze", "indexOf", "insert", "max", "min", "move",
                  "observe", "remove", "removeAll", "sorted", "sum", "thaw", "toTable", "where"], []),
        "Set": (["contains", "count", "insert", "remove", "removeAll", "toTable"], []),
        "Map": (["count", "keys", "remove", "removeAll", "toTable"], []),
        "Object": (["freeze", "get", "observe", "thaw", "toTable"], ["className", "isFrozen", "isInvalidated", "realm"]),
        "Configuration": ([], ["deleteRealmIfMigrationNeeded", "fileURL", "inMemoryIdentifier", "initialSubscriptions",
                               "maximumNumberOfActiveVersions", "migrationBlock", "objectTypes", "readOnly", "rerunOnOpen",
                               "schema", "schemaVersion"]),
        "SubscriptionSet": (["first", "update"], ["state"]),
        "MutableSubscriptionSet": (["append", "first", "remove", "removeAll"], []),
        "QuerySubscription": ([], ["createdAt", "name", "objectClassName", "queryString", "updatedAt"]),
        "Migration": (["create", "delete", "deleteData", "enumerateObjects", "renameProperty"], []),
        "NotificationToken": (["invalidate"], []),
        "User": (["flexibleSyncConfiguration"], ["name"]),
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
            _ = FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(name), isDirectory: &isDirectory)
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
            return (try? session.withTenant { tenant -> [String] in
                guard let value = try evaluate(receiver, in: tenant), let schema = try objectSchema(of: value, in: tenant) else { return [] }
                return schema.properties.map(\.name)
            }) ?? []
        }
        return []
    }

    func objectSchema(of value: LuaValue, in tenant: Tenant) throws -> ObjectSchema? {
        switch try tenant.runtime.inspect(value) {
        case .results(let r)?: return r.objectSchema
        case .object(let o)?: return o.objectSchema
        case .list(let l)?: return l.property.objectClassName.flatMap { l.realm.schema[$0] }
        case .set(let set)?: return set.property.objectClassName.flatMap { set.realm.schema[$0] }
        default: return nil
        }
    }

    // MARK: Members

    func members(of text: String, methodsOnly: Bool) -> [String] {
        guard let receiver = Completer.receiver(in: text) else { return [] }
        return (try? session.withTenant { tenant -> [String] in
            guard let value = try evaluate(receiver, in: tenant) else { return [] }
            if let inspected = try tenant.runtime.inspect(value) {
                var typeName: String
                var properties = [String]()
                switch inspected {
                case .realm: typeName = "Realm"
                case .results: typeName = "Results"
                case .list: typeName = "List"
                case .set: typeName = "Set"
                case .map: typeName = "Map"
                case .object(let o):
                    typeName = "Object"
                    properties = o.objectSchema?.properties.map(\.name) ?? []
                }
                let m = Completer.members[typeName]!
                return methodsOnly ? m.methods : m.fields + properties
            }
            let (names, typeName) = try luaMembers(of: value, methodsOnly: methodsOnly, in: tenant)
            if let typeName, let m = Completer.members[typeName] { return methodsOnly ? m.methods : m.fields }
            return names
        }) ?? []
    }

    /// Globals (the REPL's variables, the API, the standard library).
    func globals() -> [String] {
        (try? session.withTenant { tenant in
            try luaMembers(of: .table(try tenant.runtime.state.globals), methodsOnly: false, in: tenant).0
        }) ?? []
    }

    /// The string keys of a table (and of its metatable's `__index` tables), the string library
    /// for a string, or the type name of a userdata.
    func luaMembers(of value: LuaValue, methodsOnly: Bool, in tenant: Tenant) throws -> ([String], String?) {
        let state = tenant.runtime.state
        let helper = try state.load("""
            local v, methodsOnly = ...
            local out, seen = {}, {}
            local function add(t, depth)
              if type(t) ~= "table" or depth > 4 then return end
              for k, x in next, t do
                if type(k) == "string" and not seen[k] and (not methodsOnly or type(x) == "function") then
                  seen[k] = true
                  out[#out + 1] = k
                end
              end
              local mt = getmetatable(t)
              if type(mt) == "table" then add(rawget(mt, "__index"), depth + 1) end
            end
            local tv = type(v)
            if tv == "table" then add(v, 0)
            elseif tv == "string" then add(string, 0)
            elseif tv == "userdata" then
              local mt = getmetatable(v)
              return out, type(mt) == "string" and mt or nil
            end
            return out
            """, chunkName: "=completion")
        let results = try state.withLimits(Completer.limits(state.limits)) { try state.call(helper, [value, .boolean(methodsOnly)]) }
        var names = [String]()
        if case .table(let ref)? = results.first {
            for item in try state.copy(ref, maxDepth: 1).array { if case .string(let s) = item { names.append(s) } }
        }
        var typeName: String?
        if results.count > 1, case .string(let s) = results[1] { typeName = s }
        return (names.filter { LuaText.isIdentifier($0) }, typeName)
    }

    /// Evaluates a receiver expression if it only reads.
    func evaluate(_ expression: String, in tenant: Tenant) throws -> LuaValue? {
        guard Completer.isSafe(expression) else { return nil }
        let state = tenant.runtime.state
        let function = try state.load("return " + expression, chunkName: "=completion")
        let value = try state.withLimits(Completer.limits(state.limits)) { try state.call(function).first }
        return value
    }

    static func limits(_ base: LuaLimits) -> LuaLimits {
        var limits = base
        limits.instructions = 100_000
        limits.time = .milliseconds(250)
        return limits
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

    /// True when every call in the expression is to a reading method.
    static func isSafe(_ expression: String) -> Bool {
        let chars = Array(expression)
        var i = 0
        var quote: Character?
        while i < chars.count {
            let c = chars[i]
            if let q = quote {
                if c == "\\" { i += 1 } else if c == q { quote = nil }
                i += 1
                continue
            }
            if c == "\"" || c == "'" { quote = c; i += 1; continue }
            if c == "{" || c == "=" { return false }
            if c == "(" {
                var k = i - 1
                while k >= 0, chars[k] == " " { k -= 1 }
                var start = k
                while start >= 0, isNameCharacter(chars[start]) { start -= 1 }
                let name = start < k ? String(chars[(start + 1)...k]) : ""
                guard readingMethods.contains(name) else { return false }
            }
            i += 1
        }
        return quote == nil
    }
}

extension ReplSession {
    /// No unfinished chunk is pending (a dot command can start here).
    var isAtStatementStart: Bool { pendingIsEmpty }
}
