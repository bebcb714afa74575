import Foundation
import RealmDatabase
import Testing

@testable import RealmSync

/// The SQLite store's batched reads (what a bootstrap uses) answer as its one-object reads do.
@Suite struct StoreBatchReadTests {
    /// 250 items (more than one statement's worth of objects, the last chunk short), some with an
    /// embedded object (whose inner paths are not top-level fields) and one erased.
    private func filledFixture(on kind: StoreKind) throws -> ServerFixture {
        let fixture = try ServerFixture(on: kind)
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

    @Test(arguments: StoreKind.available)
    func testFieldsOfManyObjectsAreTheFieldsOfEachObject(on kind: StoreKind) throws {
        let fixture = try filledFixture(on: kind)
        let refs = (1...260).reversed().map { item(Int64($0)) }  // 251…260 were never created
        let (batched, single) = try fixture.store.read { reader in
            (try reader.topLevelFields(ofObjects: refs), try refs.map { try reader.topLevelFields(of: $0) })
        }
        for (ref, fields) in zip(refs, single) {
            #expect((batched[ref] ?? [:]) == fields, "\(ref)")
        }
        #expect(batched[item(3)]?["count"] == .int(3))
        #expect(batched[item(3)]?["name"] == .string("item 3"))
        #expect(batched[item(3)]?["spec"] != nil, "the embedded object is a top-level field")
        #expect(!(batched.values.contains { $0.keys.contains { $0.contains("color") } }), "inner paths are not")
        #expect(batched[item(255)] == nil, "an object never created has no fields")
        #expect(Set(batched.keys).count == 249, "every created object but the erased one")
    }

    @Test(arguments: StoreKind.available)
    func testSnapshotsOfAPageAreTheSnapshotsOfEachObject(on kind: StoreKind) throws {
        let fixture = try filledFixture(on: kind)
        let objectSchema = try #require(fixture.schema["Item"])
        let refs = (1...250).map { item(Int64($0)) }
        let (batched, single) = try fixture.store.read { reader in
            (
                try fixture.state.snapshots(of: refs, objectSchema, reader),
                try refs.map { try fixture.state.snapshot(of: $0, objectSchema, reader) }
            )
        }
        #expect(batched == single)
        #expect(batched.map(\.object) == refs, "in the order asked")
    }
}
