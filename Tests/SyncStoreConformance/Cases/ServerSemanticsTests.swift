import RealmDatabase
import Testing

@testable import RealmSync

/// One test per row of the semantics table (shared/SYNC.md "Semantics"), at the store level:
/// changesets built by hand, integrated into a store in a temporary directory.
@Suite struct ServerSemanticsTests {
    private func created(_ fixture: ServerFixture, by client: UInt64 = 1) throws {
        try fixture.integrate(changeset(client, 1, clock: 100, [.create(item(1), fields: [])]))
    }

    @Test(arguments: StoreKind.available)
    func testTwoWritesOfOneFieldTheLaterClockWins(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        try created(fixture)
        // The later write arrives first; the earlier one, arriving after, is dropped.
        let result = try fixture.integrate(
            changeset(2, 1, basedOn: 1, clock: 300, [.set(item(1), path: ["name"], value: .string("later"))]),
            changeset(1, 2, basedOn: 1, clock: 200, [.set(item(1), path: ["name"], value: .string("earlier"))]))
        #expect((try fixture.field(item(1), "name")) == .string("later"))
        #expect(result.integrated.map(\.kept.instructions.count) == [1, 0])
        #expect(result.latestServerVersion == 3, "a changeset with nothing kept still takes a server version")
    }

    @Test(arguments: StoreKind.available)
    func testTiesGoToTheLargerClientFileID(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        try created(fixture)
        try fixture.integrate(
            changeset(2, 1, basedOn: 1, clock: 300, [.set(item(1), path: ["count"], value: .int(2))]),
            changeset(1, 2, basedOn: 1, clock: 300, [.set(item(1), path: ["count"], value: .int(1))]))
        #expect((try fixture.field(item(1), "count")) == .int(2))
    }

    @Test(arguments: StoreKind.available)
    func testUpdateLosesToConcurrentDelete(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        try created(fixture)
        let result = try fixture.integrate(
            changeset(2, 1, basedOn: 1, clock: 200, [.erase(item(1))]),
            changeset(1, 2, basedOn: 1, clock: 900, [.set(item(1), path: ["name"], value: .string("late"))]))
        #expect((try fixture.fields(item(1))) == nil)
        #expect(result.integrated.map(\.kept.instructions.count) == [1, 0])
    }

    @Test(arguments: StoreKind.available)
    func testCreateAfterSeeingDeleteBringsObjectBack(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        try created(fixture)
        try fixture.integrate(changeset(2, 1, basedOn: 1, clock: 200, [.erase(item(1))]))
        // A create concurrent with the erase is dropped; one made after seeing it brings it back.
        try fixture.integrate(
            changeset(1, 2, basedOn: 1, clock: 300, [.create(item(1), fields: [SyncField("count", .int(5))])]))
        #expect((try fixture.fields(item(1))) == nil)
        try fixture.integrate(
            changeset(1, 3, basedOn: 2, clock: 400, [.create(item(1), fields: [SyncField("count", .int(7))])]))
        #expect((try fixture.field(item(1), "count")) == .int(7))
        #expect((try fixture.field(item(1), "name")) == .null, "fields from before the erase are forgotten")
    }

    @Test(arguments: StoreKind.available)
    func testTwoCreatesOfOnePrimaryKeyMergeFieldByField(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        try fixture.integrate(
            changeset(
                1, 1, clock: 100,
                [.create(item(1), fields: [SyncField("name", .string("a")), SyncField("count", .int(1))])]),
            changeset(2, 1, clock: 200, [.create(item(1), fields: [SyncField("count", .int(2))])]))
        let fields = try #require(try fixture.fields(item(1)))
        #expect(fields["name"] == .string("a"))
        #expect(fields["count"] == .int(2))
        #expect((try fixture.canonical().objects.count) == 1)
    }

    @Test(arguments: StoreKind.available)
    func testConcurrentListInsertsAtOnePlaceAreOrderedByTime(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        try created(fixture)
        let first = FractionalPosition.first
        try fixture.integrate(
            changeset(
                2, 1, basedOn: 1, clock: 300,
                [
                    .listInsert(
                        item(1), field: "tags", element: element(clock: 300, client: 2), position: first,
                        value: .string("b"))
                ]),
            changeset(
                1, 2, basedOn: 1, clock: 200,
                [
                    .listInsert(
                        item(1), field: "tags", element: element(clock: 200, client: 1), position: first,
                        value: .string("a"))
                ]))
        #expect((try fixture.field(item(1), "tags")) == .list([.string("a"), .string("b")]))
    }

    @Test(arguments: StoreKind.available)
    func testEraseBeatsConcurrentMove(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        let e = element(clock: 100, client: 1)
        try fixture.integrate(
            changeset(
                1, 1, clock: 100,
                [
                    .create(item(1), fields: []),
                    .listInsert(item(1), field: "tags", element: e, position: .first, value: .string("x")),
                ]))
        let later = FractionalPosition.between(.first, nil)
        let result = try fixture.integrate(
            changeset(1, 2, basedOn: 1, clock: 200, [.listErase(item(1), field: "tags", element: e)]),
            changeset(2, 1, basedOn: 1, clock: 900, [.listMove(item(1), field: "tags", element: e, position: later)]),
            changeset(2, 2, basedOn: 1, clock: 901, [.listSet(item(1), field: "tags", element: e, value: .string("y"))])
        )
        #expect((try fixture.field(item(1), "tags")) == .list([]))
        #expect(result.integrated.map(\.kept.instructions.count) == [1, 0, 0])
    }

