import Foundation
import XCTest
@testable import RealmDatabase

final class QuerySmokeTests: XCTestCase {
    func testSmoke() throws {
        let realm = try QueryFixture.makeRealm()
        run([
            QueryCase("age > 29", ["Alice", "carol", "Émile", "dave"]),
            QueryCase("TRUEPREDICATE", ["Alice", "Bob", "carol", "Émile", "dave", "Zed"]),
            QueryCase("name BEGINSWITH[c] 'a'", ["Alice"]),
            QueryCase("ANY dogs.name == 'Fido'", ["Alice", "Émile"]),
            QueryCase("friend.name == 'Bob'", ["Alice"]),
            QueryCase("dogs.@count > 1", ["Alice", "Émile"]),
            QueryCase("SUBQUERY(dogs, $d, $d.age > 2).@count > 0", ["Alice", "carol", "Émile", "Zed"]),
        ], in: realm)
    }
}
