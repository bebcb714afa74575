import Foundation
import RealmDatabase

/// `query_count`: `age > 5 AND name BEGINSWITH 'B'` over 1,000,000 dogs: a count, then the keys
/// of the matches; once with `age` unindexed (`query_count/plain`) and once indexed
/// (`query_count/indexed`, a copy of the same file).
///
/// The hand-written SQL uses GLOB for the case-sensitive prefix test, as one would by hand:
/// `WHERE age > 5 AND name GLOB 'B*'`.
struct QueryCount: Workload {
    let name = "query_count"
    let target = 1.2
    static let query = "age > 5 AND name BEGINSWITH 'B'"
    static let whereSQL = "WHERE \"age\" > 5 AND \"name\" GLOB 'B*'"

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        try QuerySupport.probe(context, className: "Dog", query: QueryCount.query)
        let n = context.scaled(1_000_000)
        return try [false, true].map { indexed in
            QuerySupport.comparison(
                name: name + (indexed ? "/indexed" : "/plain"), target: target, size: n,
                url: try Fixtures.dogs(context, count: n, indexedAge: indexed),
                schema: BenchSchema.schema(indexedAge: indexed), className: "Dog", query: QueryCount.query,
                countSQL: "SELECT count(*) FROM \"class_Dog\" \(QueryCount.whereSQL)",
                keysSQL: "SELECT \"_key\" FROM \"class_Dog\" \(QueryCount.whereSQL) ORDER BY \"_key\"")
        }
    }
}