    @Test(arguments: StoreKind.available)
    func testInsertsAfterClearSurvive(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        try fixture.integrate(
            changeset(
                1, 1, clock: 100,
                [
                    .create(item(1), fields: []),
                    .listInsert(
                        item(1), field: "tags", element: element(clock: 100, client: 1), position: .first,
                        value: .string("old")),
                ]))
        let insert = { (clock: UInt64, value: String) -> Instruction in
            .listInsert(
                item(1), field: "tags", element: element(clock: clock, client: 2), position: .first,
                value: .string(value))
        }
        // The insert made after the clear arrives before it, the one made before arrives after it.
        try fixture.integrate(
            changeset(2, 1, basedOn: 1, clock: 400, [insert(400, "after")]),
            changeset(1, 2, basedOn: 1, clock: 300, [.listClear(item(1), field: "tags")]),
            changeset(2, 2, basedOn: 1, clock: 401, [insert(200, "before")]))
        #expect((try fixture.field(item(1), "tags")) == .list([.string("after")]))
    }

    @Test(arguments: StoreKind.available)
    func testSetAddRemoveLaterWins(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        try created(fixture)
        try fixture.integrate(
            changeset(1, 2, basedOn: 1, clock: 200, [.setAdd(item(1), field: "labels", value: .string("x"))]),
            changeset(2, 1, basedOn: 1, clock: 150, [.setRemove(item(1), field: "labels", value: .string("x"))]))
        #expect((try fixture.field(item(1), "labels")) == .list([.string("x")]))
        try fixture.integrate(
            changeset(2, 2, basedOn: 3, clock: 250, [.setRemove(item(1), field: "labels", value: .string("x"))]))
        #expect((try fixture.field(item(1), "labels")) == .list([]))
    }

    @Test(arguments: StoreKind.available)
    func testMapPutRemoveLaterWins(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        try created(fixture)
        try fixture.integrate(
            changeset(2, 1, basedOn: 1, clock: 300, [.mapRemove(item(1), field: "attrs", key: "k")]),
            changeset(1, 2, basedOn: 1, clock: 200, [.mapPut(item(1), field: "attrs", key: "k", value: .int(1))]),
            changeset(1, 3, basedOn: 1, clock: 210, [.mapPut(item(1), field: "attrs", key: "j", value: .null)]))
        #expect((try fixture.field(item(1), "attrs")) == .map([SyncField("j", .null)]))
        try fixture.integrate(
            changeset(1, 4, basedOn: 4, clock: 500, [.mapPut(item(1), field: "attrs", key: "k", value: .int(3))]))
        #expect((try fixture.field(item(1), "attrs")) == .map([SyncField("j", .null), SyncField("k", .int(3))]))
    }

    @Test(arguments: StoreKind.available)
    func testReplacementOfEmbeddedBeatsConcurrentInnerWrite(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        let red = SyncValue.embedded([SyncField("color", .string("red")), SyncField("size", .int(1))])
        let blue = SyncValue.embedded([SyncField("color", .string("blue")), SyncField("size", .int(2))])
        try fixture.integrate(changeset(1, 1, clock: 100, [.create(item(1), fields: [SyncField("spec", red)])]))
        try fixture.integrate(
            changeset(2, 1, basedOn: 1, clock: 200, [.set(item(1), path: ["spec"], value: blue)]),
            changeset(1, 2, basedOn: 1, clock: 900, [.set(item(1), path: ["spec", "color"], value: .string("green"))]))
        #expect((try fixture.field(item(1), "spec")) == blue)
        // A write inside made after seeing the replacement is kept.
        try fixture.integrate(
            changeset(1, 3, basedOn: 3, clock: 950, [.set(item(1), path: ["spec", "size"], value: .int(9))]))
        #expect(
            (try fixture.field(item(1), "spec"))
                == .embedded([SyncField("color", .string("blue")), SyncField("size", .int(9))]))
    }

    @Test(arguments: StoreKind.available)
    func testAWriteInsideAMissingEmbeddedObjectIsDropped(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(1)
        try created(fixture)
        let result = try fixture.integrate(
            changeset(1, 2, basedOn: 1, clock: 200, [.set(item(1), path: ["spec", "size"], value: .int(3))]))
        #expect(result.integrated.first?.kept.instructions == [])
        #expect((try fixture.field(item(1), "spec")) == .null)
    }

    @Test(arguments: StoreKind.available)
    func testACommitIsAtomicAcrossItsInstructions(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(1)
        // A changeset whose last instruction is invalid leaves nothing of its first one.
        let result = try fixture.integrate(
            changeset(
                1, 1, clock: 100,
                [.create(item(1), fields: []), .set(item(1), path: ["count"], value: .string("not an int"))]))
        guard case .refused(let error) = result.outcomes.first else {
            Issue.record("expected a refusal")
            return
        }
        #expect(error.code == .badChangeset)
        #expect((try fixture.canonical()) == CanonicalState())
        #expect((try fixture.state.latestServerVersion()) == 0)
    }
}

extension ServerSemanticsTests {
    @Test(arguments: StoreKind.available)
    func testAPartialEmbeddedObjectIsCompletedWithDefaults(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(1)
        try fixture.integrate(
            changeset(
                1, 1, clock: 100,
                [.create(item(1), fields: [SyncField("spec", .embedded([SyncField("color", .string("red"))]))])]))
        #expect(
            (try fixture.field(item(1), "spec"))
                == .embedded([SyncField("color", .string("red")), SyncField("size", .int(0))]))
    }
}
