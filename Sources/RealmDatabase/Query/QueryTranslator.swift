import Foundation
import RealmQuery
import RealmValues

// Turns a parsed query into SQL over the storage layout (see StorageLayout.swift):
// key paths become columns, scalar subqueries (to-one links) or join chains wrapped in EXISTS
// (collections); comparisons follow Realm's rules (QueryCompare.swift).

final class QueryTranslator {
    struct Scope {
        let objectSchema: ObjectSchema
        let alias: String
        var className: String { objectSchema.className }
    }

    let schema: Schema
    let root: Scope
    let arguments: [RealmValue]
    let keyOf: (DynamicObject) throws -> Int64
    private var aliasCounter = 0
    /// Subquery variables in scope.
    private var variables: [String: Scope] = [:]

    init(
        schema: Schema, objectSchema: ObjectSchema, arguments: [RealmValue],
        keyOf: @escaping (DynamicObject) throws -> Int64
    ) {
        self.schema = schema
        root = Scope(objectSchema: objectSchema, alias: "t0")
        self.arguments = arguments
        self.keyOf = keyOf
    }

    func translate(_ query: ParsedQuery) throws -> CompiledQuery {
        let condition = try predicate(query.predicate, negated: false)
        let descriptors = try clauses(query.clauses)
        return CompiledQuery(
            predicateSQL: condition.sql.text, bindings: condition.sql.bindings, descriptors: descriptors)
    }

    func newAlias() -> String {
        aliasCounter += 1
        return "rq\(aliasCounter)"
    }

    func fail(_ offset: Int, _ message: String) -> QuerySyntaxError {
        QuerySyntaxError(offset: offset, message: message)
    }

    // MARK: - Predicates

    func predicate(_ p: QueryPredicate, negated: Bool) throws -> QueryCondition {
        switch p {
        case .constant(let b, _):
            return .constant(b != negated)
        case .and(let ps):
            let parts = try ps.map { try predicate($0, negated: negated) }
            return negated ? .or(parts) : .and(parts)
        case .or(let ps):
            let parts = try ps.map { try predicate($0, negated: negated) }
            return negated ? .and(parts) : .or(parts)
        case .not(let inner, _):
            return try predicate(inner, negated: !negated)
        case .compare(let l, let op, let r, let options, let offset):
            let c = try comparison(l, op, r, options, offset: offset)
            return negated ? .not(c) : c
        case .between(let l, let r, let offset):
            let c = try between(l, r, offset: offset)
            return negated ? .not(c) : c
        }
    }

    // MARK: - Operands

    func operand(_ e: QueryExpression) throws -> QueryOperand {
        switch e {
        case .literal(let lit, let offset, let text):
            return try literal(lit, offset: offset, text: text)
        case .argument(let n, let offset):
            return try argument(n, offset: offset, quantifier: nil)
        case .quantifiedArgument(let n, let q, let offset):
            let op = try argument(n, offset: offset, quantifier: q)
            guard case .list = op else {
                throw fail(
                    offset,
                    "'\(q.rawValue)' must be followed by a key path that contains a list or by a list; argument $\(n) "
                        + "is not a list"
                )
            }
            return op
        case .list(let items, let q, let offset):
            var constants = [QueryConstant]()
            for item in items {
                switch try operand(item) {
                case .constant(let c): constants.append(c)
                case .list: throw fail(item.offset, "a list can't contain another list")
                default: throw fail(item.offset, "a list can only hold constants")
                }
            }
            return .list(constants, q, offset: offset, text: "{…}")
        case .keyPath(let path, let q):
            let op = try resolve(path)
            if let q {
                guard case .multi(let m, _) = op else {
                    throw fail(path.offset, "The keypath following '\(q.rawValue)' must contain a list")
                }
                return .multi(m, q)
            }
            return op
        case .arithmetic(let op, let l, let r, let offset):
            return try arithmetic(op, try operand(l), try operand(r), offset: offset)
        case .subqueryCount(let path, let variable, let pred, let offset):
            return .scalar(try subqueryCount(path, variable: variable, pred, offset: offset))
        }
    }

    func literal(_ lit: QueryLiteral, offset: Int, text: String) throws -> QueryOperand {
        func c(_ v: QueryConstant.Value) -> QueryOperand {
            .constant(QueryConstant(value: v, offset: offset, text: text, isLiteral: true))
        }
        switch lit {
        case .null: return c(.null)
        case .bool(let b): return c(.bool(b))
        case .integer(let i, _): return c(.int(i))
        case .float(let d, let t, let isFloat): return isFloat ? c(.float(Float(d))) : c(.double(d, literal: t))
        case .special(let d, _): return c(.double(d, literal: nil))
        case .string(let s): return c(.string(s))
        case .base64(let d): return c(.base64(d))
        case .binary(let d): return c(.data(d))
        case .timestamp(let t): return c(.date(t))
        case .objectId(let o): return c(.objectId(o))
        case .uuid(let u): return c(.uuid(u))
        case .objectKey(let k): return c(.objectKey(k))
        case .objectByPrimaryKey(let className, let key):
            guard let target = schema[className] else {
                throw fail(offset, "No class named '\(className)' in obj('\(className)', …)")
            }
            guard let pk = target.primaryKeyProperty else {
                throw fail(
                    offset, "Class '\(className)' has no primary key, so obj('\(className)', …) can't find an object")
            }
            let value: SQLiteValue
            switch (pk.type, key) {
            case (_, .null): value = .null
            case (.int, .integer(let i, _)): value = .integer(i)
            case (.string, .string(let s)): value = .text(s)
            case (.objectId, .objectId(let o)): value = .blob(Data(o.bytes))
            case (.objectId, .string(let s)):
                guard let o = ObjectId(string: s) else { throw fail(offset, "'\(s)' is not an ObjectId") }
                value = .blob(Data(o.bytes))
            case (.uuid, .uuid(let u)): value = .blob(u.realmBytes)
            case (.uuid, .string(let s)):
                guard let u = UUID(uuidString: s) else { throw fail(offset, "'\(s)' is not a UUID") }
                value = .blob(u.realmBytes)
            default:
                throw fail(
                    offset,
                    "the primary key of '\(className)' is of type '\(pk.type.rawValue)'; the value in obj(…) doesn't "
                        + "match"
                )
            }
            let sql: SQLFragment =
                "(SELECT \"_key\" FROM \(raw: StorageLayout.quotedTable(className)) WHERE "
                + "\(raw: StorageLayout.quote(pk.name)) IS \(SQLFragment.param(value)))"
            return .scalar(
                QueryScalar(
                    sql: sql, tag: nil, type: .link(className), nullable: true, isColumn: false, text: text, depth: 3))
        }
    }

