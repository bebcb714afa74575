import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync

final class SyncPermissionsCompileTests: XCTestCase {
    private func compile(_ rules: SyncRules) throws -> SyncPermissions {
        try SyncPermissions.compile(rules, schema: ViewTestSchema.schema)
    }

    private func assertRefused(_ rules: SyncRules, _ message: String, line: UInt = #line) {
        XCTAssertThrowsError(try compile(rules), line: line) { error in
            XCTAssertEqual((error as? SyncError)?.code, .badQuery, line: line)
            XCTAssertEqual((error as? SyncError)?.message, message, line: line)
        }
    }

    func testRulesCompileWithUserAndConstants() throws {
        let rules = SyncRules(
            queryable: ["Dog": ["name", "age"]],
            permissions: [
                "Dog": .init(read: .always(true), write: .query("name == $user AND age > 1")),
                "Person": .init(read: .query("_id == $user"), write: .always(false)),
            ])
        let permissions = try compile(rules)
        XCTAssertEqual(permissions.queryable, ["Dog": ["_id", "name", "age"]])
        XCTAssertEqual(permissions.readRule("Dog"), .constant(true))
        XCTAssertEqual(
            permissions.writeRule("Dog"),
            .and([
                .compare(field: "name", .equal, .user, caseInsensitive: false),
                .compare(field: "age", .greater, .value(.int(1)), caseInsensitive: false),
            ]))
        XCTAssertEqual(permissions.readRule("Person"), .compare(field: "_id", .equal, .user, caseInsensitive: false))
        XCTAssertEqual(permissions.writeRule("Person"), .constant(false))
        XCTAssertNil(permissions.read["Collar"])
        XCTAssertEqual(permissions.readRule("Other"), .createdByUser)
    }

    func testRuleErrorsNameTheClassAndTheRule() {
        assertRefused(
            SyncRules(permissions: ["Dog": .init(read: .query("color == 'x'"), write: .always(true))]),
            "sync.permissions.Dog.read: Invalid query 'color == 'x'' at column 1: 'color' is not a queryable field of "
                + "'Dog' (queryable: _id)")
        assertRefused(
            SyncRules(
                queryable: ["Dog": ["name"]],
                permissions: ["Dog": .init(read: .always(true), write: .query("name == "))]),
            "sync.permissions.Dog.write: Invalid query 'name == ' at column 9: expected a value after '==', found end "
                + "of query")
        assertRefused(
            SyncRules(permissions: ["Cat": .init(read: .always(true), write: .always(true))]),
            "sync.permissions.Cat: the schema has no class 'Cat'")
        assertRefused(
            SyncRules(permissions: ["Collar": .init(read: .always(true), write: .always(true))]),
            "sync.permissions.Collar: class 'Collar' does not sync (it is embedded or has no primary key)")
        assertRefused(
            SyncRules(queryable: ["Note": ["text"]]),
            "sync.queryable.Note: class 'Note' does not sync (it is embedded or has no primary key)")
        assertRefused(SyncRules(queryable: ["Dog": ["fur"]]), "sync.queryable.Dog: class 'Dog' has no field 'fur'")
        assertRefused(
            SyncRules(queryable: ["Dog": ["toys"]]),
            "sync.queryable.Dog: 'toys' can't be queryable: list, set and map fields can't be queried")
        assertRefused(
            SyncRules(queryable: ["Dog": ["owner"]]),
            "sync.queryable.Dog: 'owner' can't be queryable: link fields can't be queried")
    }
}
