import Foundation
import RealmDatabase

/// `query_list`: `ANY dogs.age > 10` over 100,000 people with 10 dogs each (1,000,000 dogs and
/// list entries): a count, then the keys of the matches. The fixture's dogs are 0–11 years old, so
/// each dog matches with a chance of 1 in 12 and about 58% of the people match: the SQL must look
/// at several list entries per person, not stop at the first.
///
/// The hand-written SQL is an EXISTS over the list table joined to the dogs:
/// `WHERE EXISTS (SELECT 1 FROM list_Person_dogs l JOIN class_Dog d ON d._key = l.value
///  WHERE l.owner = p._key AND d.age > 10)`.
struct QueryList: Workload {
    let name = "query_list"
    let target = 1.5
    static let query = "ANY dogs.age > 10"
    static let whereSQL = """
        WHERE EXISTS (SELECT 1 FROM "list_Person_dogs" AS l JOIN "class_Dog" AS d ON d."_key" = l.value \
        WHERE l.owner = p."_key" AND d."age" > 10)
        """

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        try QuerySupport.probe(context, className: "Person", query: QueryList.query)
        let people = context.scaled(100_000)
        return [
            QuerySupport.comparison(
                name: name, target: target, size: people,
                url: try Fixtures.people(context, people: people, dogsEach: 10),
                schema: BenchSchema.schema(), className: "Person", query: QueryList.query,
                countSQL: "SELECT count(*) FROM \"class_Person\" AS p \(QueryList.whereSQL)",
                keysSQL: "SELECT p.\"_key\" FROM \"class_Person\" AS p \(QueryList.whereSQL) ORDER BY p.\"_key\"")
        ]
    }
}
