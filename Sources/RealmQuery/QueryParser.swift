import Foundation
import RealmValues

// A recursive-descent parser for the Realm Query Language (grammar of realm-core's
// `query_bison.yy`; see docs/QUERY.md). It never crashes: every malformed input ends in a
// `QuerySyntaxError` naming the offending token, and nesting depth and query length are bounded.

package struct QueryParser {
    /// Longest query accepted, in UTF-8 bytes.
    static let maxQueryLength = 64 * 1024
    /// Deepest nesting accepted (parentheses, NOT, subqueries, lists, arithmetic operators).
    static let maxDepth = 100
    /// Most elements in one key path: each link followed is a join, and SQLite stops at 200.
    package static let maxKeyPathLength = 64

    private let tokens: [QueryToken]
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    private init(tokens: [QueryToken], bytes: [UInt8]) {
        self.tokens = tokens
        self.bytes = bytes
    }

    /// Parses a whole query: a predicate followed by SORT / DISTINCT / LIMIT clauses.
    package static func parse(_ text: String) throws -> ParsedQuery {
        let utf8Count = text.utf8.count
        guard utf8Count <= maxQueryLength else {
            throw QuerySyntaxError(
                offset: maxQueryLength,
                message: "the query is too long (\(utf8Count) bytes; at most \(maxQueryLength) are allowed)")
        }
        let tokens = try QueryLexer.tokenize(text)
        var parser = QueryParser(tokens: tokens, bytes: Array(text.utf8))
        return try parser.parseQuery()
    }

    // MARK: - Token helpers

    private var current: QueryToken { tokens[index] }
    private func peek(_ n: Int = 1) -> QueryToken { tokens[min(index + n, tokens.count - 1)] }
    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func text(of token: QueryToken) -> String {
        if case .end = token.kind { return "end of query" }
        let end = min(token.offset + token.length, bytes.count)
        var s = String(decoding: bytes[token.offset..<end], as: UTF8.self)
        if s.count > 40 { s = String(s.prefix(40)) + "…" }
        return "'\(s)'"
    }

    /// The token as written (for literals in messages).
    private func rawText(of token: QueryToken) -> String {
        let end = min(token.offset + token.length, bytes.count)
        return String(decoding: bytes[token.offset..<end], as: UTF8.self)
    }

    private func error(_ message: String, at token: QueryToken? = nil) -> QuerySyntaxError {
        QuerySyntaxError(offset: (token ?? current).offset, message: message)
    }

    private func unexpected(_ expected: String) -> QuerySyntaxError {
        error("expected \(expected), found \(text(of: current))")
    }

    private func isSymbol(_ s: QuerySymbol, _ token: QueryToken? = nil) -> Bool {
        if case .symbol(let t) = (token ?? current).kind { return t == s }
        return false
    }

    private func word(_ token: QueryToken? = nil) -> String? {
        if case .word(let w, _) = (token ?? current).kind { return w }
        return nil
    }

    private func keyword(_ token: QueryToken? = nil) -> QueryKeyword? {
        if case .word(_, let k) = (token ?? current).kind { return k }
        return nil
    }

    private mutating func expectSymbol(_ s: QuerySymbol, _ what: String? = nil) throws {
        guard isSymbol(s) else { throw unexpected(what ?? "'\(s.rawValue)'") }
        advance()
    }

    private mutating func enter() throws {
        depth += 1
        if depth > Self.maxDepth {
            throw error("the query is nested too deeply (more than \(Self.maxDepth) levels)")
        }
    }

    private mutating func leave() { depth -= 1 }

    // MARK: - Query

    private mutating func parseQuery() throws -> ParsedQuery {
        if case .end = current.kind { throw error("the query is empty: expected a predicate") }
        if isClauseStart() { throw error("expected a predicate before \(text(of: current))") }
        let predicate = try parsePredicate()
        var clauses = [ParsedClause]()
        while true {
            if case .end = current.kind { break }
            if isClauseStart() {
                clauses.append(try parseClause())
                continue
            }
            if isSymbol(.rightParen) { throw error("unbalanced ')': no matching '('") }
            throw unexpected("AND, OR, SORT, DISTINCT, LIMIT or the end of the query")
        }
        return ParsedQuery(predicate: predicate, clauses: clauses)
    }

    private func isClauseStart() -> Bool {
        guard let k = keyword(), k == .sort || k == .distinct || k == .limit else { return false }
        return isSymbol(.leftParen, peek())
    }

    private mutating func parseClause() throws -> ParsedClause {
        let start = current
        let name = keyword()!
        advance()
        try expectSymbol(.leftParen)
        switch name {
        case .sort:
            var keys = [(QueryKeyPath, ascending: Bool)]()
            repeat {
                if !keys.isEmpty { advance() }
                let path = try parseClauseKeyPath("SORT")
                guard let dir = keyword(), dir == .ascending || dir == .descending else {
                    throw unexpected("ASC or DESC after '\(path.text)' in SORT")
                }
                advance()
                keys.append((path, ascending: dir == .ascending))
            } while isSymbol(.comma)
            try expectSymbol(.rightParen, "',' or ')' in SORT")
            return .sort(keys, offset: start.offset)
        case .distinct:
            var keys = [QueryKeyPath]()
            repeat {
                if !keys.isEmpty { advance() }
                keys.append(try parseClauseKeyPath("DISTINCT"))
            } while isSymbol(.comma)
            try expectSymbol(.rightParen, "',' or ')' in DISTINCT")
            return .distinct(keys, offset: start.offset)
        default:
            guard case .integer(let n, let text) = current.kind, text.utf8.allSatisfy(QueryLexer.isDigit) else {
                throw unexpected("a natural number in LIMIT")
            }
            advance()
            try expectSymbol(.rightParen, "')' after the LIMIT count")
            guard n <= Int64(Int.max) else { throw error("LIMIT is too large", at: start) }
            return .limit(Int(n), offset: start.offset)
        }
    }

    private mutating func parseClauseKeyPath(_ clause: String) throws -> QueryKeyPath {
        guard word() != nil else { throw unexpected("a property name in \(clause)") }
        return try parseKeyPath()
    }

    // MARK: - Predicates

    private enum Node {
        case predicate(QueryPredicate)
        case value(QueryExpression)
    }

    private mutating func parsePredicate() throws -> QueryPredicate {
        let start = current
        switch try parseOr() {
        case .predicate(let p): return p
        case .value(let v): throw missingOperator(after: v, start: start)
        }
    }

    private func missingOperator(after value: QueryExpression, start: QueryToken) -> QuerySyntaxError {
        if case .end = current.kind {
            return error(
                "expected a comparison operator (==, !=, <, >, BEGINSWITH, IN, …) after "
                    + "\(describe(value, from: start)), found end of query"
            )
        }
        return error(
            "expected a comparison operator (==, !=, <, >, BEGINSWITH, IN, …) after \(describe(value, from: start)), "
                + "found \(text(of: current))"
        )
    }

    private func describe(_ value: QueryExpression, from start: QueryToken) -> String {
        let end = index > 0 ? tokens[index - 1].offset + tokens[index - 1].length : start.offset
        guard end > start.offset, end <= bytes.count else { return "the value" }
        var s = String(decoding: bytes[start.offset..<end], as: UTF8.self)
        if s.count > 40 { s = String(s.prefix(40)) + "…" }
        return "'\(s)'"
    }

    private func isOr() -> Bool { isSymbol(.or) || keyword() == .or }
    private func isAnd() -> Bool { isSymbol(.and) || keyword() == .and }

    private mutating func parseOr() throws -> Node {
        let firstToken = current
        let first = try parseAnd()
        guard isOr() else { return first }
        var terms = [try asPredicate(first, start: firstToken)]
        while isOr() {
            advance()
            let t = current
            terms.append(try asPredicate(try parseAnd(), start: t))
        }
        return .predicate(.or(terms))
    }

    private mutating func parseAnd() throws -> Node {
        let firstToken = current
        let first = try parseNot()
        guard isAnd() else { return first }
        var terms = [try asPredicate(first, start: firstToken)]
        while isAnd() {
            advance()
            let t = current
            terms.append(try asPredicate(try parseNot(), start: t))
        }
        return .predicate(.and(terms))
    }

    private func asPredicate(_ node: Node, start: QueryToken) throws -> QueryPredicate {
        switch node {
        case .predicate(let p): return p
        case .value(let v): throw missingOperator(after: v, start: start)
        }
    }

    /// `!` and `NOT` (lower or upper case, followed by something that starts an expression).
    private func isNot() -> Bool {
        if isSymbol(.bang) { return true }
        guard keyword() == .not else { return false }
        return canStartExpression(peek())
    }

    private func canStartExpression(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .word, .argument, .integer, .float, .special, .string, .base64, .timestamp, .objectId, .uuid, .objectKey:
            return true
        case .atKeyword(let k): return k == "links"
        case .symbol(let s): return s == .leftParen || s == .leftBrace || s == .bang
        case .modifier, .end: return false
        }
    }

    private mutating func parseNot() throws -> Node {
        var nots = [QueryToken]()
        while isNot() {
            nots.append(current)
            try enter()
            advance()
        }
        defer { for _ in nots { leave() } }
        let start = current
        var node = try parseComparison()
        if nots.isEmpty { return node }
        var p = try asPredicate(node, start: start)
        for token in nots.reversed() { p = .not(p, offset: token.offset) }
        node = .predicate(p)
        return node
    }

    /// The operator between a comparison's two values.
    private enum ComparisonOperator {
        case compare(QueryCompareOp)
        case between
    }

    /// The comparison operator at the current token, or nil when there is none.
    private mutating func comparisonOperator() throws -> ComparisonOperator? {
        switch current.kind {
        case .symbol(let s):
            switch s {
            case .equal: return .compare(.equal)
            case .notEqual: return .compare(.notEqual)
            case .less: return .compare(.less)
            case .lessEqual: return .compare(.lessEqual)
            case .greater: return .compare(.greater)
            case .greaterEqual: return .compare(.greaterEqual)
            default: return nil
            }
        case .word(_, let k):
            switch k {
            case .in?: return .compare(.in)
            case .beginsWith?: return .compare(.beginsWith)
            case .endsWith?: return .compare(.endsWith)
            case .contains?: return .compare(.contains)
            case .like?: return .compare(.like)
            case .between?: return .between
            case .text?: throw error("full-text search (TEXT) is not supported")
            default: return nil
            }
        default:
            return nil
        }
    }

    private mutating func parseComparison() throws -> Node {
        let left = try parseAdditive()
        let opToken = current
        guard let comparison = try comparisonOperator() else {
            if case .modifier = current.kind {
                throw error("'[c]' / '[d]' must follow a string or equality operator")
            }
            return left
        }
        guard case .value(let lhs) = left else {
            throw error("a predicate can't be compared: expected a value before \(text(of: opToken))", at: opToken)
        }
        advance()
        let options = try parseStringOptions(for: comparison)
        if case .end = current.kind { throw unexpected("a value after \(text(of: opToken))") }
        let rightStart = current
        let right = try parseAdditive()
        guard case .value(let rhs) = right else {
            throw error("a predicate can't be compared: expected a value after \(text(of: opToken))", at: rightStart)
        }
        switch comparison {
        case .between:
            return .predicate(.between(lhs, rhs, offset: opToken.offset))
        case .compare(let op):
            if case .compare? = try comparisonOperator() {
                throw error("comparisons can't be chained: use AND between them")
            }
            return .predicate(.compare(lhs, op, rhs, options, offset: opToken.offset))
        }
    }

    /// `[c]`, `[d]`, `[cd]` after an operator that takes them (string operators, `==`, `!=`, `IN`).
    private mutating func parseStringOptions(for comparison: ComparisonOperator) throws -> QueryStringOptions {
        var options = QueryStringOptions()
        guard case .modifier(let ci, let di) = current.kind else { return options }
        switch comparison {
        case .compare(let op) where op == .equal || op == .notEqual || op == .in || op.isStringOperator:
            break
        case .compare(let op):
            throw error("'\(op.rawValue)' does not take a '[c]' or '[d]' modifier")
        case .between:
            throw error("'BETWEEN' does not take a '[c]' or '[d]' modifier")
        }
        options.caseInsensitive = ci
        options.diacriticInsensitive = di
        advance()
        return options
    }

    // MARK: - Values

    private mutating func parseAdditive() throws -> Node {
        var left = try parseMultiplicative()
        var operators = 0
        while isSymbol(.plus) || isSymbol(.minus) {
            let opToken = current
            let op: QueryArithmeticOp = isSymbol(.plus) ? .add : .subtract
            advance()
            operators += 1
            try enter()
            let right = try parseMultiplicative()
            left = .value(try arithmetic(op, left, right, opToken))
        }
        for _ in 0..<operators { leave() }
        return left
    }

    private mutating func parseMultiplicative() throws -> Node {
        var left = try parsePrimary()
        var operators = 0
        while isSymbol(.star) || isSymbol(.slash) {
            let opToken = current
            let op: QueryArithmeticOp = isSymbol(.star) ? .multiply : .divide
            advance()
            operators += 1
            try enter()
            let right = try parsePrimary()
            left = .value(try arithmetic(op, left, right, opToken))
        }
        for _ in 0..<operators { leave() }
        return left
    }

    private func arithmetic(_ op: QueryArithmeticOp, _ l: Node, _ r: Node, _ token: QueryToken) throws
        -> QueryExpression
    {
        guard case .value(let lv) = l, case .value(let rv) = r else {
            throw error("arithmetic ('\(op.rawValue)') needs values on both sides, not predicates", at: token)
        }
        return .arithmetic(op, lv, rv, offset: token.offset)
    }

    /// A word that is an operator after a value (`x BEGINSWITH …`): `any BEGINSWITH 'a'` compares
    /// a property named `any`.
    private func isOperatorWord(_ token: QueryToken) -> Bool {
        switch keyword(token) {
        case .beginsWith?, .endsWith?, .contains?, .like?, .between?, .in?, .and?, .or?: return true
        default: return false
        }
    }

    private func quantifier(_ token: QueryToken) -> QueryQuantifier? {
        switch keyword(token) {
        case .any?: return .any
        case .all?: return .all
        case .noneOf?: return .noneOf
        default: return nil
        }
    }

    private mutating func parsePrimary() throws -> Node {
        let token = current
        if let literal = literal(token) {
            advance()
            return .value(literal)
        }
        switch token.kind {
        case .end:
            throw unexpected("a value or predicate")
        case .symbol(.leftParen):
            return try parseParenthesized()
        case .symbol(.leftBrace):
            return .value(try parseList(quantifier: nil))
        case .symbol(let s):
            throw error("expected a value or predicate, found '\(s.rawValue)'")
        case .modifier:
            throw error("'[c]' / '[d]' must follow a string or equality operator")
        case .argument(let n):
            advance()
            return .value(.argument(n, offset: token.offset))
        case .atKeyword(let k):
            if k == "links" { return .value(.keyPath(try parseKeyPath(), quantifier: nil)) }
            throw error("'@\(k)' must follow a property (as in 'list.@\(k)')")
        case .word(let w, let k):
            return try parseWord(token, w, keyword: k)
        default:
            throw unexpected("a value or predicate")
        }
    }

    /// The literal a number, string, date, ObjectId, UUID or object key token stands for.
    private func literal(_ token: QueryToken) -> QueryExpression? {
        let offset = token.offset
        switch token.kind {
        case .integer(let v, let text):
            return .literal(.integer(v, text: text), offset: offset, text: text)
        case .float(let v, let text, let isFloat):
            return .literal(.float(v, text: text, isFloat: isFloat), offset: offset, text: text)
        case .special(let v, let text):
            return .literal(.special(v, text: text), offset: offset, text: text)
        case .string(let s): return .literal(.string(s), offset: offset, text: rawText(of: token))
        case .base64(let d, _): return .literal(.base64(d), offset: offset, text: rawText(of: token))
        case .timestamp(let t): return .literal(.timestamp(t), offset: offset, text: rawText(of: token))
        case .objectId(let o): return .literal(.objectId(o), offset: offset, text: rawText(of: token))
        case .uuid(let u): return .literal(.uuid(u), offset: offset, text: rawText(of: token))
        case .objectKey(let k): return .literal(.objectKey(k), offset: offset, text: rawText(of: token))
        default: return nil
        }
    }

    /// `( … )`
    private mutating func parseParenthesized() throws -> Node {
        try enter()
        defer { leave() }
        advance()
        if isSymbol(.rightParen) { throw unexpected("a predicate or value inside '()'") }
        let inner = try parseOr()
        guard isSymbol(.rightParen) else { throw unexpected("')'") }
        advance()
        return inner
    }

    /// A word: a quantifier, a constant keyword, a function call or the start of a key path.
    private mutating func parseWord(_ token: QueryToken, _ w: String, keyword k: QueryKeyword?) throws -> Node {
        if let q = quantifier(token), !isOperatorWord(peek()), let quantified = try parseQuantified(q, word: w) {
            return .value(quantified)
        }
        if let constant = keywordConstant(k, word: w, offset: token.offset) {
            advance()
            return constant
        }
        if isSymbol(.leftParen, peek()) {
            return .value(try parseCall(w, keyword: k))
        }
        return .value(.keyPath(try parseKeyPath(), quantifier: nil))
    }

    /// `ANY`/`ALL`/`NONE` before a key path, a list or an argument; nil when the word is a
    /// property named `any` etc.
    private mutating func parseQuantified(_ q: QueryQuantifier, word w: String) throws -> QueryExpression? {
        let next = peek()
        switch next.kind {
        case .word, .atKeyword("links"):
            if keyword(next) == .subquery, isSymbol(.leftParen, peek(2)) {
                throw error("'\(w)' must be followed by a key path or a list, not SUBQUERY", at: next)
            }
            advance()
            return .keyPath(try parseKeyPath(), quantifier: q)
        case .symbol(.leftBrace):
            advance()
            return try parseList(quantifier: q)
        case .argument(let n):
            advance()
            advance()
            return .quantifiedArgument(n, quantifier: q, offset: next.offset)
        default:
            return nil
        }
    }

    /// `TRUEPREDICATE`, `FALSEPREDICATE`, `true`, `false`, `null`, `inf`, `nan`.
    private func keywordConstant(_ k: QueryKeyword?, word w: String, offset: Int) -> Node? {
        switch k {
        case .truePredicate?: return .predicate(.constant(true, offset: offset))
        case .falsePredicate?: return .predicate(.constant(false, offset: offset))
        case .trueValue?: return .value(.literal(.bool(true), offset: offset, text: w))
        case .falseValue?: return .value(.literal(.bool(false), offset: offset, text: w))
        case .null?: return .value(.literal(.null, offset: offset, text: w))
        case .infinity?: return .value(.literal(.special(.infinity, text: w), offset: offset, text: w))
        case .nan?: return .value(.literal(.special(.nan, text: w), offset: offset, text: w))
        default: return nil
        }
    }

    /// `SUBQUERY(…)`, `obj(…)`, `bin(…)` / `binary(…)`: the word is followed by '('.
    private mutating func parseCall(_ w: String, keyword k: QueryKeyword?) throws -> QueryExpression {
        if k == .subquery { return try parseSubquery() }
        if w == "obj" { return try parseObjectLiteral() }
        if w == "bin" || w == "binary" { return try parseBinaryLiteral() }
        if k == .sort || k == .distinct || k == .limit {
            throw error("\(w.uppercased()) must come after a predicate")
        }
        throw error("unknown function '\(w)'")
    }

    private mutating func parseList(quantifier: QueryQuantifier?) throws -> QueryExpression {
        let start = current
        try enter()
        defer { leave() }
        advance()  // `{`
        var items = [QueryExpression]()
        if isSymbol(.rightBrace) {
            advance()
            return .list(items, quantifier: quantifier, offset: start.offset)
        }
        while true {
            let t = current
            let node = try parsePrimary()
            guard case .value(let v) = node else { throw error("a list can only hold constants", at: t) }
            switch v {
            case .literal, .argument: items.append(v)
            default:
                throw error(
                    "a list can only hold constants (literals and $ arguments), not key paths or expressions", at: t)
            }
            if isSymbol(.comma) {
                advance()
                continue
            }
            if isSymbol(.rightBrace) {
                advance()
                break
            }
            throw unexpected("',' or '}' in the list")
        }
        return .list(items, quantifier: quantifier, offset: start.offset)
    }

    private mutating func parseSubquery() throws -> QueryExpression {
        let start = current
        try enter()
        defer { leave() }
        advance()  // SUBQUERY
        advance()  // (
        var isLinks = false
        if case .atKeyword("links") = current.kind { isLinks = true }
        guard word() != nil || isLinks else {
            throw unexpected("a list key path as the first SUBQUERY argument")
        }
        let path = try parseKeyPath()
        try expectSymbol(.comma, "',' after the SUBQUERY key path")
        guard let variable = word(), variable.hasPrefix("$") else {
            throw unexpected("a variable name starting with '$' as the second SUBQUERY argument")
        }
        advance()
        try expectSymbol(.comma, "',' after the SUBQUERY variable")
        if isSymbol(.rightParen) { throw unexpected("a predicate as the third SUBQUERY argument") }
        let predicate = try parsePredicate()
        try expectSymbol(.rightParen, "')' to close SUBQUERY")
        guard isSymbol(.dot) else { throw unexpected("'.@count' or '.@size' after SUBQUERY(…)") }
        advance()
        guard case .atKeyword(let k) = current.kind, k == "count" || k == "size" else {
            throw unexpected(
                "'@count' or '@size' after SUBQUERY(…) (other aggregates are not supported on subqueries)")
        }
        advance()
        return .subqueryCount(path, variable: variable, predicate, offset: start.offset)
    }

    private mutating func parseObjectLiteral() throws -> QueryExpression {
        let start = current
        advance()  // obj
        advance()  // (
        guard case .string(let className) = current.kind else {
            throw unexpected("a class name string in obj('Class', primaryKey)")
        }
        advance()
        try expectSymbol(.comma, "',' in obj('Class', primaryKey)")
        let keyToken = current
        let key: QueryLiteral
        switch current.kind {
        case .string(let s): key = .string(s)
        case .integer(let v, let t): key = .integer(v, text: t)
        case .objectId(let o): key = .objectId(o)
        case .uuid(let u): key = .uuid(u)
        case .word(_, .null?): key = .null
        default:
            throw error(
                "expected a primary key (string, integer, oid(…), uuid(…) or null) in obj(…)", at: keyToken)
        }
        advance()
        try expectSymbol(.rightParen, "')' to close obj(…)")
        let end = tokens[index - 1]
        let text = String(decoding: bytes[start.offset..<(end.offset + end.length)], as: UTF8.self)
        return .literal(.objectByPrimaryKey(className: className, key: key), offset: start.offset, text: text)
    }

    private mutating func parseBinaryLiteral() throws -> QueryExpression {
        let start = current
        advance()
        advance()
        guard case .string(let s) = current.kind else { throw unexpected("a string in \(word(start) ?? "bin")('…')") }
        advance()
        try expectSymbol(.rightParen)
        return .literal(.binary(Data(s.utf8)), offset: start.offset, text: "bin('\(s)')")
    }

    // MARK: - Key paths

    private mutating func parseKeyPath() throws -> QueryKeyPath {
        let start = current
        var elements = [QueryPathElement]()
        var variable: String?
        // The first element.
        switch current.kind {
        case .word(let w, _):
            if w.hasPrefix("$") && w.count > 1 {
                variable = w
            } else {
                elements.append(.property(w, offset: current.offset))
            }
            advance()
        case .atKeyword("links"):
            try parseLinks(into: &elements)
        default:
            throw unexpected("a property name")
        }
        // Further elements.
        while true {
            if elements.count > Self.maxKeyPathLength {
                throw error("the key path is too long (more than \(Self.maxKeyPathLength) elements)")
            }
            if isSymbol(.dot) {
                advance()
                try parseDotElement(into: &elements)
            } else if isSymbol(.leftBracket) {
                elements.append(try parseBracketElement())
            } else {
                break
            }
        }
        let end = tokens[max(index - 1, 0)]
        let text = String(decoding: bytes[start.offset..<min(end.offset + end.length, bytes.count)], as: UTF8.self)
        return QueryKeyPath(variable: variable, elements: elements, offset: start.offset, text: text)
    }

    /// What follows a '.' in a key path: a property name or an @-operator.
    private mutating func parseDotElement(into elements: inout [QueryPathElement]) throws {
        let t = current
        switch t.kind {
        case .word(let w, _):
            elements.append(.property(w, offset: t.offset))
            advance()
        case .atKeyword(let k):
            if let element = Self.atOperator(k, offset: t.offset) {
                elements.append(element)
                advance()
            } else {
                try parseLinks(into: &elements)
            }
        case .integer(_, let text) where text.utf8.allSatisfy(QueryLexer.isDigit):
            // `dict.123` isn't a valid key path; give a clear message.
            throw error("expected a property name after '.', found '\(text)'", at: t)
        default:
            throw unexpected("a property name or @-operator after '.'")
        }
    }

    /// The path element of `.@count`, `.@sum`, `.@keys`, … (not `@links`, which takes names after it).
    private static func atOperator(_ k: String, offset: Int) -> QueryPathElement? {
        switch k {
        case "count": return .count(offset: offset)
        case "size": return .size(offset: offset)
        case "sum": return .aggregate(.sum, offset: offset)
        case "avg": return .aggregate(.avg, offset: offset)
        case "min": return .aggregate(.min, offset: offset)
        case "max": return .aggregate(.max, offset: offset)
        case "type": return .type(offset: offset)
        case "keys": return .keys(offset: offset)
        case "values": return .values(offset: offset)
        default: return nil
        }
    }

    /// `[FIRST]`, `[LAST]`, `[n]`, `[*]`, `['key']`.
    private mutating func parseBracketElement() throws -> QueryPathElement {
        let t = current
        advance()
        let element: QueryPathElement
        switch current.kind {
        case .word(_, .first?):
            element = .index(.first, offset: t.offset)
        case .word(_, .last?):
            element = .index(.last, offset: t.offset)
        case .integer(let n, let text) where text.utf8.allSatisfy(QueryLexer.isDigit) && n <= Int64(Int32.max):
            element = .index(.position(Int(n)), offset: t.offset)
        case .symbol(.star):
            element = .all(offset: t.offset)
        case .string(let key):
            element = .key(key, offset: t.offset)
        default:
            throw unexpected("FIRST, LAST, an index, '*' or a dictionary key string inside '[]'")
        }
        advance()
        try expectSymbol(.rightBracket)
        return element
    }

    /// `@links.Class.property` or `@links` (then `.@count`).
    private mutating func parseLinks(into elements: inout [QueryPathElement]) throws {
        let t = current
        advance()  // @links
        if isSymbol(.dot), case .word(let className, _) = peek().kind {
            advance()
            advance()
            guard isSymbol(.dot) else { throw unexpected("'.' and a property name after '@links.\(className)'") }
            advance()
            guard case .word(let property, _) = current.kind else {
                throw unexpected("a property name after '@links.\(className).'")
            }
            advance()
            elements.append(.backlink(className: className, property: property, offset: t.offset))
        } else {
            elements.append(.allBacklinks(offset: t.offset))
        }
    }
}
