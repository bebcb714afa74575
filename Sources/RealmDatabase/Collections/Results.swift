import Foundation
import RealmValues

/// A live, lazily evaluated query over the objects of one class (RealmSwift's `Results`).
///
/// Every operation runs SQL: filtering, sorting, distinct and limits are translated, never done
/// in Swift memory. The keys of the current answer are cached until the realm changes.
public final class Results: Sequence {
    public let realm: Realm
    let info: ClassInfo
    enum Source {
        case table
        /// The objects of a collection of links, in its order.
        case collection(table: String, ownerKey: Int64, ordered: Bool)
    }
    let source: Source
    /// The collection's owner (for validity), when the source is a collection.
    let owner: DynamicObject?
    private(set) var predicates: [(sql: String, bindings: [SQLiteValue])] = []
    private(set) var descriptors: [QueryDescriptor] = []
    /// The Realm Query Language text of each filter, for `queryText`; nil once the results hold a
    /// condition no query text states (a collection's membership, internal SQL, an object argument).
    private var filterTexts: [String]? = []
    private var cachedKeys: [Int64]?
    private var cachedStamp = -1
    /// The subscription `subscribe` made or updated for these results, which `unsubscribe` removes
    /// (RLMResults' `associatedSubscriptionId`); nil when none did.
    public var associatedSubscription: SubscriptionIdentity?

    init(realm: Realm, info: ClassInfo, source: Source, owner: DynamicObject? = nil) {
        self.realm = realm
        self.info = info
        self.source = source
        self.owner = owner
        if case .collection = source { filterTexts = nil }
    }

    /// The class of the objects.
    public var className: String { info.className }
    public var objectSchema: ObjectSchema { info.objectSchema }
    public var isFrozen: Bool { realm.isFrozen }

    /// `text`: the query text of the added predicate (nil: none states it).
    private func derived(
        predicate: (String, [SQLiteValue])? = nil, text: String? = nil, descriptors extra: [QueryDescriptor] = []
    ) -> Results {
        let r = Results(realm: realm, info: info, source: source, owner: owner)
        r.predicates = predicates + (predicate.map { [$0] } ?? [])
        r.descriptors = descriptors + extra
        r.filterTexts = predicate == nil ? filterTexts : text.flatMap { t in filterTexts.map { $0 + [t] } }
        return r
    }

    /// Results with a raw SQL predicate over `t0` added (for backlinks and internal queries).
    func adding(sql: String, bindings: [SQLiteValue]) -> Results { derived(predicate: (sql, bindings)) }

    /// The objects as one Realm Query Language query on `className` (the filters joined with AND,
    /// `TRUEPREDICATE` for every object; `$n` arguments written in as literals), as a flexible-sync
    /// subscription states them; nil when no query text states them: the objects of a collection,
    /// or a filter with an object or a dictionary as an argument.
    public var queryText: String? {
        guard let texts = filterTexts else { return nil }
        switch texts.count {
        case 0: return "TRUEPREDICATE"
        case 1: return texts[0]
        default: return texts.map { "(\($0))" }.joined(separator: " AND ")
        }
    }

    // MARK: Shaping

    /// The objects matching a Realm Query Language predicate (`"age > $0 AND name BEGINSWITH[c] $1"`).
    public func filter(_ query: String, _ arguments: RealmValue...) throws -> Results {
        try filter(query, arguments: arguments)
    }

    public func filter(_ query: String, arguments: [RealmValue]) throws -> Results {
        let compiled = try QueryLanguage.compile(
            query, arguments: arguments, objectSchema: info.objectSchema, schema: realm.schema
        ) { [realm] object in
            guard let key = object.objectKey, let objectRealm = object.realm, objectRealm.isSameFile(as: realm) else {
                throw RealmError(.query, "Objects used as query arguments must be managed by this realm.")
            }
            return key
        }
        return derived(
            predicate: (compiled.predicateSQL, compiled.bindings),
            text: QueryTextArguments.substituting(query, arguments),
            descriptors: compiled.descriptors)
    }

