import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// The oracle on small hand-made logs: one test per row of the semantics table (shared/SYNC.md).
final class OracleTests: XCTestCase {
    let schema = Schema([
        ObjectSchema(
            className: "Dog",
            properties: [
                Property(name: "_id", type: .int), Property(name: "name", type: .string),
                Property(name: "age", type: .int, defaultValue: .int(1)),
                Property(name: "owner", type: .string, isOptional: true),
                Property(name: "tags", type: .string, collection: .list),
                Property(name: "nicknames", type: .string, collection: .set),
                Property(name: "attrs", type: .int, collection: .map),
                Property(name: "address", type: .object, objectClassName: "Address"),
            ], primaryKey: "_id"),
        ObjectSchema(
            className: "Address",
            properties: [Property(name: "street", type: .string), Property(name: "city", type: .string)],
            isEmbedded: true),
    ])
    let rex = ObjectRef("Dog", .int(1))

    /// A changeset of client `client` (its `version`-th), made at `clock` ms having seen `seen`.
    func commit(_ client: UInt64, _ version: UInt64, seen: UInt64, at clock: UInt64, _ instructions: [Instruction])
        -> Changeset
    {
        Changeset(
            clientVersion: version, basedOnServerVersion: seen, clock: HLCTimestamp(milliseconds: clock, counter: 0),
            clientFileID: client, instructions: instructions)
    }

    /// The state after integrating `changesets` in this order, at server versions 1, 2, …
    func state(_ changesets: [Changeset]) throws -> CanonicalState {
        try Oracle.state(
            schema: schema,
            log: changesets.enumerated().map { (serverVersion: UInt64($0.offset + 1), changeset: $0.element) })
    }

    func field(_ state: CanonicalState, _ ref: ObjectRef, _ name: String) -> SyncValue? {
        state.objects[ref]?.first { $0.name == name }?.value
    }

    func element(_ client: UInt64, _ clock: UInt64, _ index: UInt32 = 0) -> ElementID {
        ElementID(clock: HLCTimestamp(milliseconds: clock, counter: 0), clientFileID: client, index: index)
    }

    func testANewObjectHasEveryPropertyAtItsDefault() throws {
        let s = try state([commit(1, 1, seen: 0, at: 10, [.create(rex, fields: [])])])
        XCTAssertEqual(
            s.objects[rex],
            [
                SyncField("_id", .int(1)), SyncField("address", .null), SyncField("age", .int(1)),
                SyncField("attrs", .map([])), SyncField("name", .string("")), SyncField("nicknames", .list([])),
                SyncField("owner", .null), SyncField("tags", .list([])),
            ])
    }

    func testTwoWritesOfOneFieldTheLaterClockWinsTiesByClientID() throws {
        let create = commit(1, 1, seen: 0, at: 10, [.create(rex, fields: [])])
        let late = commit(2, 1, seen: 1, at: 30, [.set(rex, path: ["name"], value: .string("late"))])
        let early = commit(3, 1, seen: 1, at: 20, [.set(rex, path: ["name"], value: .string("early"))])
        XCTAssertEqual(field(try state([create, late, early]), rex, "name"), .string("late"))
        XCTAssertEqual(field(try state([create, early, late]), rex, "name"), .string("late"))
        let tieLow = commit(2, 1, seen: 1, at: 30, [.set(rex, path: ["name"], value: .string("client 2"))])
        let tieHigh = commit(3, 1, seen: 1, at: 30, [.set(rex, path: ["name"], value: .string("client 3"))])
        XCTAssertEqual(field(try state([create, tieHigh, tieLow]), rex, "name"), .string("client 3"))
        XCTAssertEqual(field(try state([create, tieLow, tieHigh]), rex, "name"), .string("client 3"))
    }

    func testAnUpdateLosesToAConcurrentDelete() throws {
        let create = commit(1, 1, seen: 0, at: 10, [.create(rex, fields: [SyncField("name", .string("Rex"))])])
        let erase = commit(1, 2, seen: 1, at: 20, [.erase(rex)])
        // Made later by the clock, but without having seen the erase (based on version 1).
        let update = commit(2, 1, seen: 1, at: 99, [.set(rex, path: ["name"], value: .string("Max"))])
        XCTAssertNil(try state([create, erase, update]).objects[rex])
        XCTAssertNil(try state([create, update, erase]).objects[rex])
        // A concurrent create does not bring it back either.
        let create2 = commit(2, 1, seen: 1, at: 99, [.create(rex, fields: [SyncField("name", .string("Max"))])])
        XCTAssertNil(try state([create, erase, create2]).objects[rex])
    }

