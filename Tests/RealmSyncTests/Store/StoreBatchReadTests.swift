import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync

/// The SQLite store's batched reads (what a bootstrap uses) answer as its one-object reads do.
final class StoreBatchReadTests: XCTestCase {
    /// 250 items (more than one statement's worth of objects, the last chunk short), some with an
    /// embedded object (whose inner paths are not top-level fields) and one erased.
    private func filledFixture() throws -> ServerFixture {
        let fixture = try ServerFixture()
        try fixture.clients(1)
        let instructions: [Instruction] = (Int64(1)...250).map { key in
            var fields = [SyncField("name", .string("item \(key)")), SyncField("count", .int(key))]
            if key % 3 == 0 {
                fields.append(
                    SyncField("spec", .embedded([SyncField("color", .string("red")), SyncField("size", .int(key))])))
            }
            return .create(item(key), fields: fields)
        }
        try fixture.integrate(changeset(1, 1, clock: serverTestNow - 100, instructions + [.erase(item(7))]))
        try fixture.integrate(
            changeset(
                1, 2, basedOn: 1, clock: serverTestNow - 50,
                [.set(item(9), path: ["spec", "color"], value: .string("blue"))]))
        return fixture
    }

    func testFieldsOfManyObjectsAreTheFieldsOfEachObject() throws {
        let fixture = try filledFixture()
        let refs = (1...260).reversed().map { item(Int64($0)) }  // 251…260 were never created
        let (batched, single) = try fixture.store.read { reader in
            (try reader.topLevelFields(ofObjects: refs), try refs.map { try reader.topLevelFields(of: $0) })
        }
        for (ref, fields) in zip(refs, single) {
            XCTAssertEqual(batched[ref] ?? [:], fields, "\(ref)")
        }
        XCTAssertEqual(batched[item(3)]?["count"], .int(3))
        XCTAssertEqual(batched[item(3)]?["name"], .string("item 3"))
        XCTAssertNotNil(batched[item(3)]?["spec"], "the embedded object is a top-level field")
        XCTAssertFalse(batched.values.contains { $0.keys.contains { $0.contains("color") } }, "inner paths are not")
        XCTAssertNil(batched[item(255)], "an object never created has no fields")
        XCTAssertEqual(Set(batched.keys).count, 249, "every created object but the erased one")
    }

    func testSnapshotsOfAPageAreTheSnapshotsOfEachObject() throws {
        let fixture = try filledFixture()
        let objectSchema = try XCTUnwrap(fixture.schema["Item"])
        let refs = (1...250).map { item(Int64($0)) }
        let (batched, single) = try fixture.store.read { reader in
            (
                try fixture.state.snapshots(of: refs, objectSchema, reader),
                try refs.map { try fixture.state.snapshot(of: $0, objectSchema, reader) }
            )
        }
        XCTAssertEqual(batched, single)
        XCTAssertEqual(batched.map(\.object), refs, "in the order asked")
    }
}
