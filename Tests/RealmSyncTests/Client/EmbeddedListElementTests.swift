import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// Writes inside an element of a list of embedded objects travel as a `set` by a path through the
/// element (`ElementStep`), as Realm's paths step through a list: two devices writing different
/// fields of one element keep both; a new object in the element (a list set) beats a concurrent
/// write inside it, as a to-one embedded object's replacement does (docs/SYNC.md rule 3).
final class EmbeddedListElementTests: XCTestCase {
    private var folder: ClientTestFolder!
    private let wall = ManualWallClock.clientStart()

    override func setUpWithError() throws { folder = try ClientTestFolder() }
    override func tearDown() { folder = nil }

    private func address(_ city: String, _ zip: String) -> SyncValue {
        .embedded([SyncField("city", .string(city)), SyncField("zip", .string(zip))])
    }

    // MARK: The server's rule

    /// The server tests' schema with `parts`, a list of its embedded `Spec`.
    private var partsSchema: Schema {
        let item = serverTestSchema.objectSchemas[0]
        let parts = Property(name: "parts", type: .object, objectClassName: "Spec", collection: .list)
        return Schema(
            [ObjectSchema(className: "Item", properties: item.properties + [parts], primaryKey: "_id")]
                + serverTestSchema.objectSchemas.dropFirst())
    }

    private func spec(_ color: String, _ size: Int64) -> SyncValue {
        .embedded([SyncField("color", .string(color)), SyncField("size", .int(size))])
    }

    /// Item 1 with one element in `parts` (red, 1), integrated at server version 1.
    private func fixtureWithOnePart() throws -> (ServerFixture, ElementID) {
        let fixture = try ServerFixture(schema: partsSchema)
        try fixture.clients(2)
        let e = element(clock: 100, client: 1)
        try fixture.integrate(
            changeset(
                1, 1, clock: 100,
                [
                    .create(item(1), fields: []),
                    .listInsert(
                        item(1), field: "parts", element: e, position: .between(nil, nil), value: spec("red", 1)),
                ]))
        return (fixture, e)
    }

    func testConcurrentWritesToDifferentFieldsOfOneElementBothStay() throws {
        let (fixture, e) = try fixtureWithOnePart()
        let step = ElementStep.name(e)
        let result = try fixture.integrate(
            changeset(
                1, 2, basedOn: 1, clock: 300, [.set(item(1), path: ["parts", step, "color"], value: .string("blue"))]),
            changeset(2, 1, basedOn: 1, clock: 200, [.set(item(1), path: ["parts", step, "size"], value: .int(7))]))
        XCTAssertEqual(result.integrated.map(\.kept.instructions.count), [1, 1], "both kept")
        XCTAssertEqual(try fixture.field(item(1), "parts"), .list([spec("blue", 7)]))
        // The same field: the later clock wins, whatever the order of arrival.
        try fixture.integrate(
            changeset(
                2, 2, basedOn: 1, clock: 250, [.set(item(1), path: ["parts", step, "color"], value: .string("green"))]))
        XCTAssertEqual(try fixture.field(item(1), "parts"), .list([spec("blue", 7)]))
    }

    func testANewObjectInTheElementBeatsAConcurrentWriteInsideIt() throws {
        let (fixture, e) = try fixtureWithOnePart()
        let step = ElementStep.name(e)
        try fixture.integrate(
            changeset(
                2, 1, basedOn: 1, clock: 200, [.listSet(item(1), field: "parts", element: e, value: spec("teal", 2))]),
            changeset(
                1, 2, basedOn: 1, clock: 900, [.set(item(1), path: ["parts", step, "color"], value: .string("pink"))]))
        XCTAssertEqual(try fixture.field(item(1), "parts"), .list([spec("teal", 2)]), "the later clock lost")
        // A write inside made after seeing the new object is kept.
        try fixture.integrate(
            changeset(1, 3, basedOn: 3, clock: 950, [.set(item(1), path: ["parts", step, "size"], value: .int(5))]))
        XCTAssertEqual(try fixture.field(item(1), "parts"), .list([spec("teal", 5)]))
        // Once the element is erased, writes inside it find nothing.
        try fixture.integrate(
            changeset(2, 2, basedOn: 4, clock: 960, [.listErase(item(1), field: "parts", element: e)]),
            changeset(1, 4, basedOn: 4, clock: 970, [.set(item(1), path: ["parts", step, "size"], value: .int(6))]))
        XCTAssertEqual(try fixture.field(item(1), "parts"), .list([]))
    }