    func argument(_ n: Int, offset: Int, quantifier: QueryQuantifier?) throws -> QueryOperand {
        guard n < arguments.count else {
            if arguments.isEmpty { throw fail(offset, "Attempt to retreive an argument when no arguments were given") }
            let count = arguments.count
            throw fail(
                offset,
                "Request for argument at index \(n) but only \(count) argument\(count == 1 ? " is" : "s are") provided")
        }
        let text = "$\(n)"
        switch arguments[n] {
        case .list(let items):
            var constants = [QueryConstant]()
            for item in items {
                if case .list = item {
                    throw fail(offset, "argument \(text) is a list of lists, which can't be compared")
                }
                constants.append(
                    QueryConstant(
                        value: try constantValue(item, offset: offset, text: text), offset: offset, text: text,
                        isLiteral: false))
            }
            return .list(constants, quantifier, offset: offset, text: text)
        case let v:
            return .constant(
                QueryConstant(
                    value: try constantValue(v, offset: offset, text: text), offset: offset, text: text,
                    isLiteral: false))
        }
    }

    private func constantValue(_ v: RealmValue, offset: Int, text: String) throws -> QueryConstant.Value {
        switch v {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .float(let f): return .float(f)
        case .double(let d): return .double(d, literal: nil)
        case .string(let s): return .string(s)
        case .data(let d): return .data(d)
        case .date(let t): return .date(t)
        case .decimal128(let d): return .decimal(d)
        case .objectId(let o): return .objectId(o)
        case .uuid(let u): return .uuid(u)
        case .object(let o):
            do {
                return .object(className: o.className, key: try keyOf(o))
            } catch let e as RealmError {
                throw fail(offset, "argument \(text): \(e.message)")
            } catch {
                throw fail(offset, "argument \(text): \(error)")
            }
        case .list: throw fail(offset, "argument \(text) is a list, which can only be used with IN or a quantifier")
        case .dictionary: throw fail(offset, "argument \(text) is a dictionary, which can't be used in a query")
        }
    }

    // MARK: - Key paths

    private struct JoinItem {
        var table: String
        var alias: String
        var on: SQLFragment
    }

    private struct Hop {
        var items: [JoinItem]
        var toMany: Bool
        var order: String?
    }

    private enum Cursor {
        case object(Scope)
        case link(key: SQLFragment, target: ObjectSchema, isColumn: Bool, depth: Int)
        case value(QueryScalar)
        case collection(owner: Scope, property: Property)
        case backlinks(target: Scope, source: ObjectSchema, property: Property)
        case allBacklinks(Scope)
    }

    private struct Walk {
        var hops: [Hop] = []
        var cursor: Cursor
        /// Whether a column of `t0` reached by this walk is the query row's own column (not a
        /// subquery variable's), so that the column can be compared directly.
        var isRootColumn: Bool
        /// The property names walked so far, for messages.
        var walked = ""
        /// The value of an aggregate over no rows (0 for @count and @sum), used through to-one links.
        var emptyValue: String?
        /// The last to-many hop expanded a collection of values (not of objects).
        var endsInValues = false
    }

    private func classSchema(_ name: String?, offset: Int) throws -> ObjectSchema {
        guard let name, let s = schema[name] else { throw fail(offset, "No class named '\(name ?? "")' in the schema") }
        return s
    }

    private func sideTable(_ owner: ObjectSchema, _ p: Property) -> String {
        StorageLayout.quote(StorageLayout.collectionTable(owner.className, p))
    }

    private func column(_ alias: String, _ name: String) -> String { "\(alias).\(StorageLayout.quote(name))" }

    private func scalarColumn(_ alias: String, _ p: Property, text: String, isColumn: Bool) -> QueryScalar {
        let type = QueryValueType(p.type, objectClassName: p.objectClassName)
        return QueryScalar(
            sql: SQLFragment(column(alias, p.name)),
            tag: p.type == .mixed ? SQLFragment(column(alias, StorageLayout.typeTagColumn(p.name))) : nil,
            type: type, nullable: p.isOptional || p.type == .mixed, isColumn: isColumn, text: text)
    }

    /// Joins the object a link key points to (a to-one hop).
    private func materialize(_ walk: inout Walk, key: SQLFragment, target: ObjectSchema) -> Scope {
        let a = newAlias()
        walk.hops.append(
            Hop(
                items: [
                    JoinItem(
                        table: StorageLayout.quotedTable(target.className), alias: a, on: "\(raw: a).\"_key\" = \(key)")
                ], toMany: false, order: nil))
        return Scope(objectSchema: target, alias: a)
    }

    /// One row per element of a collection property (a to-many hop).
    private func expand(_ walk: inout Walk, owner: Scope, property p: Property, text: String, offset: Int) throws
        -> Cursor
    {
        let s = newAlias()
        walk.hops.append(
            Hop(
                items: [
                    JoinItem(
                        table: sideTable(owner.objectSchema, p), alias: s,
                        on: "\(raw: s).owner = \(raw: owner.alias).\"_key\"")
                ],
                toMany: true, order: p.collection == .list ? "\(s).pos, \(s).\"_row\"" : "\(s).\"_row\""))
        walk.endsInValues = p.type != .object
        if p.type == .object {
            return .link(
                key: "\(raw: s).value", target: try classSchema(p.objectClassName, offset: offset), isColumn: false,
                depth: 0)
        }
        let type = QueryValueType(p.type, objectClassName: nil)
        return .value(
            QueryScalar(
                sql: "\(raw: s).value", tag: p.type == .mixed ? "\(raw: s).value__t" : nil,
                type: type, nullable: p.isOptional || p.type == .mixed, isColumn: false, text: text))
    }

