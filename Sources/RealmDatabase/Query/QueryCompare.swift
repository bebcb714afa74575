import Foundation
import RealmQuery
import RealmValues

// Comparisons with Realm's semantics. The cases, most specific first:
// - a collection (multi) side: EXISTS / NOT EXISTS over its join chain (ANY, ALL, NONE);
// - a list literal / list argument side: one comparison per element, OR-ed (ANY) or AND-ed (ALL);
// - two single values: native SQL on typed columns where SQLite agrees with Realm (keeps indexes),
//   `realm_cmp` / `realm_strop` / GLOB where it doesn't (mixed, decimals, strings, nulls).

extension QueryTranslator {
    func comparison(
        _ l: QueryExpression, _ op: QueryCompareOp, _ r: QueryExpression, _ options: QueryStringOptions, offset: Int
    ) throws -> QueryCondition {
        let lhs = try operand(l)
        let rhs = try operand(r)
        var op = op
        // `IN` is `==` with a list on its right (realm-core compiles it as Equal): so `{a, b} IN list`,
        // neither quantified, compares in order, as `{a, b} == list` does.
        if op == .in {
            switch rhs {
            case .list, .multi: break
            case .scalar(let s):
                throw fail(r.offset, "The keypath following 'IN' must contain a list. Found '\(s.text)'")
            case .constant(let c):
                throw fail(r.offset, "The keypath following 'IN' must contain a list. Found '\(c.text)'")
            }
            op = .equal
        }
        try refuseUnsupportedListComparison(lhs, rhs, offset: offset)
        return try compare(lhs, op, rhs, options, offset: offset)
    }

    /// realm-core's `verify_conditions`: two lists of values can't be compared, nor a list of
    /// links with NULL (`items == NULL`: it would be neither "empty" nor "holds a null").
    private func refuseUnsupportedListComparison(_ lhs: QueryOperand, _ rhs: QueryOperand, offset: Int) throws {
        if case .multi(let a, _) = lhs, case .multi(let b, _) = rhs, a.isValueCollection, b.isValueCollection {
            throw fail(
                offset,
                "Ordered comparison between two primitive lists is not implemented yet ('\(a.text)' and '\(b.text)')")
        }
        for (side, other) in [(lhs, rhs), (rhs, lhs)] {
            if case .multi(let m, _) = side, case .link = m.element.type, case .constant(let c) = other, c.isNull {
                throw fail(offset, "Cannot compare linklist ('\(m.text)') with NULL")
            }
        }
    }

    func compare(
        _ lhs: QueryOperand, _ op: QueryCompareOp, _ rhs: QueryOperand, _ options: QueryStringOptions, offset: Int
    ) throws -> QueryCondition {
        // A list property compared with a list literal, neither quantified: element by element, in order.
        if case .multi(let m, nil) = lhs, case .list(let items, nil, _, _) = rhs {
            return try ordered(m, op, items, listOnLeft: false, options, offset: offset)
        }
        if case .list(let items, nil, _, _) = lhs, case .multi(let m, nil) = rhs {
            return try ordered(m, op, items, listOnLeft: true, options, offset: offset)
        }
        // Collections and lists of constants: the left side's quantifier is the outer loop, the
        // right side's the inner one (realm-core's `Value::compare`): `ALL {a, b} IN list` is
        // "each of a, b is in the list".
        if case .multi(let m, let q) = lhs {
            return try quantified(m, q ?? .any) { element in
                try self.compare(.scalar(element), op, rhs, options, offset: offset)
            }
        }
        if case .list(let items, let q, _, _) = lhs {
            if case .list = rhs { throw fail(offset, "two lists can't be compared") }
            return try listComparison(items, q ?? .any, op: op, offset: offset) { c in
                try self.compare(.constant(c), op, rhs, options, offset: offset)
            }
        }
        if case .multi(let m, let q) = rhs {
            return try quantified(m, q ?? .any) { element in
                try self.compare(lhs, op, .scalar(element), options, offset: offset)
            }
        }
        if case .list(let items, let q, _, _) = rhs {
            if let fast = try inList(lhs, op, items, q ?? .any, options) { return fast }
            return try listComparison(items, q ?? .any, op: op, offset: offset) { c in
                try self.compare(lhs, op, .constant(c), options, offset: offset)
            }
        }
        return try elementary(lhs, op, rhs, options, offset: offset)
    }

