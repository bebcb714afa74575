import Foundation
import XCTest

@testable import RealmDatabase

final class SubscriptionTests: RealmTestCase {
    private func seedsInitialSubscriptions(_ subs: MutableSubscriptionSet) throws {
        if subs.first(named: "people") == nil {
            try subs.append(QuerySubscription(className: "Person", name: "people"))
        }
        if subs.first(named: "dogs") == nil { try subs.append(QuerySubscription(className: "Dog", name: "dogs")) }
    }

    func testInitialSubscriptionsRunWhenTheFileIsCreated() throws {
        var config = doggoConfig()
        var runs = 0
        config.initialSubscriptions = { subs in
            runs += 1
            try self.seedsInitialSubscriptions(subs)
        }
        do {
            let realm = try Realm(configuration: config)
            let subs = try realm.subscriptions
            XCTAssertEqual(subs.count, 2)
            XCTAssertEqual(subs.first(named: "people")?.objectClassName, "Person")
            XCTAssertEqual(subs.first(named: "dogs")?.queryString, "TRUEPREDICATE")
            XCTAssertEqual(subs.state, .complete)
        }
        _ = try Realm(configuration: config)
        XCTAssertEqual(runs, 1, "initialSubscriptions runs only when the file is created")
        config.rerunOnOpen = true
        let realm = try Realm(configuration: config)
        XCTAssertEqual(runs, 2)
        XCTAssertEqual(try realm.subscriptions.count, 2, "the seeds' check keeps a rerun idempotent")
    }

    func testDuplicateNameIsAnErrorAndUpdateIsAtomic() throws {
        let realm = try Realm(configuration: doggoConfig())
        try realm.subscriptions.update {
            try $0.append(QuerySubscription(className: "Dog", name: "dogs", query: "name == 'Rex'"))
        }
        let before = try realm.subscriptions
        XCTAssertThrowsError(
            try realm.subscriptions.update { subs in
                try subs.append(QuerySubscription(className: "Person", name: "people"))
                try subs.append(QuerySubscription(className: "Dog", name: "dogs"))
            }
        ) { error in
            XCTAssertEqual(
                (error as? RealmError)?.message,
                "A subscription named 'dogs' already exists. "
                    + "If you meant to update the existing subscription please use the `update` method."
            )
        }
        let after = try realm.subscriptions
        XCTAssertEqual(after.count, 1, "a failed update leaves the set as it was")
        XCTAssertNil(after.first(named: "people"))
        XCTAssertEqual(after.version, before.version)
    }

    func testUnnamedSubscriptionsDeduplicateAndRemoval() throws {
        let realm = try Realm(configuration: doggoConfig())
        let old = try realm.subscriptions
        try realm.subscriptions.update { subs in
            try subs.append(QuerySubscription(className: "Dog", query: "name == 'Rex'"))
            try subs.append(QuerySubscription(className: "Dog", query: "name == 'Rex'"))
            try subs.append(QuerySubscription(className: "Person", name: "people"))
        }
        XCTAssertEqual(old.state, .superseded)
        let subs = try realm.subscriptions
        XCTAssertEqual(subs.count, 2)
        XCTAssertNotNil(subs.first(ofType: "Dog", where: "name == 'Rex'"))
        try realm.subscriptions.update { try $0.removeAll(ofType: "Dog") }
        XCTAssertEqual(try realm.subscriptions.count, 1)
        try realm.subscriptions.update { try $0.remove(named: "people") }
        XCTAssertEqual(try realm.subscriptions.count, 0)
    }

    func testQueriesAreValidatedAgainstTheSchema() throws {
        let realm = try Realm(configuration: doggoConfig())
        XCTAssertThrowsError(try realm.subscriptions.update { try $0.append(QuerySubscription(className: "Cat")) })
        XCTAssertThrowsError(
            try realm.subscriptions.update { try $0.append(QuerySubscription(className: "Dog", query: "nope == 1")) })
        XCTAssertEqual(try realm.subscriptions.count, 0)
    }

    func testMutableSetCannotBeUsedAfterItsUpdate() throws {
        let realm = try Realm(configuration: doggoConfig())
        var escaped: MutableSubscriptionSet?
        try realm.subscriptions.update { escaped = $0 }
        XCTAssertThrowsError(try escaped?.append(QuerySubscription(className: "Dog"))) { error in
            XCTAssertEqual(
                (error as? RealmError)?.message,
                "Can only add, remove, or update subscriptions within a write subscription block.")
        }
    }

    func testUpdateInsideAWriteJoinsItAndRollsBackWithIt() throws {
        let realm = try Realm(configuration: doggoConfig())
        realm.beginWriteIgnoringErrors()
        try realm.subscriptions.update { try $0.append(QuerySubscription(className: "Dog", name: "dogs")) }
        XCTAssertEqual(try realm.subscriptions.count, 1)
        realm.cancelWrite()
        XCTAssertEqual(try realm.subscriptions.count, 0)
    }
}

extension Realm {
    func beginWriteIgnoringErrors() { try? beginWrite() }
}
