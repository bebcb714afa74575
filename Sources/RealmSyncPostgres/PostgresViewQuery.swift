import RealmSync

/// A bootstrap's query (`existingObjects(ofClass:matching:…)`) on PostgreSQL, evaluated in Swift over
/// the class's live objects rather than translated to SQL: the subset's comparisons are Realm's
/// (`ViewComparisonEvaluation`, mixed-type ordering, `[c]`, LIKE), which SQL would have to copy, and
/// SQLite's translation gets them by calling those same functions from SQL, which PostgreSQL cannot.
/// Running `ViewPredicate.matches` itself keeps the two stores identical by construction.
///
/// Candidates are read a page at a time with their top-level fields (two statements per page), in
/// the order of `existingObjects(ofClass:after:limit:)`, until `limit` objects match.
struct PostgresViewQuery {
    let transaction: PostgresSyncStoreTransaction
    let className: String
    /// The default of each field (`StoreFieldDefaults`): a field never written reads as it, as in SQLite.
    let defaults: [String: SyncValue]

    /// Objects read per page: enough to keep round trips few, small enough for a selective query.
    static let pageSize = 500

    func objects(matching predicate: ViewPredicate, user: String, after cursor: UInt64, limit: Int) throws
        -> [(cursor: UInt64, ref: ObjectRef)]
    {
        var result: [(cursor: UInt64, ref: ObjectRef)] = []
        var position = cursor
        while result.count < limit {
            let page = try candidates(after: position)
            guard let last = page.last else { break }
            let refs = Dictionary(page.map { ($0.id, $0.ref) }, uniquingKeysWith: { first, _ in first })
            let fields = try transaction.topLevelFields(ofIDs: refs)
            for candidate in page where result.count < limit {
                let values = fields[candidate.ref] ?? [:]
                let subject = ViewSubject(creator: candidate.creator) { name in
                    values[name] ?? defaults[name] ?? .null
                }
                if predicate.matches(subject, user: user) {
                    result.append((UInt64(bitPattern: candidate.id), candidate.ref))
                }
            }
            guard page.count == Self.pageSize else { break }
            position = UInt64(bitPattern: last.id)
        }
        return result
    }

    private func candidates(after cursor: UInt64) throws -> [(id: Int64, ref: ObjectRef, creator: String)] {
        try transaction.select(
            "SELECT id, pk, creator FROM objects WHERE class = $1 AND live AND id > $2 ORDER BY id LIMIT $3",
            [.text(className), .u64(cursor), .int(Int64(Self.pageSize))], "reading the objects of \(className)"
        ).map { row in
            let (id, ref) = try row.objectInPage(ofClass: className)
            transaction.cache.ids.set(ref, id)
            return (id, ref, try row.text(2))
        }
    }
}