    /// EXISTS over a chain for ANY, NOT EXISTS for NONE, NOT EXISTS of the negation for ALL.
    func quantified(_ m: QueryMulti, _ q: QueryQuantifier, _ inner: (QueryScalar) throws -> QueryCondition) throws
        -> QueryCondition
    {
        let c = try inner(m.element)
        let depth = c.depth + 8
        // ANY and NONE test the same rows: those matching the condition.
        let matching: SQLFragment =
            c.constant == true ? m.correlation : "\(m.correlation) AND \(c.kind == .or ? "(\(c.sql))" : c.sql)"
        switch q {
        case .any:
            if c.constant == false { return .alwaysFalse }
            return .atom("EXISTS (SELECT 1 FROM \(m.from) WHERE \(matching))", depth: depth)
        case .noneOf:
            if c.constant == false { return .alwaysTrue }
            return .atom("NOT EXISTS (SELECT 1 FROM \(m.from) WHERE \(matching))", depth: depth)
        case .all:
            if c.constant == true { return .alwaysTrue }
            let whereSQL: SQLFragment = c.constant == false ? m.correlation : "\(m.correlation) AND (\(c.sql)) IS NOT 1"
            return .atom("NOT EXISTS (SELECT 1 FROM \(m.from) WHERE \(whereSQL))", depth: depth + 1)
        }
    }

    /// One comparison per element of a list literal or list argument. The elements are mixed values
    /// in realm-core, compared each by its own type: one of a type that can't be compared is no
    /// match (`!=`: a match) instead of an error (`name IN {0, 'milk'}`).
    private func listComparison(
        _ items: [QueryConstant], _ q: QueryQuantifier, op: QueryCompareOp, offset: Int,
        _ each: (QueryConstant) throws -> QueryCondition
    ) throws -> QueryCondition {
        let parts = try items.map { c in
            do {
                return try each(c)
            } catch let e as QuerySyntaxError where e.isTypeMismatch {
                return QueryCondition.constant(op == .notEqual)
            }
        }
        switch q {
        case .any: return .or(parts)
        case .all: return .and(parts)
        case .noneOf: return .not(.or(parts))
        }
    }

    /// `x IN (?, ?, …)` for a typed column and plain values: one index lookup per value.
    private func inList(
        _ lhs: QueryOperand, _ op: QueryCompareOp, _ items: [QueryConstant], _ q: QueryQuantifier,
        _ options: QueryStringOptions
    ) throws -> QueryCondition? {
        guard op == .equal, options.isEmpty, q != .all, items.count > 1, case .scalar(let s) = lhs else { return nil }
        switch s.type {
        case .mixed, .typeName, .decimal: return nil
        default: break
        }
        var values = [SQLiteValue]()
        for c in items {
            if c.isNull || c.isNaN { return nil }
            guard case .native(let v)? = try? nativeValue(c, for: s.type) else { return nil }
            values.append(v)
        }
        let list = SQLFragment.joined(values.map { SQLFragment.param($0) }, separator: ", ")
        let c = QueryCondition.atom("\(s.sql) IN (\(list))", depth: s.depth + 1)
        return q == .noneOf ? .not(c) : c
    }

    /// `list op {a, b, c}`, neither side quantified (realm-core's ordered list matching): the same
    /// count and `op` true at each position; for `!=`, a different count or `!=` at every position.
    private func ordered(
        _ m: QueryMulti, _ op: QueryCompareOp, _ items: [QueryConstant], listOnLeft: Bool,
        _ options: QueryStringOptions, offset: Int
    ) throws -> QueryCondition {
        let countSQL: SQLFragment = "(SELECT COUNT(*) FROM \(m.from) WHERE \(m.correlation))"
        var parts = [QueryCondition]()
        let order = m.order.isEmpty ? "1" : m.order.joined(separator: ", ")
        for (i, c) in items.enumerated() {
            func nth(_ e: SQLFragment) -> SQLFragment {
                "(SELECT \(e) FROM \(m.from) WHERE \(m.correlation) ORDER BY \(raw: order) LIMIT 1 OFFSET "
                    + "\(raw: String(i)))"
            }
            var element = m.element
            element.sql = nth(m.element.sql)
            element.tag = m.element.tag.map(nth)
            element.nullable = true
            element.isColumn = false
            element.depth += 6
            let (l, r): (QueryOperand, QueryOperand) =
                listOnLeft ? (.constant(c), .scalar(element)) : (.scalar(element), .constant(c))
            do {
                parts.append(try compare(l, op, r, options, offset: offset))
            } catch let e as QuerySyntaxError where e.isTypeMismatch {
                parts.append(.constant(op == .notEqual))
            }
        }
        let n = String(items.count)
        if op == .notEqual {
            return .or([.atom("\(countSQL) <> \(raw: n)", depth: 6), .and(parts)])
        }
        return .and([.atom("\(countSQL) = \(raw: n)", depth: 6)] + parts)
    }