    func testACreateMadeAfterSeeingTheDeleteBringsTheObjectBack() throws {
        let create = commit(1, 1, seen: 0, at: 10, [.create(rex, fields: [SyncField("name", .string("Rex"))])])
        let erase = commit(1, 2, seen: 1, at: 20, [.erase(rex)])
        let again = commit(2, 1, seen: 2, at: 30, [.create(rex, fields: [SyncField("age", .int(5))])])
        let s = try state([create, erase, again])
        XCTAssertEqual(field(s, rex, "age"), .int(5))
        XCTAssertEqual(field(s, rex, "name"), .string(""), "the erase forgot the old fields")
    }

    func testTwoCreatesOfOnePrimaryKeyMergeFieldByField() throws {
        let a = commit(
            1, 1, seen: 0, at: 10,
            [
                .create(rex, fields: [SyncField("name", .string("A")), SyncField("age", .int(3))])
            ])
        let b = commit(
            2, 1, seen: 0, at: 20,
            [
                .create(rex, fields: [SyncField("name", .string("B")), SyncField("owner", .string("bo"))])
            ])
        for order in [[a, b], [b, a]] {
            let s = try state(order)
            XCTAssertEqual(s.objects.count, 1)
            XCTAssertEqual(field(s, rex, "name"), .string("B"))
            XCTAssertEqual(field(s, rex, "age"), .int(3))
            XCTAssertEqual(field(s, rex, "owner"), .string("bo"))
        }
    }

    func testConcurrentListInsertsAreAllKeptInTimeOfInsertionOrder() throws {
        let create = commit(1, 1, seen: 0, at: 10, [.create(rex, fields: [])])
        let p = FractionalPosition.first
        let fromTwo = commit(
            2, 1, seen: 1, at: 30,
            [.listInsert(rex, field: "tags", element: element(2, 30), position: p, value: .string("two"))])
        let fromThree = commit(
            3, 1, seen: 1, at: 20,
            [
                .listInsert(rex, field: "tags", element: element(3, 20), position: p, value: .string("three")),
                .listInsert(
                    rex, field: "tags", element: element(3, 20, 1), position: .between(p, nil), value: .string("end")),
            ])
        for order in [[create, fromTwo, fromThree], [create, fromThree, fromTwo]] {
            XCTAssertEqual(
                field(try state(order), rex, "tags"), .list([.string("three"), .string("two"), .string("end")]))
        }
    }

    func testAnEraseWinsOverAConcurrentMoveOrSet() throws {
        let e = element(1, 10)
        let create = commit(
            1, 1, seen: 0, at: 10,
            [
                .create(rex, fields: []),
                .listInsert(rex, field: "tags", element: e, position: .first, value: .string("x")),
                .listInsert(
                    rex, field: "tags", element: element(1, 10, 1), position: .between(.first, nil), value: .string("y")
                ),
            ])
        let erase = commit(2, 1, seen: 1, at: 20, [.listErase(rex, field: "tags", element: e)])
        let move = commit(
            3, 1, seen: 1, at: 90,
            [
                .listMove(rex, field: "tags", element: e, position: .between(.between(.first, nil), nil)),
                .listSet(rex, field: "tags", element: e, value: .string("moved")),
            ])
        for order in [[create, erase, move], [create, move, erase]] {
            XCTAssertEqual(field(try state(order), rex, "tags"), .list([.string("y")]))
        }
    }

    func testInsertsMadeAfterAClearSurviveItAndEarlierOnesDoNot() throws {
        let create = commit(
            1, 1, seen: 0, at: 10,
            [
                .create(rex, fields: []),
                .listInsert(rex, field: "tags", element: element(1, 10), position: .first, value: .string("old")),
            ])
        let clear = commit(2, 1, seen: 1, at: 50, [.listClear(rex, field: "tags")])
        let before = commit(
            3, 1, seen: 1, at: 40,
            [.listInsert(rex, field: "tags", element: element(3, 40), position: .first, value: .string("before"))])
        let after = commit(
            4, 1, seen: 1, at: 60,
            [.listInsert(rex, field: "tags", element: element(4, 60), position: .first, value: .string("after"))])
        for order in [
            [create, clear, before, after], [create, before, after, clear], [create, after, clear, before],
        ] {
            XCTAssertEqual(field(try state(order), rex, "tags"), .list([.string("after")]))
        }
    }

