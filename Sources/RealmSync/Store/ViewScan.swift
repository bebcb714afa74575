/// A bootstrap's query (`existingObjects(ofClass:matching:…)`) on every store: the class's live
/// objects read a page at a time, in the order of `existingObjects(ofClass:after:limit:)`, and
/// `ViewPredicate.matches` itself run on each, until `limit` objects match. One evaluation for both
/// stores and for routing, so a bootstrap and a routed change can never disagree: the subset's
/// comparisons are Realm's (`ViewComparisonEvaluation`: mixed-type ordering, `[c]`, LIKE), which a
/// translation to SQL would have to copy (PostgreSQL) or call back into (SQLite, whose translation
/// this replaced: measured in docs/SYNC.md "Views, routing and permissions").
///
/// Of each page, only the fields the predicate compares are read, one statement per chunk of
/// objects; none when it compares none (a `TRUEPREDICATE` subscription under a rule on the creator).
package struct ViewScan {
    /// A candidate: an existing object, its cursor and the user who created it.
    package typealias Candidate = (cursor: UInt64, ref: ObjectRef, creator: String)

    package let predicate: ViewPredicate
    package let user: String
    /// The default of each field (`StoreFieldDefaults`): a field never written reads as it.
    package let defaults: [String: SyncValue]

    /// Objects read per page: enough to keep statements few, small enough for a selective query.
    package static let pageSize = 500

    package init(predicate: ViewPredicate, user: String, defaults: [String: SyncValue]) {
        self.predicate = predicate
        self.user = user
        self.defaults = defaults
    }

    /// The objects after `cursor` that match, at most `limit`; `page(after, count)` reads the next
    /// candidates, `fields(objects, names)` the top-level fields `names` of candidates by row id (a
    /// store's cursor is its row id, which saves looking each object up).
    package func objects(
        after cursor: UInt64, limit: Int, page: (UInt64, Int) throws -> [Candidate],
        fields: ([Int64: ObjectRef], [String]) throws -> [ObjectRef: [String: SyncValue]]
    ) throws -> [(cursor: UInt64, ref: ObjectRef)] {
        let names = predicate.fieldNames.sorted()
        var result: [(cursor: UInt64, ref: ObjectRef)] = []
        var position = cursor
        while result.count < limit {
            let candidates = try page(position, Self.pageSize)
            guard let last = candidates.last else { break }
            var values: [ObjectRef: [String: SyncValue]] = [:]
            if !names.isEmpty {
                let objects = candidates.map { (Int64(bitPattern: $0.cursor), $0.ref) }
                values = try fields(Dictionary(objects, uniquingKeysWith: { first, _ in first }), names)
            }
            for candidate in candidates where result.count < limit {
                let objectValues = values[candidate.ref] ?? [:]
                let subject = ViewSubject(creator: candidate.creator) { name in
                    objectValues[name] ?? defaults[name] ?? .null
                }
                if predicate.matches(subject, user: user) { result.append((candidate.cursor, candidate.ref)) }
            }
            guard candidates.count == Self.pageSize else { break }
            position = last.cursor
        }
        return result
    }
}

extension ViewPredicate {
    /// The fields evaluating the predicate reads (none: it reads only the creator, or nothing).
    var fieldNames: Set<String> {
        switch self {
        case .constant, .createdByUser: []
        case .compare(let field, _, _, _): [field]
        case .not(let inner): inner.fieldNames
        case .and(let parts), .or(let parts): parts.reduce(into: []) { $0.formUnion($1.fieldNames) }
        }
    }
}
