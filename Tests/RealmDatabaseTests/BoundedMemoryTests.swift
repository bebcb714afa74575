import Foundation
import XCTest

@testable import RealmDatabase

/// A long-running process keeps no memory per commit or per file opened: an instance without
/// observers keeps no change sets, and the coordinator registry forgets a file with its last instance.
final class BoundedMemoryTests: RealmTestCase {
    private func add(_ realm: Realm, _ id: Int) throws {
        try realm.write { try realm.create("Item", value: ["id": .int(Int64(id)), "name": .string("n\(id)")]) }
    }

    func testAnInstanceWithoutObserversKeepsNoChangeSets() throws {
        let writer = try Realm(configuration: itemConfig())
        let reader = try Realm(configuration: itemConfig())
        for i in 0..<1000 { try add(writer, i) }
        XCTAssertEqual(reader.mailbox.pendingCount, 0, "an instance no one observes kept every commit's change set")
        // It still learns that something changed, and reads the latest state.
        XCTAssertTrue(reader.refresh())
        XCTAssertFalse(reader.refresh())
        XCTAssertEqual(try reader.objects("Item").countObjects(), 1000)
    }

    func testAnObservingInstanceStillReceivesEachCommit() throws {
        let writer = try Realm(configuration: itemConfig())
        let reader = try Realm(configuration: itemConfig())
        try add(writer, 0)
        var updates: [[Int]] = []
        let token = try reader.objects("Item").observe { change in
            if case .update(_, _, let insertions, _) = change { updates.append(insertions) }
        }
        try add(writer, 1)
        try add(writer, 2)
        XCTAssertEqual(reader.mailbox.pendingCount, 2)
        XCTAssertTrue(reader.refresh())
        XCTAssertEqual(updates, [[1, 2]])
        XCTAssertEqual(reader.mailbox.pendingCount, 0)
        // Once its last observer is gone it keeps nothing again.
        token.invalidate()
        try add(writer, 3)
        XCTAssertEqual(reader.mailbox.pendingCount, 0)
        XCTAssertTrue(reader.refresh())
        XCTAssertEqual(updates, [[1, 2]])
    }

    func testTheCoordinatorRegistryForgetsAFileWithItsLastInstance() throws {
        let before = FileCoordinator.registeredLocations
        var config = Realm.Configuration()
        config.schema = Schema([ObjectSchema(className: "Item", properties: [Property(name: "n", type: .int)])])
        for i in 0..<1000 {
            config.fileURL = fileURL("file\(i)")
            let realm = try Realm(configuration: config)
            try realm.write { _ = try realm.create("Item", value: ["n": .int(Int64(i))]) }
        }
        XCTAssertEqual(
            FileCoordinator.registeredLocations.subtracting(before), [],
            "files whose instances are all gone stay in the registry")
        // A frozen instance keeps the entry (its pinned version counts) after the live one is gone.
        config.fileURL = fileURL("frozen")
        var live: Realm? = try Realm(configuration: config)
        let frozen = try live?.freeze()
        live = nil
        XCTAssertEqual(FileCoordinator.registeredLocations.subtracting(before).count, 1)
        XCTAssertEqual(frozen?.coordinator.activeFrozenVersions, 1)
        withExtendedLifetime(frozen) {}
    }
}