    func between(_ l: QueryExpression, _ r: QueryExpression, offset: Int) throws -> QueryCondition {
        let lhs = try operand(l)
        guard case .list(let items, nil, _, _) = try operand(r), items.count == 2 else {
            throw fail(r.offset, "BETWEEN needs a list of two values: {low, high}")
        }
        let lo = items[0]
        let hi = items[1]
        func range(_ x: QueryOperand) throws -> QueryCondition {
            .and([
                try compare(x, .greaterEqual, .constant(lo), QueryStringOptions(), offset: offset),
                try compare(x, .lessEqual, .constant(hi), QueryStringOptions(), offset: offset),
            ])
        }
        switch lhs {
        case .multi(let m, let q):
            guard q == .all else {
                throw fail(
                    l.offset,
                    "BETWEEN can't be used on a list with \(q.map { "'\($0.rawValue)'" } ?? "no quantifier"); use 'ALL "
                        + "\(m.text) BETWEEN {…}'"
                )
            }
            return try quantified(m, .all) { try range(.scalar($0)) }
        case .list:
            throw fail(l.offset, "BETWEEN can't be used on a list")
        default:
            return try range(lhs)
        }
    }

    // MARK: - Two single values

    enum NativeValue {
        /// Comparable with SQLite's own operators against the column.
        case native(SQLiteValue)
        /// Needs `realm_cmp` (decimals, string against binary): the value and its mixed tag.
        case generic(SQLiteValue, Int64)
    }

    func elementary(
        _ lhs: QueryOperand, _ op: QueryCompareOp, _ rhs: QueryOperand, _ options: QueryStringOptions, offset: Int
    ) throws -> QueryCondition {
        if op.isStringOperator { return try stringOperator(lhs, op, rhs, options, offset: offset) }
        switch (lhs, rhs) {
        case (.constant(let a), .constant(let b)):
            return try constantComparison(a, op, b, options, offset: offset)
        case (.scalar(let s), .constant(let c)):
            return try scalarConstant(s, op, c, options, offset: offset)
        case (.constant(let c), .scalar(let s)):
            return try scalarConstant(s, op.swapped, c, options, offset: offset)
        case (.scalar(let a), .scalar(let b)):
            return try scalarScalar(a, op, b, options, offset: offset)
        default:
            throw fail(offset, "unsupported comparison")
        }
    }

    private func mismatch(_ a: String, _ b: String, offset: Int) -> QuerySyntaxError {
        var e = fail(offset, "Unsupported comparison between type '\(a)' and type '\(b)'")
        e.isTypeMismatch = true
        return e
    }

    /// SQL for `realm_cmp(...)` tested against an operator.
    private func cmpResult(_ call: SQLFragment, _ op: QueryCompareOp) -> SQLFragment {
        guard let condition = op.realmCmpCondition else { return "0" }
        return "\(call) \(raw: condition)"
    }

    private func sqlOperator(_ op: QueryCompareOp) -> String {
        switch op {
        case .equal: return "="
        case .notEqual: return "<>"
        case .less: return "<"
        case .lessEqual: return "<="
        case .greater: return ">"
        case .greaterEqual: return ">="
        default: return "="
        }
    }

    private func constantComparison(
        _ a: QueryConstant, _ op: QueryCompareOp, _ b: QueryConstant, _ options: QueryStringOptions, offset: Int
    ) throws -> QueryCondition {
        if !options.isEmpty {
            let result = QueryRuntime.stringOp(
                QueryRuntime.opEqual, flags: options.foldFlags, haystack: a.stringOperand, needle: b.stringOperand)
            return .constant(op == .notEqual ? !result : result)
        }
        if a.isNaN || b.isNaN { return .constant(op == .notEqual) }
        let (va, ta) = a.tagged
        let (vb, tb) = b.tagged
        let r = QueryRuntime.compare(va, tag: ta, vb, tag: tb)
        switch op {
        case .equal: return .constant(r == 0)
        case .notEqual: return .constant(r != 0)
        case .less: return .constant(r == -1)
        case .lessEqual: return .constant(r == -1 || r == 0)
        case .greater: return .constant(r == 1)
        case .greaterEqual: return .constant(r == 0 || r == 1)
        default: return .alwaysFalse
        }
    }