    /// One row per object linking here through `source.property`.
    private func expandBacklinks(_ walk: inout Walk, target: Scope, source: ObjectSchema, property q: Property)
        -> Cursor
    {
        if q.collection == .none {
            let b = newAlias()
            walk.hops.append(
                Hop(
                    items: [
                        JoinItem(
                            table: StorageLayout.quotedTable(source.className), alias: b,
                            on: "\(raw: column(b, q.name)) = \(raw: target.alias).\"_key\"")
                    ], toMany: true, order: "\(b).\"_key\""))
            return .object(Scope(objectSchema: source, alias: b))
        }
        let s = newAlias()
        walk.hops.append(
            Hop(
                items: [
                    JoinItem(
                        table: sideTable(source, q), alias: s, on: "\(raw: s).value = \(raw: target.alias).\"_key\"")
                ],
                toMany: true, order: "\(s).\"_row\""))
        return .link(key: "\(raw: s).owner", target: source, isColumn: false, depth: 0)
    }

    /// Brings the cursor to an object scope (joining or expanding as needed), for `.property` steps.
    private func toObject(_ walk: inout Walk, path: QueryKeyPath, offset: Int, next: String) throws -> Scope? {
        switch walk.cursor {
        case .object(let scope): return scope
        case .link(let key, let target, _, _):
            let scope = materialize(&walk, key: key, target: target)
            walk.cursor = .object(scope)
            return scope
        case .backlinks(let target, let source, let q):
            walk.cursor = expandBacklinks(&walk, target: target, source: source, property: q)
            return try toObject(&walk, path: path, offset: offset, next: next)
        case .collection(let owner, let p):
            guard p.type == .object, p.collection != .map else { return nil }
            walk.cursor = try expand(&walk, owner: owner, property: p, text: path.text, offset: offset)
            return try toObject(&walk, path: path, offset: offset, next: next)
        case .value, .allBacklinks:
            return nil
        }
    }

    /// Resolves a key path to a scalar (one value per row) or a multi (a join chain): one step per
    /// path element moves the walk's cursor, then the cursor's value is the path's element value.
    func resolve(_ path: QueryKeyPath) throws -> QueryOperand {
        var (walk, elements) = startWalk(path)
        var i = 0
        while i < elements.count {
            i = try step(&walk, elements, at: i, path: path)
        }
        let element = try endValue(&walk, path: path)
        return wrap(walk, element: element, text: path.text, offset: path.offset)
    }

    /// The walk's start: at a subquery variable's object, or at the query's row. A `$name` that is
    /// not a subquery variable is a property whose name starts with '$'.
    private func startWalk(_ path: QueryKeyPath) -> (Walk, [QueryPathElement]) {
        guard let v = path.variable else {
            return (Walk(cursor: .object(root), isRootColumn: true), path.elements)
        }
        if let scope = variables[v] {
            return (Walk(cursor: .object(scope), isRootColumn: false, walked: v), path.elements)
        }
        return (Walk(cursor: .object(root), isRootColumn: true), [.property(v, offset: path.offset)] + path.elements)
    }

    /// Applies `elements[i]` to the walk; returns the index of the next element to apply.
    private func step(_ walk: inout Walk, _ elements: [QueryPathElement], at i: Int, path: QueryKeyPath) throws -> Int {
        let following = i + 1 < elements.count ? elements[i + 1] : nil
        var next = i + 1
        switch elements[i] {
        case .property(let name, let offset):
            try stepProperty(&walk, name: name, offset: offset, path: path)
            walk.walked += walk.walked.isEmpty ? name : "." + name
        case .backlink(let className, let propertyName, let offset):
            try stepBacklink(&walk, className: className, propertyName: propertyName, offset: offset, path: path)
        case .allBacklinks(let offset):
            try stepAllBacklinks(&walk, following: following, offset: offset, path: path)
        case .index(let index, let offset):
            guard case .collection(let owner, let p) = walk.cursor, p.collection == .list else {
                throw fail(offset, "an index ([FIRST], [LAST], [n]) can only follow a list property")
            }
            walk.cursor = try listElement(owner: owner, property: p, index: index, text: path.text, offset: offset)
        case .all(let offset):
            switch walk.cursor {
            case .collection, .backlinks: break
            default: throw fail(offset, "'[*]' can only follow a collection property")
            }
        case .key(let key, let offset):
            guard case .collection(let owner, let p) = walk.cursor, p.collection == .map else {
                throw fail(offset, "a key ['…'] can only follow a dictionary property")
            }
            walk.cursor = try mapLookup(owner: owner, property: p, key: key, text: path.text, offset: offset)
        case .count(let offset), .size(let offset):
            if let following { throw fail(following.offset, "nothing can follow '@count' / '@size' in a key path") }
            var summed = false
            if case .allBacklinks = walk.cursor { summed = walk.hops.contains(where: \.toMany) }
            walk.cursor = .value(try count(&walk, text: path.text, offset: offset))
            walk.emptyValue = walk.emptyValue ?? "0"
            if summed { sumOverChain(&walk, text: path.text) }
        case .aggregate(let op, let offset):
            next = try stepAggregate(&walk, op, elements, at: i, offset: offset, path: path)
        case .keys(let offset):
            try stepMapKeys(&walk, offset: offset, path: path)
        case .values(let offset):
            let (owner, p) = try mapCursor(walk, offset: offset)
            walk.cursor = try expand(&walk, owner: owner, property: p, text: path.text, offset: offset)
        case .type(let offset):
            try stepType(&walk, offset: offset, path: path)
        }
        return next
    }

    /// `.name`: a property of the object at the cursor, or a key of the dictionary at the cursor.
    private func stepProperty(_ walk: inout Walk, name: String, offset: Int, path: QueryKeyPath) throws {
        if case .collection(let owner, let p) = walk.cursor, p.collection == .map {
            walk.cursor = try mapLookup(owner: owner, property: p, key: name, text: path.text, offset: offset)
            return
        }
        guard let scope = try toObject(&walk, path: path, offset: offset, next: name) else {
            throw fail(offset, notFollowable(walk.cursor, name: name, walked: walk.walked))
        }
        guard let p = scope.objectSchema[name] else {
            throw fail(offset, "No property '\(name)' found on object type '\(scope.className)'")
        }
        let plain = scope.alias == "t0" && walk.isRootColumn
        if p.type == .linkingObjects {
            let source = try classSchema(p.objectClassName, offset: offset)
            guard let originName = p.linkOriginPropertyName, let origin = source[originName] else {
                throw fail(offset, "The linking objects property '\(scope.className).\(name)' has no origin property")
            }
            walk.cursor = .backlinks(target: scope, source: source, property: origin)
        } else if p.isCollection {
            walk.cursor = .collection(owner: scope, property: p)
        } else if p.type == .object {
            let target = try classSchema(p.objectClassName, offset: offset)
            walk.cursor = .link(
                key: SQLFragment(column(scope.alias, p.name)), target: target, isColumn: plain, depth: 0)
        } else {
            walk.cursor = .value(scalarColumn(scope.alias, p, text: path.text, isColumn: plain))
        }
    }