    func testSetAndMapWritesOfOneValueTheLaterWins() throws {
        let create = commit(1, 1, seen: 0, at: 10, [.create(rex, fields: [])])
        let add = commit(
            2, 1, seen: 1, at: 30,
            [
                .setAdd(rex, field: "nicknames", value: .string("r")),
                .mapPut(rex, field: "attrs", key: "k", value: .int(1)),
                .setAdd(rex, field: "nicknames", value: .string("b")),
                .mapPut(rex, field: "attrs", key: "j", value: .int(2)),
            ])
        let remove = commit(
            3, 1, seen: 1, at: 20,
            [
                .setRemove(rex, field: "nicknames", value: .string("r")), .mapRemove(rex, field: "attrs", key: "k"),
            ])
        let laterRemove = commit(3, 2, seen: 1, at: 40, [.setRemove(rex, field: "nicknames", value: .string("b"))])
        for order in [[create, add, remove, laterRemove], [create, remove, laterRemove, add]] {
            let s = try state(order)
            XCTAssertEqual(field(s, rex, "nicknames"), .list([.string("r")]))
            XCTAssertEqual(field(s, rex, "attrs"), .map([SyncField("j", .int(2)), SyncField("k", .int(1))]))
        }
    }

    func testAReplacementOfAnEmbeddedObjectBeatsAConcurrentWriteInsideIt() throws {
        let create = commit(
            1, 1, seen: 0, at: 10,
            [
                .create(rex, fields: [SyncField("address", .embedded([SyncField("street", .string("Main"))]))])
            ])
        let replace = commit(
            2, 1, seen: 1, at: 20,
            [
                .set(rex, path: ["address"], value: .embedded([SyncField("city", .string("Oslo"))]))
            ])
        // Later by the clock, but it had not seen the replacement.
        let inside = commit(3, 1, seen: 1, at: 90, [.set(rex, path: ["address", "street"], value: .string("Side"))])
        let expected = SyncValue.embedded([SyncField("city", .string("Oslo")), SyncField("street", .string(""))])
        XCTAssertEqual(field(try state([create, replace, inside]), rex, "address"), expected)
        // Integrated before the replacement, the write is simply replaced.
        XCTAssertEqual(field(try state([create, inside, replace]), rex, "address"), expected)
        // A write made after seeing the replacement is kept.
        let seen = commit(3, 1, seen: 2, at: 90, [.set(rex, path: ["address", "street"], value: .string("Side"))])
        XCTAssertEqual(
            field(try state([create, replace, seen]), rex, "address"),
            .embedded([SyncField("city", .string("Oslo")), SyncField("street", .string("Side"))]))
        // A write below a null embedded field is dropped.
        let orphan = commit(
            2, 1, seen: 0, at: 5,
            [
                .create(ObjectRef("Dog", .int(2)), fields: []),
                .set(ObjectRef("Dog", .int(2)), path: ["address", "city"], value: .string("X")),
            ])
        XCTAssertEqual(field(try state([orphan]), ObjectRef("Dog", .int(2)), "address"), .null)
    }

    func testADuplicateChangesetIsSkippedAndAGapIsAnError() throws {
        let create = commit(1, 1, seen: 0, at: 10, [.create(rex, fields: [SyncField("age", .int(4))])])
        let set = commit(1, 2, seen: 1, at: 20, [.set(rex, path: ["age"], value: .int(5))])
        var oracle = Oracle(schema: schema)
        try oracle.integrate(create, at: 1)
        try oracle.integrate(set, at: 2)
        try oracle.integrate(create, at: 3)  // re-uploaded: already integrated
        XCTAssertEqual(field(oracle.canonicalState, rex, "age"), .int(5))
        XCTAssertEqual(oracle.serverVersion, 2)
        XCTAssertThrowsError(try oracle.integrate(commit(1, 4, seen: 2, at: 30, []), at: 3)) { error in
            XCTAssertEqual(error as? Oracle.LogError, .clientVersionGap(clientFileID: 1, expected: 3, found: 4))
        }
    }

    func testACommitIsAppliedWholeInItsOrder() throws {
        // Equal times only happen inside one changeset, where the later instruction wins.
        let c = commit(
            1, 1, seen: 0, at: 10,
            [
                .create(rex, fields: [SyncField("name", .string("first"))]),
                .set(rex, path: ["name"], value: .string("second")),
                .erase(ObjectRef("Dog", .int(9))),
            ])
        let s = try state([c])
        XCTAssertEqual(field(s, rex, "name"), .string("second"))
        XCTAssertEqual(s.objects.count, 1)
    }
}