    /// The stored form of a constant for comparison with values of `type`; throws on a type mismatch.
    func nativeValue(_ c: QueryConstant, for type: QueryValueType, offset: Int? = nil) throws -> NativeValue {
        func bad() -> QuerySyntaxError { mismatch(type.name, c.typeName, offset: offset ?? c.offset) }
        switch type {
        case .int, .float, .double:
            guard let value = try nativeNumber(c, for: type) else { throw bad() }
            return value
        case .decimal:
            guard let value = nativeDecimal(c) else { throw bad() }
            return value
        case .string, .data:
            guard let value = nativeBytes(c, for: type) else { throw bad() }
            return value
        case .bool:
            guard case .bool(let b) = c.value else { throw bad() }
            return .native(.integer(b ? 1 : 0))
        case .date:
            guard case .date(let t) = c.value else { throw bad() }
            guard let n = t.storedNanoseconds else {
                throw fail(c.offset, "the date \(c.text) is out of the supported range")
            }
            return .native(.integer(n))
        case .objectId:
            guard case .objectId(let o) = c.value else { throw bad() }
            return .native(.blob(Data(o.bytes)))
        case .uuid:
            guard case .uuid(let u) = c.value else { throw bad() }
            return .native(.blob(u.realmBytes))
        case .link(let target):
            switch c.value {
            case .object(let className, let key):
                guard className == target else {
                    throw fail(
                        offset ?? c.offset,
                        "Unsupported comparison between type 'link to '\(target)'' and an object of type '\(className)'"
                    )
                }
                return .native(.integer(key))
            case .objectKey(let k): return .native(.integer(k))
            default: throw bad()
            }
        case .mixed, .typeName:
            let (v, t) = c.tagged
            return .generic(v, t)
        }
    }

    /// A decimal compares through `realm_cmp`, as text tagged decimal128.
    private func decimalText(_ d: Decimal128) -> NativeValue {
        .generic(.text(d.description), MixedTag.decimal128.rawValue)
    }

    /// A number for an int, float or double column; nil when the constant is not a number.
    private func nativeNumber(_ c: QueryConstant, for type: QueryValueType) throws -> NativeValue? {
        if case .decimal(let d) = c.value { return decimalText(d) }
        switch (type, c.value) {
        case (.int, .int(let i)), (.double, .int(let i)):
            return .native(.integer(i))
        case (.float, .int(let i)):
            return .native(.real(Double(Float(i))))
        case (.int, .double(let d, _)):
            if d.isInfinite { throw fail(c.offset, "Infinity not supported for int") }
            return .native(.real(d))
        case (.float, .double(let d, let literal)):
            // A literal is rounded to float precision, as the column's values were.
            return .native(.real(literal != nil ? Double(Float(d)) : d))
        case (.double, .double(let d, _)):
            return .native(.real(d))
        case (.int, .float(let f)):
            if f.isInfinite { throw fail(c.offset, "Infinity not supported for int") }
            return .native(.real(Double(f)))
        case (.float, .float(let f)), (.double, .float(let f)):
            return .native(.real(Double(f)))
        default:
            return nil
        }
    }

    /// A decimal128 for a decimal column (exact from a literal's digits); nil when not a number.
    private func nativeDecimal(_ c: QueryConstant) -> NativeValue? {
        switch c.value {
        case .int(let i): return decimalText(Decimal128(i))
        case .double(let d, let literal):
            if d.isInfinite { return .generic(.real(d), MixedTag.double.rawValue) }
            if let literal, let exact = Decimal128(string: literal) { return decimalText(exact) }
            return decimalText(Decimal128(d))
        case .float(let f): return decimalText(Decimal128(Double(f)))
        case .decimal(let d): return decimalText(d)
        default: return nil
        }
    }

    /// Text or bytes for a string or binary column; nil when the constant is neither.
    private func nativeBytes(_ c: QueryConstant, for type: QueryValueType) -> NativeValue? {
        switch (type, c.value) {
        case (.string, .string(let s)):
            return .native(.text(s))
        case (.string, .base64(let d)):
            if let s = String(validating: d, as: UTF8.self) { return .native(.text(s)) }
            return .generic(.blob(d), MixedTag.data.rawValue)
        case (.string, .data(let d)):
            return .generic(.blob(d), MixedTag.data.rawValue)
        case (.data, .string(let s)):
            return .native(.blob(Data(s.utf8)))
        case (.data, .base64(let d)), (.data, .data(let d)):
            return .native(.blob(d))
        default:
            return nil
        }
    }