    /// `@links.Class.property`: the objects of `Class` whose `property` links to the cursor's object.
    private func stepBacklink(
        _ walk: inout Walk, className: String, propertyName: String, offset: Int,
        path: QueryKeyPath
    ) throws {
        guard let scope = try toObject(&walk, path: path, offset: offset, next: "@links") else {
            throw fail(offset, notFollowable(walk.cursor, name: "@links", walked: walk.walked))
        }
        let written = "@links.\(className).\(propertyName)"
        guard let source = schema[className] else {
            throw fail(offset, "No class named '\(className)' (in '\(written)')")
        }
        guard let q = source[propertyName] else {
            throw fail(offset, "No property '\(propertyName)' found on object type '\(className)' (in '\(written)')")
        }
        guard q.type == .object, q.objectClassName == scope.className else {
            throw fail(
                offset,
                "'\(className).\(propertyName)' is not a link to '\(scope.className)', "
                    + "so '\(written)' has no objects")
        }
        walk.cursor = .backlinks(target: scope, source: source, property: q)
    }

    /// `@links` on its own: every link to the cursor's object, which can only be counted.
    private func stepAllBacklinks(
        _ walk: inout Walk, following: QueryPathElement?, offset: Int,
        path: QueryKeyPath
    ) throws {
        guard let scope = try toObject(&walk, path: path, offset: offset, next: "@links") else {
            throw fail(offset, notFollowable(walk.cursor, name: "@links", walked: walk.walked))
        }
        switch following {
        case .count, .size: break
        default:
            throw fail(
                offset,
                "'@links' on its own must be followed by '.@count' "
                    + "(or name the class and property: '@links.Class.property')")
        }
        walk.cursor = .allBacklinks(scope)
    }

    /// `@sum`, `@avg`, `@min`, `@max`, with the property name that may follow (which it consumes).
    private func stepAggregate(
        _ walk: inout Walk, _ op: QueryAggregate, _ elements: [QueryPathElement], at i: Int,
        offset: Int, path: QueryKeyPath
    ) throws -> Int {
        var property: String?
        var next = i + 1
        if i + 1 < elements.count {
            guard case .property(let name, _) = elements[i + 1], i + 2 == elements.count else {
                throw fail(elements[i + 1].offset, "'\(op.rawValue)' can be followed only by one property name")
            }
            property = name
            next = i + 2
        }
        let (value, empty) = try aggregate(&walk, op, property: property, text: path.text, offset: offset)
        walk.cursor = .value(value)
        walk.emptyValue = empty
        return next
    }

    /// The dictionary at the cursor, for `@keys` and `@values`.
    private func mapCursor(_ walk: Walk, offset: Int) throws -> (owner: Scope, property: Property) {
        guard case .collection(let owner, let p) = walk.cursor, p.collection == .map else {
            throw fail(offset, "'@keys' and '@values' can only follow a dictionary property")
        }
        return (owner, p)
    }

    /// `@keys`: one row per key of the dictionary at the cursor.
    private func stepMapKeys(_ walk: inout Walk, offset: Int, path: QueryKeyPath) throws {
        let (owner, p) = try mapCursor(walk, offset: offset)
        let s = newAlias()
        let on: SQLFragment = "\(raw: s).owner = \(raw: owner.alias).\"_key\""
        let item = JoinItem(table: sideTable(owner.objectSchema, p), alias: s, on: on)
        walk.hops.append(Hop(items: [item], toMany: true, order: "\(s).\"_row\""))
        walk.cursor = .value(
            QueryScalar(
                sql: "\(raw: s).key", tag: nil, type: .string, nullable: false,
                isColumn: false, text: path.text))
    }

    /// `@type`: the type name of the mixed value at the cursor (of each element of a mixed collection).
    private func stepType(_ walk: inout Walk, offset: Int, path: QueryKeyPath) throws {
        if case .collection(let owner, let p) = walk.cursor, p.type == .mixed {
            walk.cursor = try expand(&walk, owner: owner, property: p, text: path.text, offset: offset)
        }
        guard case .value(let v) = walk.cursor, v.type == .mixed, let tag = v.tag else {
            throw fail(offset, "'@type' can only follow a mixed property")
        }
        walk.cursor = .value(
            QueryScalar(
                sql: "COALESCE(\(tag), 0)", tag: nil, type: .typeName, nullable: false,
                isColumn: false, text: path.text, depth: v.depth + 1))
    }

    /// The element value where the walk ended: a value, a link's key, or an object's own key.
    private func endValue(_ walk: inout Walk, path: QueryKeyPath) throws -> QueryScalar {
        let text = path.text
        switch walk.cursor {
        case .object(let scope):
            return QueryScalar(
                sql: SQLFragment.raw("\(scope.alias).\"_key\""), tag: nil, type: .link(scope.className),
                nullable: false, isColumn: false, text: text)
        case .link(let key, let target, let isColumn, let depth):
            return QueryScalar(
                sql: key, tag: nil, type: .link(target.className), nullable: true, isColumn: isColumn,
                text: text, depth: depth)
        case .value(let v):
            return v
        case .collection(let owner, let p):
            walk.cursor = try expand(&walk, owner: owner, property: p, text: text, offset: path.offset)
            switch walk.cursor {
            case .value(let v): return v
            case .link(let key, let target, _, _):
                return QueryScalar(
                    sql: key, tag: nil, type: .link(target.className), nullable: true, isColumn: false,
                    text: text)
            default: throw fail(path.offset, "internal error resolving '\(text)'")
            }
        case .backlinks(let target, let source, let q):
            switch expandBacklinks(&walk, target: target, source: source, property: q) {
            case .object(let s):
                return QueryScalar(
                    sql: SQLFragment.raw("\(s.alias).\"_key\""), tag: nil, type: .link(s.className),
                    nullable: false, isColumn: false, text: text)
            case .link(let key, let t, _, _):
                return QueryScalar(
                    sql: key, tag: nil, type: .link(t.className), nullable: false, isColumn: false,
                    text: text)
            default: throw fail(path.offset, "internal error resolving '\(text)'")
            }
        case .allBacklinks:
            throw fail(path.offset, "'@links' on its own must be followed by '.@count'")
        }
    }

