import RealmDatabase
import RealmQuery

/// One compilation of a query's syntax tree against one class (`ViewQueryCompiler`). Errors are
/// `QuerySyntaxError`s at the offending part's offset, which the compiler turns into messages
/// with the query and the column, as the local query language does.
struct ViewQueryCompilation {
    let objectSchema: ObjectSchema
    let queryable: Set<String>
    let allowsUser: Bool

    /// Where the query is used, for refusals.
    var context: String { allowsUser ? "sync rules" : "subscriptions" }

    func fail(_ offset: Int, _ message: String) -> QuerySyntaxError {
        QuerySyntaxError(offset: offset, message: message)
    }

    func refused(_ offset: Int, _ what: String) -> QuerySyntaxError {
        fail(offset, "\(what) are not supported in \(context)")
    }

    func refusedClause(_ clause: ParsedClause) -> QuerySyntaxError {
        switch clause {
        case .sort(_, let offset): return refused(offset, "SORT, DISTINCT and LIMIT")
        case .distinct(_, let offset): return refused(offset, "SORT, DISTINCT and LIMIT")
        case .limit(_, let offset): return refused(offset, "SORT, DISTINCT and LIMIT")
        }
    }

    // MARK: Predicates

    func predicate(_ p: QueryPredicate) throws -> ViewPredicate {
        switch p {
        case .constant(let value, _): return .constant(value)
        case .and(let parts): return .and(try parts.map(predicate))
        case .or(let parts): return .or(try parts.map(predicate))
        case .not(let inner, _): return .not(try predicate(inner))
        case .compare(let l, let op, let r, let options, let offset):
            return try comparison(l, op, r, options, offset: offset)
        case .between(let l, let r, let offset):
            return try between(l, r, offset: offset)
        }
    }

    private func comparison(
        _ l: QueryExpression, _ op: QueryCompareOp, _ r: QueryExpression, _ options: QueryStringOptions, offset: Int
    ) throws -> ViewPredicate {
        if options.diacriticInsensitive {
            throw refused(offset, "'\(options.suffix)' (diacritic-insensitive) comparisons")
        }
        let lhs = try operand(l)
        let rhs = try operand(r)
        if op == .in { return try inList(lhs, rhs, options, offset: offset) }
        switch (lhs, rhs) {
        case (.field(let field), .constant(let c)):
            return try ViewQueryTerm(compilation: self, field: field).compare(op, c, options, offset: offset)
        case (.constant(let c), .field(let field)):
            guard !op.isStringOperator else {
                throw fail(offset, "the field must be on the left of '\(op.rawValue)' in \(context)")
            }
            return try ViewQueryTerm(compilation: self, field: field).compare(op.swapped, c, options, offset: offset)
        case (.field(let a), .field(let b)):
            throw fail(offset, "comparing two fields is not supported in \(context): '\(a.name)' and '\(b.name)'")
        case (.list(_, let listOffset), _), (_, .list(_, let listOffset)):
            throw fail(listOffset, "a list {…} can only follow IN or BETWEEN in \(context)")
        case (.constant, .constant):
            throw fail(offset, "a comparison in \(context) must name a field")
        }
    }

    /// `field IN {a, b}`: `field == a OR field == b`. An element of another type matches nothing,
    /// as in the local query language (its lists hold mixed values).
    private func inList(_ lhs: ViewQueryOperand, _ rhs: ViewQueryOperand, _ options: QueryStringOptions, offset: Int)
        throws -> ViewPredicate
    {
        guard case .field(let field) = lhs, case .list(let items, _) = rhs else {
            throw fail(offset, "IN needs a field on its left and a list {…} on its right in \(context)")
        }
        let term = ViewQueryTerm(compilation: self, field: field)
        return .or(
            try items.map { item in
                do {
                    return try term.compare(.equal, item, options, offset: offset)
                } catch let error as QuerySyntaxError where error.isTypeMismatch {
                    return .constant(false)
                }
            })
    }

    /// `field BETWEEN {low, high}`: `field >= low AND field <= high`.
    private func between(_ l: QueryExpression, _ r: QueryExpression, offset: Int) throws -> ViewPredicate {
        guard case .field(let field) = try operand(l) else {
            throw fail(l.offset, "BETWEEN needs a field on its left in \(context)")
        }
        guard case .list(let items, _) = try operand(r), items.count == 2 else {
            throw fail(r.offset, "BETWEEN needs a list of two values: {low, high}")
        }
        let term = ViewQueryTerm(compilation: self, field: field)
        return .and([
            try term.compare(.greaterEqual, items[0], nil, offset: offset),
            try term.compare(.lessEqual, items[1], nil, offset: offset),
        ])
    }