    private func nullCheck(_ s: QueryScalar) -> SQLFragment {
        if s.type == .mixed, let tag = s.tag { return "(\(tag) IS NULL OR \(tag) = 0)" }
        return "\(s.sql) IS NULL"
    }

    private func checkOrdering(_ op: QueryCompareOp, _ type: QueryValueType, offset: Int) throws {
        guard op.isOrdering else { return }
        switch type {
        case .link:
            throw fail(offset, "Unsupported operator '\(op.rawValue)' for links: only == and != can compare objects")
        case .typeName:
            throw fail(offset, "Unsupported operator '\(op.rawValue)' for '@type': only ==, != and IN can be used")
        default: break
        }
    }

    func scalarConstant(
        _ s: QueryScalar, _ op: QueryCompareOp, _ c: QueryConstant, _ options: QueryStringOptions, offset: Int
    ) throws -> QueryCondition {
        let depth = s.depth + 1
        if !options.isEmpty { return try caseInsensitiveEquality(s, op, c, options, offset: offset) }
        try checkOrdering(op, s.type, offset: offset)
        if s.type == .typeName { return try typeComparison(s, op, c, offset: offset) }
        if c.isNull {
            switch op {
            case .equal, .lessEqual, .greaterEqual: return .atom(nullCheck(s), depth: depth)
            case .notEqual: return .not(.atom(nullCheck(s), depth: depth))
            default: return .alwaysFalse
            }
        }
        if c.isNaN {
            if s.type.category != .numeric && s.type != .mixed {
                throw mismatch(s.type.name, c.typeName, offset: offset)
            }
            // NaN equals nothing; `!= NaN` matches every row.
            return .constant(op == .notEqual)
        }
        if s.type == .mixed { return try mixedConstant(s, op, c, offset: offset) }
        switch try nativeValue(c, for: s.type, offset: offset) {
        case .native(let v):
            switch op {
            case .equal: return .atom("\(s.sql) = \(SQLFragment.param(v))", depth: depth)
            case .notEqual: return .atom("\(s.sql) IS NOT \(SQLFragment.param(v))", depth: depth)
            default: return .atom("\(s.sql) \(raw: sqlOperator(op)) \(SQLFragment.param(v))", depth: depth)
            }
        case .generic(let v, let tag):
            let (value, stag) = s.taggedSQL
            return .atom(
                cmpResult("realm_cmp(\(value), \(stag), \(SQLFragment.param(v)), \(raw: String(tag)))", op),
                depth: depth + 1)
        }
    }

    /// `mixed <op> constant`: per stored type, with Realm's cross-type rules.
    private func mixedConstant(_ s: QueryScalar, _ op: QueryCompareOp, _ c: QueryConstant, offset: Int) throws
        -> QueryCondition
    {
        let v = s.sql
        let g = s.tag ?? "0"
        let depth = s.depth + 2
        if op == .notEqual { return .not(try mixedConstant(s, .equal, c, offset: offset)) }
        let sqlOp = sqlOperator(op)
        var parts = [SQLFragment]()
        switch c.value {
        case .int, .double, .float, .decimal:
            let (value, tag) = c.tagged
            if case .decimal = c.value {
                parts.append(
                    "(\(g) IN (1, 6, 7, 8) AND "
                        + "\(cmpResult("realm_cmp(\(v), \(g), \(SQLFragment.param(value)), \(raw: String(tag)))", op)))"
                )
            } else {
                parts.append("(\(g) IN (1, 6, 7) AND \(v) \(raw: sqlOp) \(SQLFragment.param(value)))")
                parts.append(
                    "(\(g) = 8 AND "
                        + "\(cmpResult("realm_cmp(\(v), 8, \(SQLFragment.param(value)), \(raw: String(tag)))", op)))"
                )
            }
            // Realm ranks bools below numbers when comparing across the two.
            if op == .less || op == .lessEqual { parts.append("\(g) = 2") }
        case .bool(let b):
            parts.append("(\(g) = 2 AND \(v) \(raw: sqlOp) \(SQLFragment.param(.integer(b ? 1 : 0))))")
            if op == .greater || op == .greaterEqual { parts.append("\(g) IN (1, 6, 7, 8)") }
        case .string(let str):
            parts.append("(\(g) = 3 AND \(v) \(raw: sqlOp) \(SQLFragment.param(.text(str))))")
            parts.append("(\(g) = 4 AND \(v) \(raw: sqlOp) \(SQLFragment.param(.blob(Data(str.utf8)))))")
        case .data(let d), .base64(let d):
            parts.append("(\(g) IN (3, 4) AND CAST(\(v) AS BLOB) \(raw: sqlOp) \(SQLFragment.param(.blob(d))))")
        case .date, .objectId, .uuid:
            let (value, tag) = c.tagged
            parts.append("(\(g) = \(raw: String(tag)) AND \(v) \(raw: sqlOp) \(SQLFragment.param(value)))")
        case .object, .objectKey:
            guard op == .equal else {
                throw fail(
                    offset, "Unsupported operator '\(op.rawValue)' for links: only == and != can compare objects")
            }
            if case .objectKey(let k) = c.value {
                parts.append("(\(g) = 9 AND \(v) GLOB \(SQLFragment.param(.text("*:\(k)"))))")
            } else {
                parts.append("(\(g) = 9 AND \(v) = \(SQLFragment.param(c.tagged.0)))")
            }
        case .null:
            return .atom(nullCheck(s), depth: depth)
        }
        return parts.count == 1 ? .atom(parts[0], depth: depth) : .or(parts.map { .atom($0, depth: depth) })
    }