    func testAPathThroughAnElementMustNameAFieldOfAListOfEmbeddedObjects() throws {
        let (fixture, e) = try fixtureWithOnePart()
        let step = ElementStep.name(e)
        for (path, message) in [
            (["tags", step, "color"], "not a list of embedded objects"),
            (["parts", step], "names a whole list element"),
            (["parts", step, "weight"], "unknown field 'weight'"),
            // One element, one spelling: times are kept by the path's text.
            (["parts", "[0" + step.dropFirst(), "size"], "is a Spec[], not a single value"),
        ] {
            let result = try fixture.integrate(
                changeset(1, 2, basedOn: 1, clock: 300, [.set(item(1), path: path, value: .int(1))]))
            guard case .refused(let error)? = result.outcomes.first else {
                XCTFail("\(path) was not refused: \(result.outcomes)")
                continue
            }
            XCTAssertEqual(error.code, .badChangeset, "\(path)")
            XCTAssertTrue(error.message.contains(message), "\(path): \(error.message)")
        }
    }

    // MARK: Replicas through a server

    private func client(_ name: String) throws -> SyncClient {
        try SyncClient(configuration: folder.configuration(name), user: "u", wallClock: wall)
    }

    private func addresses(_ client: SyncClient) throws -> SyncValue? {
        try client.canonicalState().objects[ref("p")]?.first { $0.name == "addresses" }?.value
    }

    private func address(of client: SyncClient, _ index: Int) throws -> DynamicObject {
        guard case .object(let element) = try client.person("p").dynamicList("addresses")[index] else {
            throw SyncError(.otherError, "no address \(index)")
        }
        return element
    }

    /// A server with replicas a and b of one realm holding p with addresses [Oslo 1], b disconnected.
    private func twoReplicas() throws -> (SyncServer, InMemoryTransport, [SyncClient], (a: Int, b: Int)) {
        let store = try SQLiteSyncStore(
            path: folder.url.appendingPathComponent("server.sqlite").path, historySalt: 42,
            schema: ClientTestSchema.schema)
        let server = try SyncServer(store: store, schema: ClientTestSchema.schema, wallClock: wall) { 7 }
        let transport = InMemoryTransport(server: server) { 7 }
        let a = try client("a")
        let b = try client("b")
        let (ai, bi) = (transport.addClient(a), transport.addClient(b))
        _ = transport.connect(ai)
        _ = transport.connect(bi)
        try a.realm.write {
            _ = try a.realm.create("Person", value: ["id": "p", "addresses": [["city": "Oslo", "zip": "1"]]])
        }
        try transport.settle([ai, bi])
        transport.drop(bi)
        return (server, transport, [a, b], (ai, bi))
    }

    func testTwoDevicesWritingDifferentFieldsOfOneElementBothKeepTheirWrite() throws {
        let (server, transport, replicas, index) = try twoReplicas()
        let (a, b) = (replicas[0], replicas[1])
        wall.advance(5)
        try a.realm.write { try address(of: a, 0).setValue(.string("Bergen"), forKey: "city") }
        let recorded = try a.lastInstructions()
        guard recorded.count == 1, case .set(ref("p"), let path, .string("Bergen")) = recorded[0], path.count == 3,
            path[0] == "addresses", ElementStep.element(path[1]) != nil, path[2] == "city"
        else { return XCTFail("a write inside the element is a set through it: \(recorded)") }
        try transport.settle([index.a])
        wall.advance(5)
        try b.realm.write { try address(of: b, 0).setValue(.string("2"), forKey: "zip") }
        _ = transport.connect(index.b)
        try transport.settle([index.a, index.b])
        XCTAssertEqual(try addresses(a), .list([address("Bergen", "2")]))
        try assertReplicasEqualTheServer(server, [a, b])
        // A replica's own write is not sent back to it by the mirror: nothing left to upload.
        XCTAssertFalse(a.hasUnacknowledgedChanges)
        XCTAssertFalse(b.hasUnacknowledgedChanges)
    }