    /// An alias of `filter`, as in the Lua API.
    public func `where`(_ query: String, _ arguments: RealmValue...) throws -> Results {
        try filter(query, arguments: arguments)
    }

    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) throws -> Results {
        try sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// Sorted by several keys; a later sort keeps the earlier order among ties (a stable re-sort).
    public func sorted(by keys: [SortDescriptor]) throws -> Results {
        for key in keys { _ = try KeyPathSQL.scalar(key.keyPath, in: info, realm: realm, clause: "sort") }
        return derived(descriptors: [.sort(keys)])
    }

    /// The first object of each distinct combination of the key paths' values.
    public func distinct(by keyPaths: [String]) throws -> Results {
        for keyPath in keyPaths { _ = try KeyPathSQL.scalar(keyPath, in: info, realm: realm, clause: "distinct") }
        return derived(descriptors: [.distinct(keyPaths)])
    }

    // MARK: SQL

    /// FROM, WHERE and bindings of the unordered answer, and the expressions of its natural order.
    private func base() throws -> (from: String, whereSQL: String, bindings: [SQLiteValue], order: [String]) {
        var conditions = [String]()
        var bindings = [SQLiteValue]()
        let from: String
        let order: [String]
        switch source {
        case .table:
            from = "FROM \(info.quotedTable) AS t0"
            order = ["t0.\"_key\""]
        case .collection(let table, let ownerKey, let ordered):
            if let owner, try owner.checkInvalidated() { throw RealmError.invalidated }
            from = "FROM \(table) AS c0 JOIN \(info.quotedTable) AS t0 ON t0.\"_key\" = c0.value"
            conditions.append("c0.owner = ?")
            bindings.append(.integer(ownerKey))
            order = ordered ? ["c0.pos", "c0.\"_row\""] : ["c0.\"_row\""]
        }
        for p in predicates {
            conditions.append("(\(p.sql))")
            bindings += p.bindings
        }
        return (from, conditions.isEmpty ? "1" : conditions.joined(separator: " AND "), bindings, order)
    }

    /// Whether the descriptors need the general (nested) form: any DISTINCT or LIMIT.
    private var needsPipeline: Bool {
        descriptors.contains { if case .sort = $0 { return false } else { return true } }
    }

    /// The SQL selecting `columns` of the answer's objects in order, with its bindings.
    /// `columns` refers to the row alias `t0`.
    func selectSQL(columns: String) throws -> (String, [SQLiteValue]) {
        let b = try base()
        if !needsPipeline {
            var ordering = b.order
            for case .sort(let keys) in descriptors {
                ordering =
                    try keys.map {
                        "\(try KeyPathSQL.scalar($0.keyPath, in: info, realm: realm, clause: "sort")) "
                            + ($0.ascending ? "ASC" : "DESC")
                    } + ordering
            }
            return (
                "SELECT \(columns) \(b.from) WHERE \(b.whereSQL) ORDER BY \(ordering.joined(separator: ", "))",
                b.bindings
            )
        }
        // General form: project the natural order and every key once, then apply each clause in order.
        var keyColumns = [String: String]()
        var projections = ["t0.\"_key\" AS k"]
        for (i, o) in b.order.enumerated() { projections.append("\(o) AS o\(i)") }
        func column(_ keyPath: String, _ clause: String) throws -> String {
            if let c = keyColumns[keyPath] { return c }
            let c = "c\(keyColumns.count)"
            projections.append("\(try KeyPathSQL.scalar(keyPath, in: info, realm: realm, clause: clause)) AS \(c)")
            keyColumns[keyPath] = c
            return c
        }
        var ordering = b.order.indices.map { "o\($0)" }
        var stages = [(String) throws -> String]()
        for (n, d) in descriptors.enumerated() {
            switch d {
            case .sort(let keys):
                let cols = try keys.map { "\(try column($0.keyPath, "sort")) \($0.ascending ? "ASC" : "DESC")" }
                ordering = cols + ordering
            case .distinct(let keyPaths):
                let cols = try keyPaths.map { try column($0, "distinct") }.joined(separator: ", ")
                let orderNow = ordering.joined(separator: ", ")
                let kept = try distinctKeeps(keyPaths, stage: n, projections: &projections)
                stages.append { inner in
                    "SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY \(cols) ORDER BY \(orderNow)) "
                        + "AS rn\(n) FROM (\(inner)) WHERE \(kept)) WHERE rn\(n) = 1"
                }
            case .limit(let count):
                let orderNow = ordering.joined(separator: ", ")
                stages.append { inner in "SELECT * FROM (\(inner)) ORDER BY \(orderNow) LIMIT \(Swift.max(0, count))" }
            }
        }
        var sql = "SELECT \(projections.joined(separator: ", ")) \(b.from) WHERE \(b.whereSQL)"
        for stage in stages { sql = try stage(sql) }
        let selected = columns == "t0.\"_key\"" ? "k" : columns
        if selected == "k" {
            return ("SELECT k FROM (\(sql)) ORDER BY \(ordering.joined(separator: ", "))", b.bindings)
        }
        return (
            "SELECT \(selected) FROM (\(sql)) AS p JOIN \(info.quotedTable) AS t0 ON t0.\"_key\" = p.k "
                + "ORDER BY \(ordering.map { "p." + $0 }.joined(separator: ", "))",
            b.bindings
        )
    }

    /// The condition on the rows a DISTINCT stage `n` keeps: realm-core's distinct drops an object
    /// whose key path meets a null link. Projects the columns the condition reads.
    private func distinctKeeps(_ keyPaths: [String], stage n: Int, projections: inout [String]) throws -> String {
        var present = ["1"]
        for (i, keyPath) in keyPaths.enumerated() {
            guard let condition = try KeyPathSQL.linksPresent(keyPath, in: info, realm: realm) else { continue }
            projections.append("(\(condition)) AS l\(n)_\(i)")
            present.append("l\(n)_\(i)")
        }
        return present.joined(separator: " AND ")
    }

    /// The keys of the answer, in order (cached while the realm is unchanged).
    func keys() throws -> [Int64] {
        let stamp = realm.readStamp(force: true)
        if let cachedKeys, cachedStamp == stamp { return cachedKeys }
        let (sql, bindings) = try selectSQL(columns: "t0.\"_key\"")
        var keys = [Int64]()
        try realm.connection.forEachRow(sql, bindings, cache: false) { keys.append($0.int64(at: 0)) }
        cachedKeys = keys
        cachedStamp = stamp
        return keys
    }

    // MARK: Reading

    /// The number of objects; a COUNT in SQL unless DISTINCT or LIMIT need the keys.
    /// On error reports it through `RealmDiagnostics` and answers 0; `countObjects()` throws.
    public var count: Int {
        reportingErrors("counting the results of '\(className)'", neutral: 0) { try countObjects() }
    }

    public func countObjects() throws -> Int {
        if needsPipeline { return try keys().count }
        if let cachedKeys, cachedStamp == realm.readStamp(force: true) { return cachedKeys.count }
        let b = try base()
        return Int(try realm.connection.scalarInt("SELECT count(*) \(b.from) WHERE \(b.whereSQL)", b.bindings) ?? 0)
    }

    public var isEmpty: Bool { count == 0 }

    public subscript(index: Int) -> DynamicObject {
        get throws {
            let keys = try keys()
            guard index >= 0, index < keys.count else {
                throw RealmError(.indexOutOfRange, "Index \(index) is out of bounds (must be less than \(keys.count)).")
            }
            return DynamicObject(realm: realm, info: info, key: keys[index])
        }
    }

    /// The first object, or nil. On error reports it through `RealmDiagnostics` and answers nil;
    /// `fetchFirst()` throws.
    public var first: DynamicObject? {
        reportingErrors("reading the results of '\(className)'", neutral: nil) { try fetchFirst() }
    }

    /// The last object, or nil; reports errors as `first` does. `fetchLast()` throws.
    public var last: DynamicObject? {
        reportingErrors("reading the results of '\(className)'", neutral: nil) { try fetchLast() }
    }

    public func fetchFirst() throws -> DynamicObject? {
        try keys().first.map { DynamicObject(realm: realm, info: info, key: $0) }
    }

    public func fetchLast() throws -> DynamicObject? {
        try keys().last.map { DynamicObject(realm: realm, info: info, key: $0) }
    }

    /// The position of an object in the results, or nil.
    public func index(of object: DynamicObject) -> Int? {
        guard let key = object.objectKey, object.className == className else { return nil }
        return reportingErrors("reading the results of '\(className)'", neutral: nil) {
            try keys().firstIndex(of: key)
        }
    }

    public func contains(_ object: DynamicObject) -> Bool { index(of: object) != nil }

    /// Calls `body` with each object, streaming rows from SQLite (memory stays flat). An object
    /// the body does not keep a strong reference to may be handed out again for the next row.
    public func forEach(_ body: (DynamicObject) throws -> Void) throws {
        if realm.isInWriteTransaction {
            // Writes during the loop must not disturb it: walk a snapshot of the keys.
            for key in try keys() { try body(DynamicObject(realm: realm, info: info, key: key)) }
            return
        }
        let (sql, bindings) = try selectSQL(columns: info.selectRowSQL)
        let statement = try realm.connection.prepare(sql)
        try statement.bind(bindings)
        // Notice commits from elsewhere now: the loop's snapshot may be newer than cached rows.
        _ = realm.readStamp(force: true)
        // The first step opens the read transaction; from then on the snapshot holds still.
        guard try statement.step() else { return }
        realm.streamingReads += 1
        let cursor = RowCursor(statement, realm: realm, info: info)
        defer {
            cursor.close()
            realm.streamingReads -= 1
        }
        var object = DynamicObject(realm: realm, info: info, key: statement.int64(at: 0), cursor: cursor)
        while true {
            try body(object)
            guard try cursor.advance() else { break }
            // An object the body did not keep is reused for the next row: one allocation per
            // loop instead of one per row.
            if isKnownUniquelyReferenced(&object) {
                object.moveToCursorRow(key: statement.int64(at: 0))
            } else {
                object = DynamicObject(realm: realm, info: info, key: statement.int64(at: 0), cursor: cursor)
            }
        }
    }

    /// The objects as they stand now, for a loop that writes: RealmSwift's `for x in results`
    /// walks a snapshot (`testEnumerateAndDeleteTableResults`), so deleting or appending inside
    /// the loop neither skips nor repeats. An object deleted meanwhile is handed out invalidated.
    public func snapshot() throws -> ResultsSnapshot {
        ResultsSnapshot(realm: realm, info: info, keys: try keys())
    }

    public func makeIterator() -> IndexingIterator<[DynamicObject]> {
        var all = [DynamicObject]()
        reportingErrors("reading the results of '\(className)'", neutral: ()) { try forEach { all.append($0) } }
        return all.makeIterator()
    }

    // MARK: Aggregates

    private func aggregateProperty(_ name: String, _ function: AggregateFunction) throws -> Property {
        let p = try info.property(name)
        // A list, set or map property is no single value: the error of a type that has no aggregates.
        try ValueAggregates.check(function, type: p.collection == .none ? p.type : .object, what: described(name))
        return p
    }

    private func described(_ name: String) -> String { "'\(className).\(name)'" }

    /// An SQL aggregate (`min`, `max`, `total`, `avg`) of an int, float, double or date column.
    private func sqlAggregate(_ function: String, _ p: Property) throws -> SQLiteValue? {
        try aggregateRow("\(function)(t0.\(info.quotedStorage(p)))", columns: 1).first
    }

    /// Steps the rows of `selectList` (over the row alias `t0`) for the answer's objects, only
    /// those meeting `filter` when one is given.
    private func forEachAggregateRow(
        _ selectList: String, filter: String? = nil, _ body: (Statement) throws -> Void
    ) throws {
        let sql: String
        let bindings: [SQLiteValue]
        let extra = filter.map { " AND (\($0))" } ?? ""
        if needsPipeline {
            let (keys, keyBindings) = try selectSQL(columns: "t0.\"_key\"")
            sql = "SELECT \(selectList) FROM \(info.quotedTable) AS t0 WHERE t0.\"_key\" IN (\(keys))\(extra)"
            bindings = keyBindings
        } else {
            let b = try base()
            sql = "SELECT \(selectList) \(b.from) WHERE \(filter == nil ? b.whereSQL : "(\(b.whereSQL))")\(extra)"
            bindings = b.bindings
        }
        try realm.connection.forEachRow(sql, bindings, body)
    }

    /// One row of aggregates (`selectList` over the row alias `t0`) of the answer's objects.
    private func aggregateRow(_ selectList: String, columns: Int32) throws -> [SQLiteValue] {
        var row = [SQLiteValue]()
        try forEachAggregateRow(selectList) { statement in row = (0..<columns).map { statement.value(at: $0) } }
        return row
    }

    /// The exact sum and the count of an int property's values. SQL sums the high and the low
    /// 32 bits of each value apart (neither sum can overflow below 2^31 rows), and Swift adds
    /// them in 128 bits: no value is rounded through a REAL, as `total()` or `avg()` would.
    private func integerSumAndCount(_ p: Property) throws -> (sum: Int128, count: Int128) {
        let column = "t0.\(info.quotedStorage(p))"
        let row = try aggregateRow(
            "sum(\(column) >> 32), sum(\(column) & 4294967295), count(\(column))", columns: 3)
        func int(_ i: Int) -> Int128 {
            guard i < row.count, case .integer(let v) = row[i] else { return 0 }
            return Int128(v)
        }
        return (int(0) * 4_294_967_296 + int(1), int(2))
    }

    /// The aggregates of a decimal or mixed property, computed in Swift over its stored values
    /// (nil for the other types, which SQL aggregates). SQLite's `total`/`avg` read a decimal's
    /// 16 bytes as 0 yet count it, and its `min`/`max` order a mixed column by storage class
    /// (strings and blobs above numbers), so these values are streamed through
    /// `ValueAggregates`: of a mixed column only the rows whose tag is a number are read.
    private func streamedAggregates(_ p: Property, for function: AggregateFunction) throws -> ValueAggregates? {
        let column = "t0.\(info.quotedStorage(p))"
        var aggregates = ValueAggregates(type: p.type, for: function)
        switch p.type {
        case .decimal128:
            try forEachAggregateRow(column, filter: "\(column) IS NOT NULL") { statement in
                aggregates.add(ValueCoding.decode(statement.value(at: 0), as: .decimal128))
            }
        case .mixed:
            let tag = "t0.\(info.quotedTypeTag(p))"
            let numbers = [MixedTag.int, .float, .double, .decimal128].map { String($0.rawValue) }
            try forEachAggregateRow("\(column), \(tag)", filter: "\(tag) IN (\(numbers.joined(separator: ", ")))") {
                aggregates.add(ValueCoding.decodeMixed($0.value(at: 0), tag: $0.int64(at: 1)))
            }
        default:
            return nil
        }
        return aggregates
    }

    /// The smallest value of a property; nil when there are no objects (or only nils).
    public func min(ofProperty name: String) throws -> RealmValue? { try extreme(.min, name) }

    /// The largest value of a property; nil when there are no objects (or only nils).
    public func max(ofProperty name: String) throws -> RealmValue? { try extreme(.max, name) }

    private func extreme(_ function: AggregateFunction, _ name: String) throws -> RealmValue? {
        let p = try aggregateProperty(name, function)
        if let streamed = try streamedAggregates(p, for: function) {
            return function == .min ? streamed.minimum : streamed.maximum
        }
        guard let v = try sqlAggregate(function.rawValue, p), v != .null else { return nil }
        return ValueCoding.decode(v, as: p.type)
    }

    /// The sum of a property; zero of its type when there are no objects.
    public func sum(ofProperty name: String) throws -> RealmValue {
        let p = try aggregateProperty(name, .sum)
        if let streamed = try streamedAggregates(p, for: .sum) { return try streamed.sum(what: described(name)) }
        if p.type == .int {
            return .int(try IntegerAggregates.checked(try integerSumAndCount(p).sum, of: described(name)))
        }
        let v = try sqlAggregate("total", p)
        switch (p.type, v) {
        case (.float, .real(let d)?): return .float(Float(d))
        case (_, .real(let d)?): return .double(d)
        default: return .double(0)
        }
    }

    /// The mean of a property (a double; a decimal for decimals); nil when there are no objects.
    public func average(ofProperty name: String) throws -> RealmValue? {
        let p = try aggregateProperty(name, .average)
        if let streamed = try streamedAggregates(p, for: .average) { return streamed.average }
        if p.type == .int {
            let (sum, count) = try integerSumAndCount(p)
            return IntegerAggregates.mean(sum: sum, count: count).map { .double($0) }
        }
        guard case .real(let d)? = try sqlAggregate("avg", p) else { return nil }
        return .double(d)
    }

    // MARK: Implicit writes (SwiftUI's `$results.append` / `.remove`)

    /// Adds an object (or creates one from a value) to the realm; for results of a list, appends it
    /// to the list too. An implicit write: outside a write transaction it commits its own.
    @discardableResult
    public func append(_ value: RealmValue) throws -> DynamicObject {
        if realm.isFrozen { throw RealmError.frozenCollectionWrite }
        let value = try realm.thawArgument(value)
        return try realm.writeImplicitly {
            let object: DynamicObject
            if case .object(let o) = value {
                try realm.add(o)
                guard let key = o.objectKey else { throw RealmError.invalidated }
                object = DynamicObject(realm: realm, info: info, key: key)
            } else {
                object = try realm.create(className, value: value)
            }
            if case .collection = source, let owner, let property = listProperty {
                try RealmCollectionStorage(realm: realm, owner: owner, property: property).append(.object(object))
            }
            return object
        }
    }

    public func append(_ object: DynamicObject) throws { _ = try append(.object(object)) }

    private var listProperty: Property? {
        guard case .collection(let table, _, _) = source, let owner, let info = owner.managed?.info else { return nil }
        return info.objectSchema.properties.first { $0.isCollection && info.quotedStorage($0) == table }
    }

    /// Deletes an object if these results contain it. An implicit write.
    public func remove(_ object: DynamicObject) throws {
        if realm.isFrozen { throw RealmError.frozenCollectionWrite }
        guard object.isManaged else { throw RealmError.deleteFromAnotherRealm }
        guard let live = object.isFrozen ? try object.thaw() : object, contains(live) else { return }
        try realm.writeImplicitly { try realm.delete(live) }
    }

    /// Deletes the object at an index. An implicit write.
    public func remove(at index: Int) throws {
        try remove(atOffsets: [index])
    }

    /// Deletes the objects at several indexes (as SwiftUI's `onDelete`). An implicit write.
    public func remove(atOffsets offsets: [Int]) throws {
        if realm.isFrozen { throw RealmError.frozenCollectionWrite }
        let keys = try keys()
        for i in offsets where i < 0 || i >= keys.count {
            throw RealmError(.indexOutOfRange, "Index \(i) is out of bounds (must be less than \(keys.count)).")
        }
        try realm.writeImplicitly {
            for i in offsets { try realm.rows.deleteObject(info, key: keys[i]) }
        }
    }

    // MARK: Frozen

    public func freeze() throws -> Results {
        if realm.isFrozen { return self }
        let frozen = try realm.freeze()
        return try rebased(on: frozen)
    }

    public func thaw() throws -> Results {
        if !realm.isFrozen { return self }
        return try rebased(on: try realm.thaw())
    }

    private func rebased(on other: Realm) throws -> Results {
        var newOwner: DynamicObject?
        if let owner, let key = owner.objectKey {
            newOwner = DynamicObject(realm: other, info: try other.classInfo(owner.className), key: key)
        }
        let r = Results(realm: other, info: try other.classInfo(className), source: source, owner: newOwner)
        r.predicates = predicates
        r.descriptors = descriptors
        r.filterTexts = filterTexts
        return r
    }
}

/// The keys of some results at one moment; each object is made when it is read.
public struct ResultsSnapshot {
    let realm: Realm
    let info: ClassInfo
    let keys: [Int64]

    public var count: Int { keys.count }
    /// The object at `index`; nil past the end.
    public subscript(index: Int) -> DynamicObject? {
        keys.indices.contains(index) ? DynamicObject(realm: realm, info: info, key: keys[index]) : nil
    }
}