    /// Puts an element computed at the end of the hops back in terms of the query row.
    private func wrap(_ walk: Walk, element: QueryScalar, text: String, offset: Int) -> QueryOperand {
        guard let (from, correlation) = chain(walk.hops) else { return .scalar(element) }
        if walk.hops.contains(where: \.toMany) {
            return .multi(
                QueryMulti(
                    from: from, correlation: correlation, element: element,
                    order: walk.hops.compactMap { $0.toMany ? $0.order : nil }, text: text, offset: offset,
                    isValueCollection: walk.endsInValues), nil)
        }
        func sub(_ expr: SQLFragment) -> SQLFragment {
            let s: SQLFragment = "(SELECT \(expr) FROM \(from) WHERE \(correlation))"
            if let empty = walk.emptyValue { return "COALESCE(\(s), \(raw: empty))" }
            return s
        }
        return .scalar(
            QueryScalar(
                sql: sub(element.sql), tag: element.tag.map(sub), type: element.type, nullable: true,
                isColumn: false, text: text, depth: element.depth + 2 * walk.hops.count))
    }

    /// The hops as one FROM clause, and the condition tying its first table to the row (nil: no hops).
    private func chain(_ hops: [Hop]) -> (from: SQLFragment, correlation: SQLFragment)? {
        let items = hops.flatMap(\.items)
        guard let first = items.first else { return nil }
        var from = SQLFragment.raw("\(first.table) AS \(first.alias)")
        for item in items.dropFirst() {
            from = from + SQLFragment.raw(" JOIN \(item.table) AS \(item.alias) ON ") + item.on
        }
        return (from, first.on)
    }

    /// `@links.@count` after a to-many hop is one number per row, the sum of each linked object's
    /// backlinks (realm-core's `BacklinkCount` over a link map): `items.@links.@count == 21`.
    private func sumOverChain(_ walk: inout Walk, text: String) {
        guard case .value(let v) = walk.cursor, let (from, correlation) = chain(walk.hops) else { return }
        walk.hops = []
        walk.emptyValue = nil
        walk.cursor = .value(
            QueryScalar(
                sql: "COALESCE((SELECT SUM(\(v.sql)) FROM \(from) WHERE \(correlation)), 0)", tag: nil, type: .int,
                nullable: false, isColumn: false, text: text, depth: v.depth + 4))
    }

    private func notFollowable(_ cursor: Cursor, name: String, walked: String) -> String {
        switch cursor {
        case .value(let v):
            return
                "'\(walked.isEmpty ? v.text : walked)' is of type '\(v.type.name)' and has no property '\(name)'; only "
                + "links can be followed with '.'"
        case .collection(let owner, let p):
            return
                "Property '\(owner.className).\(p.name)' is a collection of '\(p.type.rawValue)' and has no property "
                + "'\(name)'"
        case .allBacklinks:
            return "'@links' on its own must be followed by '.@count'"
        default:
            return "can't follow '.\(name)' here"
        }
    }

    private func mapLookup(owner: Scope, property p: Property, key: String, text: String, offset: Int) throws -> Cursor
    {
        let table = sideTable(owner.objectSchema, p)
        func lookup(_ col: String) -> SQLFragment {
            "(SELECT \(raw: col) FROM \(raw: table) WHERE owner = \(raw: owner.alias).\"_key\" AND key = "
                + "\(SQLFragment.param(.text(key))))"
        }
        if p.type == .object {
            return .link(
                key: lookup("value"), target: try classSchema(p.objectClassName, offset: offset), isColumn: false,
                depth: 2)
        }
        return .value(
            QueryScalar(
                sql: lookup("value"), tag: p.type == .mixed ? lookup("value__t") : nil,
                type: QueryValueType(p.type, objectClassName: nil), nullable: true, isColumn: false, text: text,
                depth: 2))
    }

    private func listElement(owner: Scope, property p: Property, index: QueryIndex, text: String, offset: Int) throws
        -> Cursor
    {
        let table = sideTable(owner.objectSchema, p)
        let order: String
        let skip: Int
        switch index {
        case .first: (order, skip) = ("pos, \"_row\"", 0)
        case .last: (order, skip) = ("pos DESC, \"_row\" DESC", 0)
        case .position(let n): (order, skip) = ("pos, \"_row\"", n)
        }
        func element(_ col: String) -> SQLFragment {
            SQLFragment.raw(
                "(SELECT \(col) FROM \(table) WHERE owner = \(owner.alias).\"_key\" ORDER BY \(order) LIMIT 1 OFFSET "
                    + "\(skip))"
            )
        }
        if p.type == .object {
            return .link(
                key: element("value"), target: try classSchema(p.objectClassName, offset: offset), isColumn: false,
                depth: 2)
        }
        return .value(
            QueryScalar(
                sql: element("value"), tag: p.type == .mixed ? element("value__t") : nil,
                type: QueryValueType(p.type, objectClassName: nil), nullable: true, isColumn: false, text: text,
                depth: 2))
    }

