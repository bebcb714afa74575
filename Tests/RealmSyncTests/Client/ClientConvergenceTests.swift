import Foundation
import RealmDatabase
import RealmTestSupport
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// Two clients editing concurrently without conflicting field writes, their changesets carried by
/// hand (each upload integrated whole, in arrival order), end with the same data.
final class ClientConvergenceTests: XCTestCase {
    private var folder: ClientTestFolder!
    private let wall = ManualWallClock.clientStart()
    private var serverVersion: UInt64 = 0

    override func setUpWithError() throws { folder = try ClientTestFolder() }
    override func tearDown() { folder = nil }

    /// Integrates `from`'s uploads whole and downloads them to `to`; acknowledges them to `from`.
    private func exchange(from: SyncClient, to: SyncClient) throws {
        guard case .upload(_, let changesets)? = try from.pendingUploads().first else { return }
        let integrated = changesets.map { changeset -> IntegratedChangeset in
            serverVersion += 1
            return IntegratedChangeset(serverVersion: serverVersion, origin: changeset)
        }
        _ = try to.receive(
            .download(
                session: 1, downloadCursor: serverVersion, uploadAcknowledged: to.uploadAcknowledged,
                changesets: integrated))
        _ = try from.receive(
            .download(
                session: 1, downloadCursor: serverVersion,
                uploadAcknowledged: changesets.last?.clientVersion ?? 0, changesets: []))
    }

    /// One random edit by `client`: fields, sets and maps of its own people (ids starting with
    /// `prefix`); list inserts and removals (never of the last element) on anyone's tags.
    private func edit(_ client: SyncClient, prefix: String, step: Int, random: inout SplitMix64) throws {
        let realm = client.realm
        let people = try realm.objects("Person").map { $0 }
        let own = try people.filter { try $0.value(forKey: "id").stringValue?.hasPrefix(prefix) == true }
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            _ = try realm.create("Person", value: ["id": .string("\(prefix)\(step)"), "name": .string("n\(step)")])
        case 1 where !own.isEmpty:
            try own[Int.random(in: 0..<own.count, using: &random)].setValue(.int(Int64(step)), forKey: "age")
        case 2 where !own.isEmpty:
            let set = try own[Int.random(in: 0..<own.count, using: &random)].dynamicMutableSet("scores")
            let value = RealmValue.int(Int64.random(in: 0..<4, using: &random))
            if try set.contains(value) { try set.remove(value) } else { try set.insert(value) }
        case 3 where !own.isEmpty:
            try own[Int.random(in: 0..<own.count, using: &random)].dynamicMap("attrs")
                .setValue(.string("v\(step)"), forKey: "k\(Int.random(in: 0..<3, using: &random))")
        case 4 where !people.isEmpty:
            let tags = try people[Int.random(in: 0..<people.count, using: &random)].dynamicList("tags")
            // Never the last element: that is a `listClear`, which the server decides by clock against
            // concurrent inserts; carrying changesets by hand keeps them all.
            if tags.count > 1 { try tags.remove(at: Int.random(in: 0..<tags.count, using: &random)) }
        default:
            guard !people.isEmpty else { return }
            let tags = try people[Int.random(in: 0..<people.count, using: &random)].dynamicList("tags")
            try tags.insert(.string("\(prefix)\(step)"), at: Int.random(in: 0...tags.count, using: &random))
        }
    }

    func testRandomNonConflictingEditsConverge() throws {
        let seed = TestSeed.make("ClientConvergenceTests.random")
        var random = SplitMix64(seed: seed)
        let a = try SyncClient(configuration: folder.configuration("a"), user: "u", wallClock: wall)
        let b = try SyncClient(configuration: folder.configuration("b"), user: "u", wallClock: wall)
        try a.identify(as: 1)
        try b.identify(as: 2)
        for round in 0..<30 {
            for step in 0..<Int.random(in: 1...4, using: &random) {
                wall.advance(UInt64.random(in: 0...3, using: &random))
                try a.realm.write { try edit(a, prefix: "a", step: round * 10 + step, random: &random) }
                try b.realm.write { try edit(b, prefix: "b", step: round * 10 + step, random: &random) }
            }
            if Bool.random(using: &random) {
                try exchange(from: a, to: b)
                try exchange(from: b, to: a)
            } else {
                try exchange(from: b, to: a)
                try exchange(from: a, to: b)
            }
            // Both legs done, every changeset has reached both sides.
            let stateA = try a.canonicalState()
            let stateB = try b.canonicalState()
            XCTAssertEqual(
                stateA, stateB,
                "seed \(seed), round \(round):\n" + stateA.differences(from: stateB).joined(separator: "\n"))
            if stateA != stateB { return }
        }
        XCTAssertFalse(try a.canonicalState().objects.isEmpty, "seed \(seed)")
    }

    /// Two devices each append a run offline: Realm's merge keeps each run together (1, 2, 3, 4: the
    /// earlier commit's first), where positions halving the same gap would interleave them.
    func testConcurrentAppendsKeepEachDevicesRunTogether() throws {
        let a = try SyncClient(configuration: folder.configuration("a"), user: "u", wallClock: wall)
        let b = try SyncClient(configuration: folder.configuration("b"), user: "u", wallClock: wall)
        try a.identify(as: 1)
        try b.identify(as: 2)
        try a.realm.write { _ = try a.realm.create("Person", value: ["id": .string("p"), "name": .string("P")]) }
        try exchange(from: a, to: b)
        let tags = { (client: SyncClient) in
            try client.realm.object(ofType: "Person", forPrimaryKey: .string("p"))?.dynamicList("tags").values()
                .compactMap(\.stringValue)
        }
        wall.advance(1)
        try a.realm.write {
            try a.realm.object(ofType: "Person", forPrimaryKey: .string("p"))?.dynamicList("tags").append(contentsOf: [
                .string("1"), .string("2"),
            ])
        }
        wall.advance(1)
        try b.realm.write {
            try b.realm.object(ofType: "Person", forPrimaryKey: .string("p"))?.dynamicList("tags").append(contentsOf: [
                .string("3"), .string("4"),
            ])
        }
        try exchange(from: b, to: a)
        try exchange(from: a, to: b)
        XCTAssertEqual(try tags(a), ["1", "2", "3", "4"])
        XCTAssertEqual(try tags(b), ["1", "2", "3", "4"])
        // A run inserted inside another's stays together too.
        wall.advance(1)
        try a.realm.write {
            let list = try a.realm.object(ofType: "Person", forPrimaryKey: .string("p"))?.dynamicList("tags")
            try list?.insert(.string("a"), at: 1)
            try list?.insert(.string("b"), at: 2)
        }
        try b.realm.write {
            let list = try b.realm.object(ofType: "Person", forPrimaryKey: .string("p"))?.dynamicList("tags")
            try list?.insert(.string("c"), at: 1)
            try list?.insert(.string("d"), at: 2)
        }
        try exchange(from: a, to: b)
        try exchange(from: b, to: a)
        XCTAssertEqual(try tags(a), try tags(b))
        XCTAssertEqual(try tags(a), ["1", "a", "b", "c", "d", "2", "3", "4"])
    }
}