    func testANewObjectInAnElementBeatsAConcurrentWriteInsideItOnEveryReplica() throws {
        let (server, transport, replicas, index) = try twoReplicas()
        let (a, b) = (replicas[0], replicas[1])
        wall.advance(5)
        try a.realm.write {
            try a.person("p").dynamicList("addresses").set(.dictionary(["city": "Rome", "zip": "9"]), at: 0)
        }
        guard case .listSet(ref("p"), "addresses", _, address("Rome", "9"))? = try a.lastInstructions().first else {
            return XCTFail("a new object in the element is a list set: \(try a.lastInstructions())")
        }
        try transport.settle([index.a])
        // b, offline, writes inside the old object later by the clock: the new object still wins.
        wall.advance(50)
        try b.realm.write { try address(of: b, 0).setValue(.string("Milan"), forKey: "city") }
        _ = transport.connect(index.b)
        try transport.settle([index.a, index.b])
        XCTAssertEqual(try addresses(b), .list([address("Rome", "9")]))
        try assertReplicasEqualTheServer(server, [a, b])
        // Written after seeing it, a write inside the new object stands.
        try b.realm.write { try address(of: b, 0).setValue(.string("Turin"), forKey: "city") }
        try transport.settle([index.a, index.b])
        XCTAssertEqual(try addresses(a), .list([address("Turin", "9")]))
        try assertReplicasEqualTheServer(server, [a, b])
    }

    /// b, offline, puts a new object in the element; a puts one in later by the clock (it wins), then
    /// writes inside it. b's pending new object is dropped by the server: it must not hold back a's
    /// write inside on b (the merge simulation's seed 10553 kept "size" 4 on one replica, 2 on the
    /// server).
    func testAPendingNewObjectInAnElementThatLosesDoesNotHoldBackALaterWriteInsideIt() throws {
        let (server, transport, replicas, index) = try twoReplicas()
        let (a, b) = (replicas[0], replicas[1])
        wall.advance(5)
        try b.realm.write {
            try b.person("p").dynamicList("addresses").set(.dictionary(["city": "Paris", "zip": "5"]), at: 0)
        }
        wall.advance(5)
        try a.realm.write {
            try a.person("p").dynamicList("addresses").set(.dictionary(["city": "Rome", "zip": "9"]), at: 0)
        }
        try transport.settle([index.a])
        wall.advance(5)
        try a.realm.write { try address(of: a, 0).setValue(.string("Turin"), forKey: "city") }
        try transport.settle([index.a])
        _ = transport.connect(index.b)
        try transport.settle([index.a, index.b])
        XCTAssertEqual(try addresses(b), .list([address("Turin", "9")]))
        try assertReplicasEqualTheServer(server, [a, b])
    }

    /// Commits before the server allocated the file's id name their elements with the provisional
    /// id 0; `ident` renames them in paths through elements too.
    func testAWriteInsideAnElementMadeBeforeTheFileHadItsIDNamesTheElementByItsRealID() throws {
        let c = try client("c")
        try c.realm.write {
            _ = try c.realm.create("Person", value: ["id": "p", "addresses": [["city": "Oslo", "zip": "1"]]])
        }
        try c.realm.write { try address(of: c, 0).setValue(.string("Bergen"), forKey: "city") }
        try c.identify(as: 5)
        let history = try c.storedHistory()
        guard case .listInsert(_, "addresses", let e, _, _)? = history.first?.instructions.last else {
            return XCTFail("\(history)")
        }
        XCTAssertEqual(e.clientFileID, 5)
        XCTAssertEqual(
            history.last?.instructions,
            [.set(ref("p"), path: ["addresses", ElementStep.name(e), "city"], value: .string("Bergen"))])
    }

    /// A replica with a pending write inside an element gets a remote write to another field of it
    /// and an object sent whole (its bootstrap after a new subscription is not needed: a third
    /// replica starting later gets the object whole): both show both writes.
    func testAPendingWriteInsideAnElementStaysUnderARemoteWriteToAnotherField() throws {
        let (server, transport, replicas, index) = try twoReplicas()
        let (a, b) = (replicas[0], replicas[1])
        wall.advance(5)
        try b.realm.write { try address(of: b, 0).setValue(.string("3"), forKey: "zip") }
        try a.realm.write { try address(of: a, 0).setValue(.string("Bergen"), forKey: "city") }
        try transport.settle([index.a])
        _ = transport.connect(index.b)
        try transport.settle([index.a, index.b])
        XCTAssertEqual(try addresses(b), .list([address("Bergen", "3")]))
        let c = try client("c")
        let ci = transport.addClient(c)
        _ = transport.connect(ci)
        try transport.settle([index.a, index.b, ci])
        try assertReplicasEqualTheServer(server, [a, b, c])
    }
}