    /// `@count` / `@size`: elements of a collection, links to an object, or length of a string.
    private func count(_ walk: inout Walk, text: String, offset: Int) throws -> QueryScalar {
        func int(_ sql: SQLFragment, depth: Int = 2) -> QueryScalar {
            QueryScalar(sql: sql, tag: nil, type: .int, nullable: false, isColumn: false, text: text, depth: depth)
        }
        switch walk.cursor {
        case .collection(let owner, let p):
            return int(
                "(SELECT COUNT(*) FROM \(raw: sideTable(owner.objectSchema, p)) WHERE owner = "
                    + "\(raw: owner.alias).\"_key\")"
            )
        case .backlinks(let target, let source, let q):
            return int(backlinkCount(target: target, source: source, property: q))
        case .allBacklinks(let target):
            var parts = [SQLFragment]()
            for source in schema.objectSchemas {
                for q in source.persistedProperties {
                    if q.type == .object && q.objectClassName == target.className {
                        parts.append(backlinkCount(target: target, source: source, property: q))
                    } else if q.type == .mixed {
                        let ref = SQLFragment.param(.text(target.className + ":"))
                        if q.collection == .none {
                            parts.append(
                                "(SELECT COUNT(*) FROM \(raw: StorageLayout.quotedTable(source.className)) WHERE "
                                    + "\(raw: StorageLayout.quote(StorageLayout.typeTagColumn(q.name))) = 9 AND "
                                    + "\(raw: StorageLayout.quote(q.name)) = \(ref) || \(raw: target.alias).\"_key\")"
                            )
                        } else {
                            parts.append(
                                "(SELECT COUNT(*) FROM \(raw: sideTable(source, q)) WHERE value__t = 9 AND value = "
                                    + "\(ref) || \(raw: target.alias).\"_key\")"
                            )
                        }
                    }
                }
            }
            if parts.isEmpty { return int("0", depth: 0) }
            return int("(\(SQLFragment.joined(parts, separator: " + ")))", depth: 3)
        case .link(let key, _, _, let depth):
            return int("(\(key) IS NOT NULL)", depth: depth + 1)
        case .value(let v):
            switch v.type {
            case .string, .data:
                return QueryScalar(
                    sql: "length(CAST(\(v.sql) AS BLOB))", tag: nil, type: .int, nullable: true, isColumn: false,
                    text: text, depth: v.depth + 2)
            case .mixed:
                let tag = v.tag ?? "0"
                return QueryScalar(
                    sql: "(CASE WHEN \(tag) IN (3, 4) THEN length(CAST(\(v.sql) AS BLOB)) END)", tag: nil, type: .int,
                    nullable: true, isColumn: false, text: text, depth: v.depth + 3)
            default:
                throw fail(
                    offset,
                    "'@count' / '@size' can only follow a collection, a link, a string or binary data; '\(v.text)' is "
                        + "of type '\(v.type.name)'"
                )
            }
        case .object:
            throw fail(offset, "'@count' / '@size' must follow a collection property")
        }
    }

    private func backlinkCount(target: Scope, source: ObjectSchema, property q: Property) -> SQLFragment {
        if q.collection == .none {
            return
                "(SELECT COUNT(*) FROM \(raw: StorageLayout.quotedTable(source.className)) WHERE "
                + "\(raw: StorageLayout.quote(q.name)) = \(raw: target.alias).\"_key\")"
        }
        return "(SELECT COUNT(*) FROM \(raw: sideTable(source, q)) WHERE value = \(raw: target.alias).\"_key\")"
    }

    /// What an aggregate runs over: its FROM clause and the values (or the objects, when
    /// `elementClass` is set: then `value` is their alias) it aggregates.
    private struct AggregateSource {
        var from: SQLFragment
        var valueType: PropertyType
        var value: String
        var tag: String?
        var elementClass: ObjectSchema?
    }

    /// `@sum`, `@avg`, `@min`, `@max` of a collection (of a property of its objects for links).
    private func aggregate(
        _ walk: inout Walk, _ op: QueryAggregate, property: String?, text: String,
        offset: Int
    ) throws -> (QueryScalar, String?) {
        var source = try aggregateSource(walk.cursor, op, offset: offset)
        if let elementClass = source.elementClass {
            try selectAggregateProperty(&source, of: elementClass, op, property: property, text: text, offset: offset)
        } else if let property {
            throw fail(offset, "'\(op.rawValue)' on a collection of values takes no property ('.\(property)')")
        }
        let (expr, type, empty) = try aggregateExpression(op, source, text: text, offset: offset)
        var sql: SQLFragment = "(SELECT \(raw: expr) FROM \(source.from))"
        if let empty { sql = "COALESCE(\(sql), \(raw: empty))" }
        let scalar = QueryScalar(
            sql: sql, tag: nil, type: type, nullable: empty == nil, isColumn: false, text: text,
            depth: 4)
        return (scalar, empty)
    }

    /// The rows of the collection (or backlinks) at the cursor.
    private func aggregateSource(_ cursor: Cursor, _ op: QueryAggregate, offset: Int) throws -> AggregateSource {
        let s = newAlias()
        switch cursor {
        case .collection(let owner, let p):
            let from: SQLFragment = "\(raw: sideTable(owner.objectSchema, p)) AS \(raw: s)"
            let correlation = "\(s).owner = \(owner.alias).\"_key\""
            if p.type == .object {
                let target = try classSchema(p.objectClassName, offset: offset)
                let a = newAlias()
                let join = " JOIN \(StorageLayout.quotedTable(target.className)) AS \(a) ON \(a).\"_key\" = \(s).value"
                return AggregateSource(
                    from: from + SQLFragment.raw(join + " WHERE \(correlation)"),
                    valueType: p.type, value: a, tag: nil, elementClass: target)
            }
            return AggregateSource(
                from: from + SQLFragment.raw(" WHERE \(correlation)"), valueType: p.type,
                value: "\(s).value", tag: p.type == .mixed ? "\(s).value__t" : nil, elementClass: nil)
        case .backlinks(let target, let source, let q):
            let sourceTable = StorageLayout.quotedTable(source.className)
            if q.collection == .none {
                let from: SQLFragment =
                    "\(raw: sourceTable) AS \(raw: s) WHERE \(raw: column(s, q.name)) = \(raw: target.alias).\"_key\""
                return AggregateSource(from: from, valueType: .object, value: s, tag: nil, elementClass: source)
            }
            let a = newAlias()
            let from: SQLFragment =
                "\(raw: sideTable(source, q)) AS \(raw: s) "
                + "JOIN \(raw: sourceTable) AS \(raw: a) ON \(raw: a).\"_key\" = \(raw: s).owner "
                + "WHERE \(raw: s).value = \(raw: target.alias).\"_key\""
            return AggregateSource(from: from, valueType: .object, value: a, tag: nil, elementClass: source)
        default:
            throw fail(
                offset,
                "'\(op.rawValue)' can only be used on a collection property "
                    + "('list.\(op.rawValue)' or 'links.\(op.rawValue).property')")
        }
    }

    /// For a collection of objects: aggregates `property` of each object instead.
    private func selectAggregateProperty(
        _ source: inout AggregateSource, of elementClass: ObjectSchema,
        _ op: QueryAggregate, property: String?, text: String, offset: Int
    ) throws {
        let className = elementClass.className
        guard let property else {
            throw fail(
                offset,
                "'\(op.rawValue)' on a collection of '\(className)' objects needs a property: "
                    + "'\(text).\(op.rawValue).<property>'")
        }
        guard let p = elementClass[property], p.isPersisted else {
            throw fail(offset, "No property '\(property)' found on object type '\(className)'")
        }
        guard !p.isCollection, p.type != .object else {
            throw fail(
                offset,
                "'\(op.rawValue)' needs a property of single values, but '\(className).\(property)' "
                    + "is a \(p.isCollection ? "collection" : "link")")
        }
        let alias = source.value
        source.valueType = p.type
        source.value = column(alias, p.name)
        if p.type == .mixed { source.tag = column(alias, StorageLayout.typeTagColumn(p.name)) }
    }