    /// `mixed.@type == 'string'` (type names as in realm-core's TypeOfValue).
    private func typeComparison(_ s: QueryScalar, _ op: QueryCompareOp, _ c: QueryConstant, offset: Int) throws
        -> QueryCondition
    {
        guard case .string(let name) = c.value else {
            throw fail(c.offset, "'@type' can only be compared with a type name string such as 'int' or 'string'")
        }
        let groups: [String: [Int64]] = [
            "null": [0], "int": [1], "integer": [1], "bool": [2], "boolean": [2], "string": [3],
            "binary": [4], "data": [4], "date": [5], "timestamp": [5], "float": [6], "double": [7],
            "decimal": [8], "decimal128": [8], "object": [9], "link": [9], "objectid": [10], "uuid": [11],
            "numeric": [1, 6, 7, 8],
        ]
        guard let codes = groups[name.lowercased()] else {
            throw fail(
                c.offset,
                "Unable to parse the type attribute string '\(name)' (expected one of "
                    + "\(groups.keys.sorted().joined(separator: ", ")))"
            )
        }
        let list = codes.map(String.init).joined(separator: ", ")
        let cond = QueryCondition.atom("\(s.sql) IN (\(raw: list))", depth: s.depth + 1)
        return op == .notEqual ? .not(cond) : cond
    }

    /// `==[c]`, `!=[d]`, `IN[c]`: equality after folding case and/or diacritics.
    private func caseInsensitiveEquality(
        _ s: QueryScalar, _ op: QueryCompareOp, _ c: QueryConstant, _ options: QueryStringOptions, offset: Int
    ) throws -> QueryCondition {
        guard op == .equal || op == .notEqual else {
            throw fail(offset, "'\(options.suffix)' can only be used with ==, !=, IN and the string operators")
        }
        guard s.type == .string || s.type == .data || s.type == .mixed else {
            throw fail(
                offset,
                "Unsupported comparison '\(op.rawValue)\(options.suffix)' between type '\(s.type.name)' and type "
                    + "'\(c.typeName)': '\(options.suffix)' applies to strings"
            )
        }
        let equal: QueryCondition
        switch c.stringOperand {
        case .null:
            equal = .atom(nullCheck(s), depth: s.depth + 1)
        case .other:
            throw mismatch(s.type.name, c.typeName, offset: offset)
        case .text(let str):
            let folded = SQLFragment.param(.text(QueryRuntime.fold(str, flags: options.foldFlags)))
            switch s.type {
            case .string:
                equal = .atom("realm_fold(\(s.sql), \(raw: String(options.foldFlags))) = \(folded)", depth: s.depth + 2)
            case .mixed:
                equal = .atom(
                    "(\(s.tag ?? "0") IN (3, 4) AND realm_fold(\(s.sql), \(raw: String(options.foldFlags))) = "
                        + "\(folded))",
                    depth: s.depth + 2)
            default:
                equal = .atom(
                    "realm_strop(5, \(raw: String(options.foldFlags)), \(s.sql), \(SQLFragment.param(.text(str)))) = 1",
                    depth: s.depth + 2)
            }
        case .bytes(let b):
            equal = .atom(
                "realm_strop(5, \(raw: String(options.foldFlags)), \(s.sql), \(SQLFragment.param(.blob(Data(b))))) = 1",
                depth: s.depth + 2)
        }
        return op == .equal ? equal : .not(equal)
    }

