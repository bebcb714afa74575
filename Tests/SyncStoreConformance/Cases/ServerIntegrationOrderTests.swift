import RealmDatabase
import Testing

@testable import RealmSync

/// Rule 0 (idempotence, order, clock skew) and the refusal of hostile uploads: a refused upload leaves
/// the store exactly as it was and does not fail the others of its batch.
@Suite struct ServerIntegrationOrderTests {
    private let create1 = changeset(1, 1, clock: 100, [.create(item(1), fields: [SyncField("count", .int(1))])])

    private func refusal(_ outcome: UploadOutcome?) -> SyncErrorCode? {
        if case .refused(let error)? = outcome { return error.code }
        return nil
    }

    @Test(arguments: StoreKind.available)
    func testReuploadIsIdempotent(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(1)
        let second = changeset(1, 2, basedOn: 1, clock: 200, [.set(item(1), path: ["count"], value: .int(2))])
        try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [create1])])
        let again = try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [create1, second])])
        #expect(again.outcomes == [.acknowledged(clientVersion: 2)])
        #expect(again.integrated.map(\.serverVersion) == [2], "only the new changeset is integrated")
        let thrice = try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [create1, second])])
        #expect(thrice.outcomes == [.acknowledged(clientVersion: 2)])
        #expect(thrice.integrated == [])
        #expect((try fixture.state.latestServerVersion()) == 2)
        #expect((try fixture.field(item(1), "count")) == .int(2))
    }

    @Test(arguments: StoreKind.available)
    func testAGapInClientVersionsIsRefused(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(1)
        let third = changeset(1, 3, clock: 300, [.create(item(3), fields: [])])
        let result = try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [create1, third])])
        #expect(refusal(result.outcomes.first) == .badClientVersion)
        #expect((try fixture.canonical()) == CanonicalState(), "nothing of the refused upload is integrated")
        #expect((try fixture.state.client(1)?.lastIntegratedClientVersion) == 0)
    }

    @Test(arguments: StoreKind.available)
    func testAClockTooFarAheadIsRefusedAndLeavesTheStoreUnchanged(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        let future = changeset(1, 2, clock: serverTestNow + 300_001, [.create(item(2), fields: [])])
        let other = changeset(2, 1, clock: 100, [.create(item(9), fields: [])])
        let result = try fixture.integrator.integrate([
            Upload(clientFileID: 1, changesets: [create1, future]), Upload(clientFileID: 2, changesets: [other]),
        ])
        #expect(refusal(result.outcomes.first) == .clockTooFarAhead)
        #expect(result.outcomes.last == .acknowledged(clientVersion: 1), "the other upload is integrated")
        #expect(Set(try fixture.canonical().objects.keys) == [item(9)])
        #expect((try fixture.state.latestServerVersion()) == 1)
        #expect((try fixture.state.integrationLog().map(\.changeset)) == [other])
        // Within the tolerance it is integrated.
        let near = changeset(1, 1, clock: serverTestNow + 300_000, [.create(item(2), fields: [])])
        let accepted = try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [near])])
        #expect(accepted.outcomes == [.acknowledged(clientVersion: 1)])
    }

    @Test(arguments: StoreKind.available)
    func testUnknownClassOrFieldIsRefused(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(1)
        let hostile: [Instruction] = [
            .create(ObjectRef("Ghost", .int(1)), fields: []),
            .create(ObjectRef("Note", .int(1)), fields: []),
            .create(ObjectRef("Spec", .int(1)), fields: []),
            .create(ObjectRef("Item", .string("wrong key type")), fields: []),
            .create(item(1), fields: [SyncField("nope", .int(1))]),
            .create(item(1), fields: [SyncField("_id", .int(2))]),
            .set(item(1), path: ["count"], value: .null),
            .set(item(1), path: ["tags"], value: .list([])),
            .set(item(1), path: ["spec", "nope"], value: .int(1)),
            .set(item(1), path: ["name", "inner"], value: .int(1)),
            .set(item(1), path: [], value: .int(1)),
            .set(item(1), path: ["owner"], value: .link(ObjectRef("Note", .int(1)))),
            .set(item(1), path: ["spec"], value: .embedded([SyncField("size", .string("big"))])),
            .listInsert(
                item(1), field: "labels", element: element(clock: 100, client: 1), position: .first, value: .null),
            .listInsert(
                item(1), field: "tags", element: element(clock: 999_999_999, client: 1), position: .first,
                value: .string("from the future")),
            .create(item(1), fields: [SyncField("tags", .list([]))]),
            .setAdd(item(1), field: "tags", value: .string("x")),
            .mapPut(item(1), field: "attrs", key: "k", value: .string("x")),
        ]
        for instruction in hostile {
            let upload = changeset(1, 1, clock: 100, [.create(item(1), fields: []), instruction])
            let result = try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [upload])])
            #expect(refusal(result.outcomes.first) == .badChangeset, "\(instruction)")
        }
        #expect((try fixture.canonical()) == CanonicalState())
        #expect((try fixture.state.latestServerVersion()) == 0)
    }

    @Test(arguments: StoreKind.available)
    func testARefusedUploadLeavesNothingForTheNextUploadOfItsBatch(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        // Its first changeset is decided (and writes) before its second is refused.
        let refused = [
            changeset(1, 1, clock: 100, [.create(item(7), fields: [])]),
            changeset(1, 2, clock: 100, [.set(item(7), path: ["count"], value: .null)]),
        ]
        let accepted = changeset(
            2, 1, clock: 200,
            [
                .set(item(7), path: ["count"], value: .int(1)),
                .create(item(8), fields: [SyncField("count", .int(8))]),
                .create(item(7), fields: [SyncField("count", .int(7))]),
            ])
        let result = try fixture.integrator.integrate([
            Upload(clientFileID: 1, changesets: refused), Upload(clientFileID: 2, changesets: [accepted]),
        ])
        #expect(refusal(result.outcomes.first) == .badChangeset)
        #expect(result.integrated.first?.kept.instructions.count == 2, "the set of a missing object is dropped")
        #expect((try fixture.field(item(7), "count")) == .int(7))
        #expect((try fixture.field(item(8), "count")) == .int(8))
    }

    @Test(arguments: StoreKind.available)
    func testAnUploadForAnotherFileOrAnUnknownFileIsRefused(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(1)
        let unknown = try fixture.integrator.integrate([
            Upload(clientFileID: 5, changesets: [changeset(5, 1, clock: 100, [])])
        ])
        #expect(refusal(unknown.outcomes.first) == .badClientFileIdentifier)
        let impostor = try fixture.integrator.integrate([
            Upload(clientFileID: 1, changesets: [changeset(2, 1, clock: 100, [])])
        ])
        #expect(refusal(impostor.outcomes.first) == .badChangeset)
        let future = try fixture.integrator.integrate([
            Upload(clientFileID: 1, changesets: [changeset(1, 1, basedOn: 7, clock: 100, [])])
        ])
        #expect(refusal(future.outcomes.first) == .badServerVersion)
    }

    @Test(arguments: StoreKind.available)
    func testRestartKeepsHistoryAndState(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(1)
        try fixture.integrate(create1)
        try fixture.reopen()
        #expect((try fixture.state.latestServerVersion()) == 1)
        #expect((try fixture.state.history(after: 0, limit: 10).map(\.kept)) == [create1])
        #expect((try fixture.field(item(1), "count")) == .int(1))
        #expect((try fixture.state.client(1)?.lastIntegratedClientVersion) == 1)
        #expect((try fixture.store.read { try $0.historySalt() }) == 42, "the salt is the one of the first open")
    }

    @Test(arguments: StoreKind.available)
    func testCanonicalStateHasEveryPropertyAtItsDefault(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(1)
        try fixture.integrate(changeset(1, 1, clock: 100, [.create(item(1), fields: [])]))
        #expect(
            (try fixture.canonical().objects[item(1)]) == [
                SyncField("_id", .int(1)), SyncField("attrs", .map([])), SyncField("count", .int(0)),
                SyncField("labels", .list([])), SyncField("name", .null), SyncField("owner", .null),
                SyncField("spec", .null), SyncField("tags", .list([])),
            ])
    }

    @Test(arguments: StoreKind.available)
    func testBootstrapIsAtOneServerVersionInBatches(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(1)
        let creates = (1...5).map { Instruction.create(item(Int64($0)), fields: [SyncField("count", .int(Int64($0)))]) }
        try fixture.integrate(changeset(1, 1, clock: 100, creates))
        try fixture.integrate(changeset(1, 2, basedOn: 1, clock: 200, [.erase(item(3))]))
        let (serverVersion, latestClock, batches) = try fixture.state.snapshot(classes: ["Item"], batchSize: 2)
        #expect(serverVersion == 2)
        #expect(latestClock == HLCTimestamp(milliseconds: 200, counter: 0))
        #expect(batches.map(\.count) == [2, 2])
        #expect(batches.joined().map(\.object) == [item(1), item(2), item(4), item(5)])
        #expect((batches.joined().last?.fields.first { $0.name == "count" }?.value) == .int(5))
        let whole = try fixture.state.snapshot(classes: ["Item"], batchSize: 10)
        #expect(whole.batches.map(\.count) == [4])
    }
}