    /// The SQL aggregate for `op` over values of the source's type, its result type, and its value
    /// over no rows when that is not NULL.
    private func aggregateExpression(
        _ op: QueryAggregate, _ source: AggregateSource, text: String,
        offset: Int
    ) throws -> (expr: String, type: QueryValueType, empty: String?) {
        let name: String
        switch op {
        case .sum: name = "sum"
        case .avg: name = "avg"
        case .min: name = "min"
        case .max: name = "max"
        }
        let value = source.value
        let valueType = source.valueType
        func unsupported() -> QuerySyntaxError {
            let verb = name == "avg" ? "average" : name == "sum" ? "sum" : "take the \(name)imum of"
            let typeName = QueryValueType(valueType, objectClassName: nil).name
            return fail(offset, "Cannot \(verb) values of type '\(typeName)' ('\(text)')")
        }
        switch valueType {
        case .int, .float, .double:
            let own = QueryValueType(valueType, objectClassName: nil)
            switch op {
            case .sum: return ("SUM(\(value))", valueType == .int ? .int : .double, "0")
            case .avg: return ("AVG(\(value))", .double, nil)
            case .min: return ("MIN(\(value))", own, nil)
            case .max: return ("MAX(\(value))", own, nil)
            }
        case .date:
            switch op {
            case .min: return ("MIN(\(value))", .date, nil)
            case .max: return ("MAX(\(value))", .date, nil)
            default: throw unsupported()
            }
        case .decimal128:
            return ("realm_dec_\(name)(\(value))", .decimal, op == .sum ? "'0'" : nil)
        case .mixed:
            return ("realm_mixed_\(name)(\(value), \(source.tag ?? "0"))", .decimal, op == .sum ? "'0'" : nil)
        default:
            throw unsupported()
        }
    }

    // MARK: - SUBQUERY

    private func subqueryCount(_ path: QueryKeyPath, variable: String, _ pred: QueryPredicate, offset: Int) throws
        -> QueryScalar
    {
        guard !variable.contains(".") else {
            throw fail(offset, "the SUBQUERY variable '\(variable)' can't contain '.'")
        }
        guard variables[variable] == nil else {
            throw fail(
                offset,
                "Unable to create a subquery expression with variable '\(variable)' since an identical variable "
                    + "already exists in this context"
            )
        }
        guard case .multi(let m, _) = try resolve(path), case .link(let className) = m.element.type,
            let target = schema[className]
        else {
            throw fail(
                path.offset,
                "A subquery must operate on a list of objects (a list, set or dictionary of links, or backlinks); "
                    + "'\(path.text)' is not one"
            )
        }
        // The variable is the object each chain row reaches.
        let alias = newAlias()
        variables[variable] = Scope(objectSchema: target, alias: alias)
        defer { variables[variable] = nil }
        let condition = try predicate(pred, negated: false)
        let sql: SQLFragment =
            "(SELECT COUNT(*) FROM \(m.from) JOIN \(raw: StorageLayout.quotedTable(className)) AS \(raw: alias) ON "
            + "\(raw: alias).\"_key\" = \(m.element.sql) WHERE \(m.correlation) AND (\(condition.sql)))"
        return QueryScalar(
            sql: sql, tag: nil, type: .int, nullable: false, isColumn: false,
            text: "SUBQUERY(\(path.text), \(variable), …).@count", depth: condition.depth + 8)
    }

    // MARK: - Arithmetic

    /// Arithmetic with a collection or a list literal on one side applies to each of its elements
    /// (realm-core: `ALL {8, 10} / 2 >= ANY items.price`, `items.price * 2 > items.price`): the
    /// result is many-valued again, keeping the side's quantifier.
    func arithmetic(_ op: QueryArithmeticOp, _ l: QueryOperand, _ r: QueryOperand, offset: Int) throws
        -> QueryOperand
    {
        switch (try manyValued(l, op), try manyValued(r, op)) {
        case (nil, nil):
            return .scalar(try arithmeticScalar(op, l, r, offset: offset))
        case (let (m, q)?, nil):
            var m = m
            m.element = try arithmeticScalar(op, .scalar(m.element), r, offset: offset)
            m.isValueCollection = false
            return .multi(m, q)
        case (nil, let (m, q)?):
            var m = m
            m.element = try arithmeticScalar(op, l, .scalar(m.element), offset: offset)
            m.isValueCollection = false
            return .multi(m, q)
        default:
            throw fail(offset, "arithmetic ('\(op.rawValue)') between two lists or collections is not supported")
        }
    }

    /// A collection, or a list literal as a chain over its values (`VALUES (?), (?)`), for arithmetic.
    private func manyValued(_ o: QueryOperand, _ op: QueryArithmeticOp) throws -> (QueryMulti, QueryQuantifier?)? {
        switch o {
        case .multi(let m, let q): return (m, q)
        case .list(let items, let q, let offset, let text):
            let a = newAlias()
            var type = QueryValueType.int
            var rows = [SQLFragment]()
            for c in items {
                switch c.value {
                case .int(let i): rows.append("(\(SQLFragment.param(.integer(i))))")
                case .double(let d, _): rows.append("(\(SQLFragment.param(.real(d))))")
                case .float(let f): rows.append("(\(SQLFragment.param(.real(Double(f)))))")
                case .null: rows.append("(NULL)")
                default: throw fail(c.offset, "Cannot apply '\(op.rawValue)' to \(c.text) of type '\(c.typeName)'")
                }
                if case .int = c.value {} else if case .null = c.value {} else { type = .double }
            }
            let values: SQLFragment =
                rows.isEmpty ? "SELECT NULL AS column1 WHERE 0" : "VALUES " + SQLFragment.joined(rows, separator: ", ")
            let element = QueryScalar(
                sql: SQLFragment.raw("\(a).column1"), tag: nil, type: type, nullable: true, isColumn: false, text: text)
            let m = QueryMulti(
                from: "(\(values)) AS \(raw: a)", correlation: "1", element: element, order: [], text: text,
                offset: offset)
            return (m, q)
        default: return nil
        }
    }