    // MARK: Operands

    private func operand(_ e: QueryExpression) throws -> ViewQueryOperand {
        switch e {
        case .literal(let literal, let offset, let text):
            return .constant(.literal(literal, offset: offset, text: text))
        case .argument(let n, let offset), .quantifiedArgument(let n, _, let offset):
            throw fail(offset, "arguments such as '$\(n)' are not supported in \(context): queries travel as text")
        case .list(let items, let quantifier, let offset):
            if let quantifier { throw refused(offset, "'\(quantifier.rawValue)' quantifiers") }
            return .list(try items.map(listItem), offset: offset)
        case .keyPath(let path, let quantifier):
            if let quantifier { throw refused(path.offset, "'\(quantifier.rawValue)' quantifiers") }
            return try keyPath(path)
        case .arithmetic(_, _, _, let offset):
            throw refused(offset, "arithmetic operators (+ - * /)")
        case .subqueryCount(_, _, _, let offset):
            throw refused(offset, "SUBQUERY expressions")
        }
    }

    private func listItem(_ e: QueryExpression) throws -> ViewQueryConstant {
        switch try operand(e) {
        case .constant(let c): return c
        case .field(let f): throw fail(e.offset, "a list {…} in \(context) can only hold constants, not '\(f.name)'")
        case .list: throw fail(e.offset, "a list can't contain another list")
        }
    }

    private func keyPath(_ path: QueryKeyPath) throws -> ViewQueryOperand {
        if let variable = path.variable {
            guard variable == "$user", path.elements.isEmpty else {
                throw fail(path.offset, "the only variable of \(context) is '$user'; found '\(path.text)'")
            }
            guard allowsUser else {
                throw fail(path.offset, "'$user' is only allowed in sync rules, not in subscriptions")
            }
            return .constant(.user(offset: path.offset))
        }
        guard case .property(let name, let offset)? = path.elements.first else {
            try path.elements.first.map { try refuse($0, in: path) }
            throw fail(path.offset, "expected a field, found '\(path.text)'")
        }
        for element in path.elements.dropFirst() { try refuse(element, in: path) }
        return .field(try field(name, offset: offset))
    }

    /// Why a key path element other than one top-level field is refused.
    private func refuse(_ element: QueryPathElement, in path: QueryKeyPath) throws {
        switch element {
        case .property:
            throw fail(path.offset, "link paths are not supported in \(context): '\(path.text)'")
        case .backlink, .allBacklinks:
            throw fail(element.offset, "backlinks (@links) are not supported in \(context): '\(path.text)'")
        case .index, .all, .key:
            throw fail(element.offset, "list, set and map fields are not supported in \(context): '\(path.text)'")
        case .count, .size, .aggregate, .keys, .values, .type:
            throw fail(
                element.offset,
                "collection operators (@count, @size, @sum, @avg, @min, @max, @keys, @values, @type) are not supported "
                    + "in \(context): '\(path.text)'")
        }
    }

    /// A top-level, persisted, single-valued, non-link field that is queryable or the primary key.
    private func field(_ name: String, offset: Int) throws -> Property {
        let className = objectSchema.className
        guard let property = objectSchema[name], property.isPersisted else {
            throw fail(offset, "No property '\(name)' found on object type '\(className)'")
        }
        guard property.isPrimaryKey || queryable.contains(name) else {
            let names = (queryable.union(objectSchema.primaryKey.map { [$0] } ?? [])).sorted()
            throw fail(
                offset,
                "'\(name)' is not a queryable field of '\(className)' (queryable: \(names.joined(separator: ", ")))")
        }
        if let refusal = ViewQueryFieldKind.refusal(of: property) {
            throw fail(offset, "\(refusal) are not supported in \(context): '\(name)'")
        }
        return property
    }
}

/// What one side of a comparison is.
enum ViewQueryOperand {
    case field(Property)
    case constant(ViewQueryConstant)
    case list([ViewQueryConstant], offset: Int)
}

/// Which fields sync can query: single values of one type (not collections, links or mixed).
enum ViewQueryFieldKind {
    /// Nil when `property` can be queried, else what kind of field it is (plural, for messages).
    static func refusal(of property: Property) -> String? {
        if property.isCollection { return "list, set and map fields" }
        switch property.type {
        case .object, .linkingObjects: return "link fields"
        case .mixed: return "mixed fields"
        default: return nil
        }
    }
}