    func scalarScalar(
        _ a: QueryScalar, _ op: QueryCompareOp, _ b: QueryScalar, _ options: QueryStringOptions, offset: Int
    ) throws -> QueryCondition {
        let depth = max(a.depth, b.depth) + 1
        if !options.isEmpty {
            guard op == .equal || op == .notEqual else {
                throw fail(offset, "'\(options.suffix)' can only be used with ==, !=, IN and the string operators")
            }
            for s in [a, b] where !(s.type == .string || s.type == .data || s.type == .mixed) {
                throw fail(
                    offset,
                    "Unsupported comparison '\(op.rawValue)\(options.suffix)' between type '\(a.type.name)' and type "
                        + "'\(b.type.name)': '\(options.suffix)' applies to strings"
                )
            }
            let eq = QueryCondition.atom(
                "realm_strop(5, \(raw: String(options.foldFlags)), \(a.sql), \(b.sql)) = 1", depth: depth + 1)
            return op == .equal ? eq : .not(eq)
        }
        try checkOrdering(op, a.type, offset: offset)
        try checkOrdering(op, b.type, offset: offset)
        let ca = a.type.category
        let cb = b.type.category
        if ca == .typeName || cb == .typeName {
            guard ca == cb else { throw mismatch(a.type.name, b.type.name, offset: offset) }
            return .atom(op == .equal ? "\(a.sql) = \(b.sql)" : "\(a.sql) <> \(b.sql)", depth: depth)
        }
        if ca != .mixed && cb != .mixed && ca != cb {
            throw mismatch(a.type.name, b.type.name, offset: offset)
        }
        if case .link(let x) = a.type, case .link(let y) = b.type, x != y {
            throw mismatch(a.type.name, b.type.name, offset: offset)
        }
        let native =
            ca != .mixed && cb != .mixed && a.type != .decimal && b.type != .decimal
            && (ca != .stringish || a.type == b.type)
        if native {
            switch op {
            case .equal: return .atom("\(a.sql) IS \(b.sql)", depth: depth)
            case .notEqual: return .atom("\(a.sql) IS NOT \(b.sql)", depth: depth)
            case .less, .greater: return .atom("\(a.sql) \(raw: sqlOperator(op)) \(b.sql)", depth: depth)
            default:
                if a.nullable && b.nullable {
                    return .atom(
                        "(\(a.sql) \(raw: sqlOperator(op)) \(b.sql) OR (\(a.sql) IS NULL AND \(b.sql) IS NULL))",
                        depth: depth + 1)
                }
                return .atom("\(a.sql) \(raw: sqlOperator(op)) \(b.sql)", depth: depth)
            }
        }
        let (va, ta) = a.taggedSQL
        let (vb, tb) = b.taggedSQL
        return .atom(cmpResult("realm_cmp(\(va), \(ta), \(vb), \(tb))", op), depth: depth + 1)
    }

    // MARK: - String operators

