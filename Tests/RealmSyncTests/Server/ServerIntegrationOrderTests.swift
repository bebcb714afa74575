import RealmDatabase
import XCTest

@testable import RealmSync

/// Rule 0 (idempotence, order, clock skew) and the refusal of hostile uploads: a refused upload leaves
/// the store exactly as it was and does not fail the others of its batch.
final class ServerIntegrationOrderTests: XCTestCase {
    private let create1 = changeset(1, 1, clock: 100, [.create(item(1), fields: [SyncField("count", .int(1))])])

    private func refusal(_ outcome: UploadOutcome?) -> SyncErrorCode? {
        if case .refused(let error)? = outcome { return error.code }
        return nil
    }

    func testReuploadIsIdempotent() throws {
        let fixture = try ServerFixture()
        try fixture.clients(1)
        let second = changeset(1, 2, basedOn: 1, clock: 200, [.set(item(1), path: ["count"], value: .int(2))])
        try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [create1])])
        let again = try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [create1, second])])
        XCTAssertEqual(again.outcomes, [.acknowledged(clientVersion: 2)])
        XCTAssertEqual(again.integrated.map(\.serverVersion), [2], "only the new changeset is integrated")
        let thrice = try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [create1, second])])
        XCTAssertEqual(thrice.outcomes, [.acknowledged(clientVersion: 2)])
        XCTAssertEqual(thrice.integrated, [])
        XCTAssertEqual(try fixture.state.latestServerVersion(), 2)
        XCTAssertEqual(try fixture.field(item(1), "count"), .int(2))
    }

    func testAGapInClientVersionsIsRefused() throws {
        let fixture = try ServerFixture()
        try fixture.clients(1)
        let third = changeset(1, 3, clock: 300, [.create(item(3), fields: [])])
        let result = try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [create1, third])])
        XCTAssertEqual(refusal(result.outcomes.first), .badClientVersion)
        XCTAssertEqual(try fixture.canonical(), CanonicalState(), "nothing of the refused upload is integrated")
        XCTAssertEqual(try fixture.state.client(1)?.lastIntegratedClientVersion, 0)
    }

    func testAClockTooFarAheadIsRefusedAndLeavesTheStoreUnchanged() throws {
        let fixture = try ServerFixture()
        try fixture.clients(2)
        let future = changeset(1, 2, clock: serverTestNow + 300_001, [.create(item(2), fields: [])])
        let other = changeset(2, 1, clock: 100, [.create(item(9), fields: [])])
        let result = try fixture.integrator.integrate([
            Upload(clientFileID: 1, changesets: [create1, future]), Upload(clientFileID: 2, changesets: [other]),
        ])
        XCTAssertEqual(refusal(result.outcomes.first), .clockTooFarAhead)
        XCTAssertEqual(result.outcomes.last, .acknowledged(clientVersion: 1), "the other upload is integrated")
        XCTAssertEqual(Set(try fixture.canonical().objects.keys), [item(9)])
        XCTAssertEqual(try fixture.state.latestServerVersion(), 1)
        XCTAssertEqual(try fixture.state.integrationLog().map(\.changeset), [other])
        // Within the tolerance it is integrated.
        let near = changeset(1, 1, clock: serverTestNow + 300_000, [.create(item(2), fields: [])])
        let accepted = try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [near])])
        XCTAssertEqual(accepted.outcomes, [.acknowledged(clientVersion: 1)])
    }

    func testUnknownClassOrFieldIsRefused() throws {
        let fixture = try ServerFixture()
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
            XCTAssertEqual(refusal(result.outcomes.first), .badChangeset, "\(instruction)")
        }
        XCTAssertEqual(try fixture.canonical(), CanonicalState())
        XCTAssertEqual(try fixture.state.latestServerVersion(), 0)
    }

    func testARefusedUploadLeavesNothingForTheNextUploadOfItsBatch() throws {
        let fixture = try ServerFixture()
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
        XCTAssertEqual(refusal(result.outcomes.first), .badChangeset)
        XCTAssertEqual(result.integrated.first?.kept.instructions.count, 2, "the set of a missing object is dropped")
        XCTAssertEqual(try fixture.field(item(7), "count"), .int(7))
        XCTAssertEqual(try fixture.field(item(8), "count"), .int(8))
    }

    func testAnUploadForAnotherFileOrAnUnknownFileIsRefused() throws {
        let fixture = try ServerFixture()
        try fixture.clients(1)
        let unknown = try fixture.integrator.integrate([
            Upload(clientFileID: 5, changesets: [changeset(5, 1, clock: 100, [])])
        ])
        XCTAssertEqual(refusal(unknown.outcomes.first), .badClientFileIdentifier)
        let impostor = try fixture.integrator.integrate([
            Upload(clientFileID: 1, changesets: [changeset(2, 1, clock: 100, [])])
        ])
        XCTAssertEqual(refusal(impostor.outcomes.first), .badChangeset)
        let future = try fixture.integrator.integrate([
            Upload(clientFileID: 1, changesets: [changeset(1, 1, basedOn: 7, clock: 100, [])])
        ])
        XCTAssertEqual(refusal(future.outcomes.first), .badServerVersion)
    }

    func testRestartKeepsHistoryAndState() throws {
        let fixture = try ServerFixture()
        try fixture.clients(1)
        try fixture.integrate(create1)
        try fixture.reopen()
        XCTAssertEqual(try fixture.state.latestServerVersion(), 1)
        XCTAssertEqual(try fixture.state.history(after: 0, limit: 10).map(\.kept), [create1])
        XCTAssertEqual(try fixture.field(item(1), "count"), .int(1))
        XCTAssertEqual(try fixture.state.client(1)?.lastIntegratedClientVersion, 1)
        XCTAssertEqual(try fixture.store.read { try $0.historySalt() }, 42, "the salt is the one of the first open")
    }

    func testCanonicalStateHasEveryPropertyAtItsDefault() throws {
        let fixture = try ServerFixture()
        try fixture.clients(1)
        try fixture.integrate(changeset(1, 1, clock: 100, [.create(item(1), fields: [])]))
        XCTAssertEqual(
            try fixture.canonical().objects[item(1)],
            [
                SyncField("_id", .int(1)), SyncField("attrs", .map([])), SyncField("count", .int(0)),
                SyncField("labels", .list([])), SyncField("name", .null), SyncField("owner", .null),
                SyncField("spec", .null), SyncField("tags", .list([])),
            ])
    }

    func testBootstrapIsAtOneServerVersionInBatches() throws {
        let fixture = try ServerFixture()
        try fixture.clients(1)
        let creates = (1...5).map { Instruction.create(item(Int64($0)), fields: [SyncField("count", .int(Int64($0)))]) }
        try fixture.integrate(changeset(1, 1, clock: 100, creates))
        try fixture.integrate(changeset(1, 2, basedOn: 1, clock: 200, [.erase(item(3))]))
        let (serverVersion, latestClock, batches) = try fixture.state.snapshot(classes: ["Item"], batchSize: 2)
        XCTAssertEqual(serverVersion, 2)
        XCTAssertEqual(latestClock, HLCTimestamp(milliseconds: 200, counter: 0))
        XCTAssertEqual(batches.map(\.count), [2, 2])
        XCTAssertEqual(batches.joined().map(\.object), [item(1), item(2), item(4), item(5)])
        XCTAssertEqual(batches.joined().last?.fields.first { $0.name == "count" }?.value, .int(5))
        let whole = try fixture.state.snapshot(classes: ["Item"], batchSize: 10)
        XCTAssertEqual(whole.batches.map(\.count), [4])
    }
}
