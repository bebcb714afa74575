import Foundation
import XCTest

@testable import RealmDatabase

/// Notifications on a realm, on results (and lists) and on an object: the initial callback, the
/// changes of each commit as Realm reports them, key-path filters, and tokens.
final class NotificationTests: RealmTestCase {
    private var realm: Realm!

    override func setUpWithError() throws {
        try super.setUpWithError()
        realm = try Realm(configuration: itemConfig())
    }

    override func tearDownWithError() throws {
        realm = nil
        try super.tearDownWithError()
    }

    /// One delivered collection change, with the results' keys at delivery.
    private struct Update: Equatable {
        var deletions: [Int], insertions: [Int], modifications: [Int]
    }

    /// Observes `results`, recording the initial count and every update.
    private final class Recorder {
        var initial: [Int] = []
        var updates: [Update] = []
        var token: NotificationToken?
    }

    private func record(_ results: Results, keyPaths: [String]? = nil) throws -> Recorder {
        let recorder = Recorder()
        recorder.token = try results.observe(keyPaths: keyPaths) { [unowned recorder] change in
            switch change {
            case .initial(let r): recorder.initial.append(r.count)
            case .update(_, let deletions, let insertions, let modifications):
                recorder.updates.append(
                    Update(deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let e): XCTFail("\(e)")
            }
        }
        return recorder
    }

    private func item(_ id: Int64) throws -> DynamicObject {
        try XCTUnwrap(try realm.object(ofType: "Item", forPrimaryKey: .int(id)))
    }

    private func seed(_ ids: [Int64]) throws {
        try realm.write {
            for id in ids {
                try realm.create("Item", value: ["id": .int(id), "name": .string("n\(id)"), "score": .int(id)])
            }
        }
    }

    // MARK: Realm

    func testRealmNotificationAfterEachCommit() throws {
        var calls = 0
        let token = try realm.observe { notification, r in
            if case .didChange = notification { calls += 1 }
            XCTAssertTrue(r === self.realm)
        }
        try realm.write { try realm.create("Item", value: ["id": 1]) }
        XCTAssertEqual(calls, 1)
        try realm.objects("Item").append(["id": 2])
        XCTAssertEqual(calls, 2, "implicit writes notify too")
        try realm.beginWrite()
        try realm.create("Item", value: ["id": 3])
        realm.cancelWrite()
        XCTAssertEqual(calls, 2, "a cancelled write notifies nothing")
        token.invalidate()
        try realm.write { try realm.create("Item", value: ["id": 4]) }
        XCTAssertEqual(calls, 2)
    }

    // MARK: Results

    func testResultsInitialThenInsertions() throws {
        try seed([1, 2])
        let recorder = try record(try realm.objects("Item"))
        XCTAssertEqual(recorder.initial, [2], "the initial callback comes at once, with the current results")
        XCTAssertEqual(recorder.updates, [])
        try seed([3, 4])
        XCTAssertEqual(recorder.updates, [Update(deletions: [], insertions: [2, 3], modifications: [])])
    }

    func testResultsDeletionsAreOldIndexesAndTheRestNewIndexes() throws {
        try seed([1, 2, 3, 4])
        let results = try realm.objects("Item").sorted(byKeyPath: "id")
        let recorder = try record(results)
        try realm.write {
            try realm.delete(try item(2))
            try realm.create("Item", value: ["id": 5, "score": 5])
            try item(3).setValue("changed", forKey: "name")
            try item(1).setValue("changed", forKey: "name")
        }
        // Old [1, 2, 3, 4] → new [1, 3, 4, 5].
        XCTAssertEqual(recorder.updates, [Update(deletions: [1], insertions: [3], modifications: [0, 1])])
        try realm.write {
            try realm.delete(try item(1))
            try realm.delete(try item(5))
        }
        // Old [1, 3, 4, 5] → new [3, 4].
        XCTAssertEqual(recorder.updates.last, Update(deletions: [0, 3], insertions: [], modifications: []))
    }

    func testResultsSkipCommitsThatDoNotChangeThem() throws {
        try seed([1])
        let recorder = try record(try realm.objects("Item"))
        try realm.write { try realm.create("Person", value: ["name": "p"]) }
        try realm.write {}
        XCTAssertEqual(recorder.updates, [])
        // An object entering or leaving a filtered result is an insertion or a deletion there.
        let filtered = try record(try realm.objects("Item").filter("name == $0", "x"))
        try realm.write { try item(1).setValue("x", forKey: "name") }
        XCTAssertEqual(filtered.updates, [Update(deletions: [], insertions: [0], modifications: [])])
        try realm.write { try item(1).setValue("y", forKey: "name") }
        XCTAssertEqual(filtered.updates.last, Update(deletions: [0], insertions: [], modifications: []))
        XCTAssertEqual(
            recorder.updates,
            [
                Update(deletions: [], insertions: [], modifications: [0]),
                Update(deletions: [], insertions: [], modifications: [0]),
            ])
    }

    func testAMoveIsADeletionAndAnInsertionOfTheMovedObject() throws {
        try seed([1, 2, 3])
        let recorder = try record(try realm.objects("Item").sorted(byKeyPath: "score"))
        try realm.write { try item(1).setValue(10, forKey: "score") }
        // Old [1, 2, 3] → new [2, 3, 1]: only item 1 moved.
        XCTAssertEqual(recorder.updates.last, Update(deletions: [0], insertions: [2], modifications: []))
        // A move together with an insertion and a modification: old [2, 3, 1] → new [1, 2, 4, 3].
        try realm.write {
            try item(1).setValue(0, forKey: "score")
            try realm.create("Item", value: ["id": 4, "score": 2])
            try item(2).setValue("changed", forKey: "name")
        }
        XCTAssertEqual(recorder.updates.last, Update(deletions: [2], insertions: [0, 2], modifications: [1]))
        XCTAssertEqual(try apply(recorder.updates.last!, to: [2, 3, 1], new: [1, 2, 4, 3]), [1, 2, 4, 3])
    }

    /// Applies an update as a table view would (deletions, then insertions) to check it is consistent.
    private func apply(_ update: Update, to old: [Int64], new: [Int64]) throws -> [Int64] {
        var rows = old
        for i in update.deletions.reversed() { rows.remove(at: i) }
        for i in update.insertions { rows.insert(new[i], at: i) }
        return rows
    }

    func testListReorderingWithDuplicates() throws {
        try seed([1, 2])
        let person = try realm.write { try realm.create("Person", value: ["name": "p"]) }
        let list = try person.dynamicList("items")
        try list.append(.object(try item(1)))
        try list.append(.object(try item(2)))
        try list.append(.object(try item(1)))
        let recorder = Recorder()
        recorder.token = try list.observe { [unowned recorder] change in
            if case .update(_, let d, let i, let m) = change {
                recorder.updates.append(Update(deletions: d, insertions: i, modifications: m))
            }
        }
        // [1, 2, 1] → [2, 1, 1]
        try realm.write { try list.move(from: 0, to: 2) }
        let update = try XCTUnwrap(recorder.updates.last)
        XCTAssertEqual(update.deletions.count, 1)
        XCTAssertEqual(update.insertions.count, 1)
        XCTAssertEqual(try apply(update, to: [1, 2, 1], new: [2, 1, 1]), [2, 1, 1])
        // Removing one of the duplicates is one deletion.
        try list.remove(at: 1)
        XCTAssertEqual(recorder.updates.last?.deletions.count, 1)
        XCTAssertEqual(recorder.updates.last?.insertions, [])
    }

    func testKeyPathsLimitWhatCountsAsAModification() throws {
        try seed([1, 2])
        let byName = try record(try realm.objects("Item"), keyPaths: ["name"])
        let all = try record(try realm.objects("Item"))
        try realm.write { try item(1).setValue(50, forKey: "score") }
        XCTAssertEqual(byName.updates, [], "a change to another property does not call back")
        XCTAssertEqual(all.updates, [Update(deletions: [], insertions: [], modifications: [0])])
        try realm.write { try item(2).setValue("renamed", forKey: "name") }
        XCTAssertEqual(byName.updates, [Update(deletions: [], insertions: [], modifications: [1])])
        // Insertions and deletions are always reported.
        try seed([3])
        XCTAssertEqual(byName.updates.last, Update(deletions: [], insertions: [2], modifications: []))
    }

    func testListNotifications() throws {
        try seed([1, 2, 3])
        let person = try realm.write { try realm.create("Person", value: ["name": "p"]) }
        let list = try person.dynamicList("items")
        let recorder = Recorder()
        recorder.token = try list.observe { [unowned recorder] change in
            switch change {
            case .initial(let r): recorder.initial.append(r.count)
            case .update(_, let d, let i, let m):
                recorder.updates.append(Update(deletions: d, insertions: i, modifications: m))
            case .error(let e): XCTFail("\(e)")
            }
        }
        XCTAssertEqual(recorder.initial, [0])
        try list.append(.object(try item(3)))
        try list.append(.object(try item(1)))
        XCTAssertEqual(
            recorder.updates,
            [
                Update(deletions: [], insertions: [0], modifications: []),
                Update(deletions: [], insertions: [1], modifications: []),
            ])
        try list.remove(at: 0)
        XCTAssertEqual(recorder.updates.last, Update(deletions: [0], insertions: [], modifications: []))
        try realm.write { try item(1).setValue("changed", forKey: "name") }
        XCTAssertEqual(recorder.updates.last, Update(deletions: [], insertions: [], modifications: [0]))
    }

    func testObservingInsideAWriteFails() throws {
        try realm.write {
            assertRealmError(
                try realm.objects("Item").observe { _ in },
                "Cannot register notification blocks from within write transactions.")
        }
        let item = try realm.write { try realm.create("Item", value: ["id": 1]) }
        try realm.write {
            assertRealmError(
                try item.observe { _ in }, "Cannot register notification blocks from within write transactions.")
        }
        assertRealmError(try DynamicObject(className: "Item").observe { _ in }, code: .notifications)
    }

    // MARK: Tokens

    func testInvalidatedTokenStopsDelivery() throws {
        let recorder = try record(try realm.objects("Item"))
        try seed([1])
        XCTAssertEqual(recorder.updates.count, 1)
        recorder.token?.invalidate()
        try seed([2])
        XCTAssertEqual(recorder.updates.count, 1)
        recorder.token?.invalidate()  // twice is harmless
    }

    func testReleasedTokenStopsDelivery() throws {
        var calls = 0
        var token: NotificationToken? = try realm.objects("Item").observe { change in
            if case .update = change { calls += 1 }
        }
        try seed([1])
        XCTAssertEqual(calls, 1)
        XCTAssertNotNil(token)
        token = nil
        try seed([2])
        XCTAssertEqual(calls, 1, "delivery lasts as long as the token is held")
    }

    // MARK: Objects

    func testObjectChangeCarriesNewValues() throws {
        try seed([1])
        let object = try item(1)
        var changes = [[PropertyChange]]()
        let token = try object.observe { change in
            if case .change(let o, let properties) = change {
                XCTAssertTrue(o.isSameObject(as: object))
                changes.append(properties)
            }
        }
        defer { token.invalidate() }
        try realm.write {
            try object.setValue("first", forKey: "name")
            try object.setValue("second", forKey: "name")
            try object.setValue(2.5, forKey: "weight")
        }
        XCTAssertEqual(changes.count, 1, "one callback per commit")
        let byName = Dictionary(uniqueKeysWithValues: changes[0].map { ($0.name, $0) })
        XCTAssertEqual(Set(byName.keys), ["name", "weight"])
        // Realm reports no old value for a local change (RealmSwift's
        // `testModifyObservedObjectLocally`; issue 13).
        XCTAssertNil(byName["name"]?.oldValue, "no old value for a change made locally")
        XCTAssertEqual(byName["name"]?.newValue, "second")
        XCTAssertNil(byName["weight"]?.oldValue)
        XCTAssertEqual(byName["weight"]?.newValue, 2.5)
        // A commit that does not touch the object does not call back.
        try seed([2])
        XCTAssertEqual(changes.count, 1)
    }

    func testObjectKeyPathsAndDeletion() throws {
        try seed([1])
        let object = try item(1)
        var names = [[String]]()
        var deleted = 0
        let token = try object.observe(keyPaths: ["score"]) { change in
            switch change {
            case .change(_, let properties): names.append(properties.map(\.name))
            case .deleted: deleted += 1
            case .error(let e): XCTFail("\(e)")
            }
        }
        defer { token.invalidate() }
        try realm.write { try object.setValue("x", forKey: "name") }
        XCTAssertEqual(names, [])
        try realm.write {
            try object.setValue("y", forKey: "name")
            try object.setValue(9, forKey: "score")
        }
        XCTAssertEqual(names, [["score"]])
        try realm.write { try realm.delete(object) }
        XCTAssertEqual(deleted, 1)
        try seed([1])
        XCTAssertEqual(deleted, 1, "nothing more after deletion, even for a new object with the same primary key")
        XCTAssertEqual(names.count, 1)
    }

    // MARK: Another instance

    func testCommitsOfAnotherInstanceAreDeliveredOnRefresh() throws {
        try seed([1])
        let recorder = try record(try realm.objects("Item"))
        let object = try item(1)
        var objectChanges = [[String]]()
        let token = try object.observe { change in
            if case .change(_, let properties) = change {
                objectChanges.append(properties.map(\.name))
                XCTAssertNil(properties.first?.oldValue, "old values are known only to the writing instance")
            }
        }
        defer { token.invalidate() }
        var realmCalls = 0
        let realmToken = try realm.observe { _, _ in realmCalls += 1 }
        defer { realmToken.invalidate() }

        let other = try Realm(configuration: itemConfig())
        try other.write {
            try other.create("Item", value: ["id": 2])
            try other.object(ofType: "Item", forPrimaryKey: 1)!.setValue("from other", forKey: "name")
        }
        XCTAssertEqual(recorder.updates, [], "delivery happens on this instance's own refresh")
        XCTAssertTrue(realm.refresh())
        XCTAssertEqual(recorder.updates, [Update(deletions: [], insertions: [1], modifications: [0])])
        XCTAssertEqual(objectChanges, [["name"]])
        XCTAssertEqual(realmCalls, 1)
        XCTAssertFalse(realm.refresh(), "nothing new")
        // Beginning a write refreshes first.
        try other.write { try other.create("Item", value: ["id": 3]) }
        try realm.write {}
        XCTAssertEqual(recorder.updates.count, 2)
    }
}
