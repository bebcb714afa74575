import Foundation
import XCTest

@testable import RealmDatabase

/// The SQL of common queries stays index-friendly: comparisons on indexed columns search the index.
final class QueryPlanTests: XCTestCase {
    func plan(_ realm: Realm, _ query: String, _ args: [RealmValue] = [], className: String = "Person") throws -> (
        String, String
    ) {
        let schema = QueryFixture.schema
        let compiled = try QueryLanguage.compile(
            query, arguments: args, objectSchema: schema[className]!, schema: schema
        ) { _ in 1 }
        var details = [String]()
        let table = StorageLayout.quotedTable(className)
        try realm.connection.forEachRow(
            "EXPLAIN QUERY PLAN SELECT t0.\"_key\" FROM \(table) AS t0 WHERE \(compiled.predicateSQL)",
            compiled.bindings, cache: false
        ) { row in
            details.append(row.string(at: 3))
        }
        return (details.joined(separator: " | "), compiled.predicateSQL)
    }

    func testIndexedComparisonsSearchTheIndex() throws {
        let realm = try QueryFixture.makeRealm()
        for query in [
            "name == 'Alice'", "age > 30", "age >= 18 AND age < 30", "age IN {18, 25}", "name BEGINSWITH 'Al'",
            "name == $0 OR name == 'Bob'", "age == 30 AND active == true",
        ] {
            let args: [RealmValue] = query.contains("$0") ? ["Alice"] : []
            let (p, sql) = try plan(realm, query, args)
            XCTAssertTrue(p.contains("USING INDEX") || p.contains("USING COVERING INDEX"), "\(query): \(p) — \(sql)")
        }
    }

    func testCollectionsAreCorrelatedLookups() throws {
        let realm = try QueryFixture.makeRealm()
        // Collections use the side tables' (owner, …) indexes and the linked rows' primary keys.
        let (p, sql) = try plan(realm, "ANY dogs.name == 'Rex'")
        XCTAssertTrue(p.contains("idx_list_Person_dogs") && p.contains("INTEGER PRIMARY KEY"), "\(p) — \(sql)")
        let (p2, sql2) = try plan(realm, "ANY tags == 'red'")
        XCTAssertTrue(p2.contains("idx_list_Person_tags"), "\(p2) — \(sql2)")
        let (p3, sql3) = try plan(realm, "walkers.@count > 1", className: "Dog")
        XCTAssertTrue(p3.contains("idx_list_Person_dogs_value"), "\(p3) — \(sql3)")
    }

    func testValuesAreBoundNotInterpolated() throws {
        let schema = QueryFixture.schema
        let compiled = try QueryLanguage.compile(
            "name == 'Robert\"); DROP TABLE x; --' AND age > 3 AND nick LIKE 'a*' AND balance > 1.5",
            arguments: [], objectSchema: schema["Person"]!, schema: schema
        ) { _ in 1 }
        XCTAssertFalse(compiled.predicateSQL.contains("Robert"))
        XCTAssertFalse(compiled.predicateSQL.contains("1.5"))
        XCTAssertEqual(compiled.bindings.count, compiled.predicateSQL.filter { $0 == "?" }.count)
    }
}
