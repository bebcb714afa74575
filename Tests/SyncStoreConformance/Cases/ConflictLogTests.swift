import RealmDatabase
import Testing

@testable import RealmSync

/// The operators' conflict log: merge-rule drops with who lost to whom, and its bound.
@Suite struct ConflictLogTests {
    private func record(_ version: UInt64) -> ConflictRecord {
        ConflictRecord(
            serverVersion: version, loserClientFileID: 1, loserUser: "u", winnerClientFileID: nil, object: item(1),
            field: nil, rule: "r")
    }

    @Test(arguments: StoreKind.available)
    func testTheLogKeepsTheLastRecordsOldestFirst(on kind: StoreKind) {
        var log = ConflictLog(capacity: 3)
        for version in 1...5 { log.append(record(UInt64(version))) }
        #expect(log.records.map(\.serverVersion) == [3, 4, 5])
        #expect(log.totalRecorded == 5)
        var empty = ConflictLog(capacity: 0)
        empty.append(record(1))
        #expect(empty.records == [])
    }

    @Test(arguments: StoreKind.available)
    func testMergeDropsAreLoggedWithTheirWinner(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(2)
        try fixture.integrate(changeset(1, 1, clock: 100, [.create(item(1), fields: [])]))
        // Client 2's later write arrives first; client 1's earlier one, and its create's field, lose to it.
        try fixture.integrate(
            changeset(2, 1, basedOn: 1, clock: 300, [.set(item(1), path: ["name"], value: .string("later"))]),
            changeset(
                1, 2, basedOn: 1, clock: 200,
                [
                    .set(item(1), path: ["name"], value: .string("earlier")),
                    .create(item(1), fields: [SyncField("name", .string("again")), SyncField("count", .int(3))]),
                ]))
        try fixture.integrate(changeset(2, 2, basedOn: 3, clock: 400, [.erase(item(1))]))
        try fixture.integrate(changeset(1, 3, basedOn: 3, clock: 500, [.set(item(1), path: ["count"], value: .int(9))]))
        let records = fixture.integrator.conflictLog.records
        #expect(records.map(\.field) == ["name", "name", "count"])
        #expect(records.map(\.winnerClientFileID) == [2, 2, 2])
        #expect(records.map(\.serverVersion) == [3, 3, 5])
        #expect(records.map(\.loserClientFileID) == [1, 1, 1])
        #expect(records.first?.rule == "a later write wins")
        #expect(records.last?.rule == "a delete beats a concurrent write")
        #expect((try fixture.field(item(1), "count")) == nil, "the object is gone")
    }

    @Test(arguments: StoreKind.available)
    func testTheIntegratorsLogIsBounded(on kind: StoreKind) throws {
        let fixture = try PermissionFixture(on: kind, conflictLogCapacity: 2)
        try fixture.stage(changeset(2, 1, clock: 100, [createDog(1, owner: "bob")]))
        for version in UInt64(1)...4 {
            _ = try fixture.upload(
                changeset(1, version, basedOn: 1, clock: 100 + version, [setName(dog(1), "v\(version)")]),
                by: subscribedToAll("alice"))
        }
        let records = fixture.integrator.conflictLog.records
        #expect(records.map(\.serverVersion) == [4, 5], "only the last two refusals are kept")
        #expect(fixture.integrator.conflictLog.totalRecorded == 4)
    }

    @Test(arguments: StoreKind.available)
    func testAFailedUploadLogsNothing(on kind: StoreKind) throws {
        let fixture = try ServerFixture(on: kind)
        try fixture.clients(1)
        try fixture.integrate(changeset(1, 1, clock: 100, [.create(item(1), fields: [SyncField("count", .int(5))])]))
        // A drop in a changeset of an upload refused as a whole (a gap follows it) is not logged.
        let dropped = changeset(1, 2, basedOn: 1, clock: 50, [.set(item(1), path: ["count"], value: .int(1))])
        let gap = changeset(1, 4, basedOn: 1, clock: 300, [])
        try fixture.integrator.integrate([Upload(clientFileID: 1, changesets: [dropped, gap])])
        #expect(fixture.integrator.conflictLog.records == [])
    }
}