    /// `s` as a GLOB pattern matching it literally; with `keepingWildcards`, `*` and `?` stay
    /// wildcards (Realm's LIKE uses the same two as GLOB).
    private static func globPattern(_ s: String, keepingWildcards: Bool) -> String {
        var out = ""
        for ch in s.unicodeScalars {
            switch ch {
            case "*", "?": out += keepingWildcards ? String(ch) : "[\(ch)]"
            case "[": out += "[[]"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    private func opCode(_ op: QueryCompareOp) -> Int64 {
        switch op {
        case .beginsWith: return QueryRuntime.opBeginsWith
        case .endsWith: return QueryRuntime.opEndsWith
        case .contains: return QueryRuntime.opContains
        default: return QueryRuntime.opLike
        }
    }

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE` between strings or binary data.
    private func stringOperator(
        _ lhs: QueryOperand, _ op: QueryCompareOp, _ rhs: QueryOperand,
        _ options: QueryStringOptions, offset: Int
    ) throws -> QueryCondition {
        try checkStringOperand(lhs, op, offset: offset)
        try checkStringOperand(rhs, op, offset: offset)
        let flags = options.foldFlags
        let code = opCode(op)
        let call = "realm_strop(\(code), \(flags), "
        switch (lhs, rhs) {
        case (.constant(let a), .constant(let b)):
            return .constant(
                QueryRuntime.stringOp(code, flags: flags, haystack: a.stringOperand, needle: b.stringOperand))
        case (.scalar(let s), .constant(let c)):
            return scalarStringConstant(s, op, c, flags: flags, code: code)
        case (.constant(let c), .scalar(let s)):
            // realm-core: a NULL haystack contains, begins or ends with nothing (not even a null
            // string); `NULL LIKE x` matches a null x.
            if c.isNull { return op == .like ? .atom(nullCheck(s), depth: s.depth + 1) : .alwaysFalse }
            let hay = Self.sqlValue(c.stringOperand)
            return .atom("\(raw: call)\(SQLFragment.param(hay)), \(s.sql)) = 1", depth: s.depth + 2)
        case (.scalar(let a), .scalar(let b)):
            return .atom("\(raw: call)\(a.sql), \(b.sql)) = 1", depth: max(a.depth, b.depth) + 2)
        default:
            throw fail(offset, "unsupported string comparison")
        }
    }

    /// String operators apply to strings, binary data and mixed values only.
    private func checkStringOperand(_ o: QueryOperand, _ op: QueryCompareOp, offset: Int) throws {
        let applies = "it applies to strings and binary data"
        switch o {
        case .scalar(let s):
            guard s.type == .string || s.type == .data || s.type == .mixed else {
                throw fail(
                    offset,
                    "Unsupported comparison operator '\(op.rawValue)' for '\(s.text)' "
                        + "of type '\(s.type.name)': \(applies)")
            }
        case .constant(let c):
            if case .other = c.stringOperand {
                throw fail(
                    offset,
                    "Unsupported comparison operator '\(op.rawValue)' for \(c.text) "
                        + "of type '\(c.typeName)': \(applies)")
            }
        default: break
        }
    }

    /// A string operand as the SQLite value bound for `realm_strop`.
    private static func sqlValue(_ operand: QueryRuntime.StringOperand) -> SQLiteValue {
        switch operand {
        case .text(let t): return .text(t)
        case .bytes(let b): return .blob(Data(b))
        default: return .null
        }
    }

    /// A column (or other scalar) against a constant: a GLOB on strings, `realm_strop` otherwise.
    private func scalarStringConstant(
        _ s: QueryScalar, _ op: QueryCompareOp, _ c: QueryConstant, flags: Int64,
        code: Int64
    ) -> QueryCondition {
        let depth = s.depth + 2
        switch c.stringOperand {
        case .null:
            // A null needle is in every string (null included); LIKE null matches only null.
            return op == .like ? .atom(nullCheck(s), depth: depth) : .alwaysTrue
        case .text(let needle) where s.type == .string:
            let folded = QueryRuntime.fold(needle, flags: flags)
            let pattern: String
            switch op {
            case .beginsWith: pattern = Self.globPattern(folded, keepingWildcards: false) + "*"
            case .endsWith: pattern = "*" + Self.globPattern(folded, keepingWildcards: false)
            case .contains: pattern = "*" + Self.globPattern(folded, keepingWildcards: false) + "*"
            default: pattern = Self.globPattern(folded, keepingWildcards: true)
            }
            let bound = SQLFragment.param(.text(pattern))
            // GLOB is case-sensitive, like Realm; on a plain column a prefix pattern can use its index.
            if flags == 0 { return .atom("\(s.sql) GLOB \(bound)", depth: depth) }
            return .atom("realm_fold(\(s.sql), \(raw: String(flags))) GLOB \(bound)", depth: depth + 1)
        default:
            let needle = SQLFragment.param(Self.sqlValue(c.stringOperand))
            var cond: SQLFragment = "realm_strop(\(raw: String(code)), \(raw: String(flags)), \(s.sql), \(needle)) = 1"
            if s.type == .mixed { cond = "(\(s.tag ?? "0") IN (3, 4) AND \(cond))" }
            return .atom(cond, depth: depth + 1)
        }
    }
}

extension QueryCompareOp {
    /// How SQL tests a `realm_cmp(…)` result (-1, 0 or 1; NULL when the two cannot be compared) for
    /// this operator: what follows the call. nil for an operator `realm_cmp` does not decide. The
    /// local queries use it.
    fileprivate var realmCmpCondition: String? {
        switch self {
        case .equal: "= 0"
        case .notEqual: "<> 0"
        case .less: "= -1"
        case .lessEqual: "IN (-1, 0)"
        case .greater: "= 1"
        case .greaterEqual: "IN (0, 1)"
        case .beginsWith, .endsWith, .contains, .like, .in: nil
        }
    }
}
