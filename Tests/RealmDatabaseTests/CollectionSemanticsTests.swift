import Foundation
import XCTest

@testable import RealmDatabase

/// Collections and subscriptions as Realm's own tests expect them (issue 13), at the Swift API.
final class CollectionSemanticsTests: RealmTestCase {
    /// Follows RealmSwift/Tests/RealmCollectionTypeTests.swift `testDistinctResultsUsingKeyPaths`:
    /// distinct through a null link drops the object; sorting keeps it.
    func testDistinctThroughANullLinkDropsTheObject() throws {
        let realm = try Realm(configuration: doggoConfig())
        try realm.write {
            let ball = try realm.create("DogToy", value: ["_id": .objectId(ObjectId.generate()), "name": "Ball"])
            for (name, toy) in [("Rex", RealmValue.object(ball)), ("Maui", .object(ball)), ("Fido", .null)] {
                try realm.create("Dog", value: ["_id": .uuid(UUID()), "name": .string(name), "favoriteToy": toy])
            }
        }
        let dogs = try realm.objects("Dog")
        XCTAssertEqual(try dogs.distinct(by: ["favoriteToy.name"]).countObjects(), 1)
        XCTAssertEqual(try dogs.distinct(by: ["name"]).countObjects(), 3)
        XCTAssertEqual(try dogs.sorted(byKeyPath: "favoriteToy.name").countObjects(), 3)
        XCTAssertEqual(try dogs.distinct(by: ["favoriteToy.name"]).snapshot()[0]?.value(forKey: "name"), "Rex")
    }

    /// Follows SwiftFlexibleSyncServerTests.swift `testAddSubscriptionsInDifferentBlocks`: the
    /// set updated is the set read afterwards; a failed update leaves it as it was.
    func testSubscriptionSetFollowsItsOwnUpdate() throws {
        let realm = try Realm(configuration: doggoConfig())
        let subs = try realm.subscriptions
        let start = subs.version
        try subs.update { try $0.append(QuerySubscription(className: "Dog", name: "dogs")) }
        try subs.update { try $0.append(QuerySubscription(className: "Person")) }
        XCTAssertEqual(subs.count, 2)
        XCTAssertEqual(subs.version, start + 2)
        XCTAssertEqual(subs.state, .complete)
        XCTAssertThrowsError(try subs.update { try $0.append(QuerySubscription(className: "Person", name: "dogs")) })
        XCTAssertEqual(subs.count, 2)
        XCTAssertEqual(subs.version, start + 2)
        XCTAssertEqual(subs.first(named: "dogs")?.objectClassName, "Dog")
    }
}