    private func arithmeticScalar(_ op: QueryArithmeticOp, _ l: QueryOperand, _ r: QueryOperand, offset: Int) throws
        -> QueryScalar
    {
        let a = try arithmeticOperand(l, op, offset: offset)
        let b = try arithmeticOperand(r, op, offset: offset)
        let type: QueryValueType
        if a.type == .decimal || b.type == .decimal {
            type = .decimal
        } else if a.type == .double || b.type == .double {
            type = .double
        } else if a.type == .float || b.type == .float {
            type = .float
        } else {
            type = .int
        }
        let sql: SQLFragment
        if type == .decimal {
            // The operation codes of `realm_dec` (QueryRuntime.decimalArithmetic).
            let code: Int
            switch op {
            case .add: code = 1
            case .subtract: code = 2
            case .multiply: code = 3
            case .divide: code = 4
            }
            sql = "realm_dec(\(raw: String(code)), \(a.sql), \(b.sql))"
        } else if op == .divide {
            sql = "realm_div(\(a.sql), \(b.sql))"
        } else {
            sql = "(\(a.sql) \(raw: op.rawValue) \(b.sql))"
        }
        return QueryScalar(
            sql: sql, tag: nil, type: type == .float ? .double : type, nullable: true, isColumn: false,
            text: "\(a.text) \(op.rawValue) \(b.text)", depth: max(a.depth, b.depth) + 1)
    }

    /// One side of an arithmetic operation: a number (a mixed value counts when it holds one).
    private func arithmeticOperand(_ o: QueryOperand, _ op: QueryArithmeticOp, offset: Int) throws -> QueryScalar {
        switch o {
        case .scalar(let s):
            switch s.type {
            case .int, .float, .double, .decimal: return s
            case .mixed:
                let tag = s.tag ?? "0"
                return QueryScalar(
                    sql:
                        "(CASE WHEN \(tag) IN (1, 6, 7) THEN \(s.sql) WHEN \(tag) = 8 THEN CAST(\(s.sql) AS REAL) "
                        + "END)",
                    tag: nil, type: .double, nullable: true, isColumn: false, text: s.text, depth: s.depth + 2)
            default:
                throw fail(offset, "Cannot apply '\(op.rawValue)' to '\(s.text)' of type '\(s.type.name)'")
            }
        case .constant(let c):
            switch c.value {
            case .int(let i):
                return QueryScalar(
                    sql: .param(.integer(i)), tag: nil, type: .int, nullable: false, isColumn: false, text: c.text)
            case .double(let d, let literal):
                return QueryScalar(
                    sql: .param(.real(d)), tag: nil, type: .double, nullable: false, isColumn: false,
                    text: literal ?? c.text)
            case .float(let f):
                return QueryScalar(
                    sql: .param(.real(Double(f))), tag: nil, type: .float, nullable: false, isColumn: false,
                    text: c.text)
            case .decimal(let d):
                return QueryScalar(
                    sql: .param(.text(d.description)), tag: nil, type: .decimal, nullable: false, isColumn: false,
                    text: c.text)
            case .null:
                return QueryScalar(sql: "NULL", tag: nil, type: .int, nullable: true, isColumn: false, text: c.text)
            default: throw fail(c.offset, "Cannot apply '\(op.rawValue)' to \(c.text) of type '\(c.typeName)'")
            }
        case .multi(let m, _):
            throw fail(
                m.offset, "arithmetic on a collection ('\(m.text)') is not supported; use an aggregate such as @sum"
            )
        case .list(_, _, let o, _):
            throw fail(o, "arithmetic on a list is not supported")
        }
    }

    // MARK: - SORT / DISTINCT / LIMIT

    private func clauses(_ parsed: [ParsedClause]) throws -> [QueryDescriptor] {
        var out = [QueryDescriptor]()
        var lastWasSort = false
        for clause in parsed {
            switch clause {
            case .sort(let keys, _):
                let descriptors = try keys.map {
                    SortDescriptor(keyPath: try descriptorKeyPath($0.0, clause: "sort"), ascending: $0.ascending)
                }
                if lastWasSort, case .sort(let previous)? = out.last {
                    // Consecutive SORT clauses merge, the later keys first (realm-core's MergeMode::prepend).
                    out[out.count - 1] = .sort(descriptors + previous)
                } else {
                    out.append(.sort(descriptors))
                }
                lastWasSort = true
            case .distinct(let keys, _):
                out.append(.distinct(try keys.map { try descriptorKeyPath($0, clause: "distinct") }))
                lastWasSort = false
            case .limit(let n, _):
                out.append(.limit(n))
                lastWasSort = false
            }
        }
        return out
    }

    /// Checks a SORT / DISTINCT key path: properties through to-one links, ending in a single value.
    private func descriptorKeyPath(_ path: QueryKeyPath, clause: String) throws -> String {
        var current = root.objectSchema
        var names = [String]()
        if let v = path.variable { names.append(v) }
        for element in path.elements {
            guard case .property(let name, _) = element else {
                throw fail(
                    element.offset,
                    "Cannot \(clause) on key path '\(path.text)': only properties (through to-one links) can be used "
                        + "in '\(clause)' clauses"
                )
            }
            names.append(name)
        }
        for (i, name) in names.enumerated() {
            let offset = i < path.elements.count ? path.elements[min(i, path.elements.count - 1)].offset : path.offset
            guard let p = current[name], p.isPersisted else {
                throw fail(
                    offset,
                    "No property '\(name)' found on object type '\(current.className)' specified in '\(clause)' clause")
            }
            if i == names.count - 1 {
                guard !p.isCollection else {
                    throw fail(
                        offset,
                        "Cannot \(clause) on key path '\(path.text)': property '\(current.className).\(name)' is a "
                            + "collection"
                    )
                }
                guard p.type != .object else {
                    throw fail(
                        offset,
                        "Cannot \(clause) on key path '\(path.text)': property '\(current.className).\(name)' is a link"
                    )
                }
            } else {
                guard p.type == .object, p.collection == .none, let next = p.objectClassName.flatMap({ schema[$0] })
                else {
                    throw fail(
                        offset,
                        "Cannot \(clause) on key path '\(path.text)': property '\(current.className).\(name)' is not a "
                            + "to-one link"
                    )
                }
                current = next
            }
        }
        return names.joined(separator: ".")
    }
}
