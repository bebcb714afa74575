import Foundation
import RealmDatabase
import RealmTestSupport
import Testing

@testable import RealmSync

/// Seeded randomized checks of the store's encoding and of group commit.
@Suite struct ServerRandomizedTests {
    private func randomValue(_ random: inout SplitMix64, depth: Int = 0) -> SyncValue {
        switch random.next() % (depth > 1 ? 9 : 11) {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .int(Int64(bitPattern: random.next()))
        case 3: return .double(Double(bitPattern: random.next()))
        case 4: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: random.next())))
        case 5: return .string(String(repeating: "é\u{0}x", count: Int(random.next() % 4)))
        case 6: return .data(Data((0..<random.next() % 5).map { UInt8(truncatingIfNeeded: $0) }))
        case 7: return .link(item(Int64(random.next() % 3)))
        case 8: return .uuid(UUID())
        case 9: return .embedded([SyncField("a", randomValue(&random, depth: depth + 1))])
        default: return .list([randomValue(&random, depth: depth + 1), randomValue(&random, depth: depth + 1)])
        }
    }

    @Test(arguments: StoreKind.available)
    func testStoredValuesRoundTripAndGarbageNeverTraps(on kind: StoreKind) throws {
        let seed = TestSeed.make("store encoding", pinned: 0x5EED_5E41)
        var random = SplitMix64(seed: seed)
        for _ in 0..<500 {
            let value = randomValue(&random)
            let bytes = StoreEncoding.encode(value)
            #expect((try StoreEncoding.decodeValue(bytes)) == value, "seed \(seed)")
            // Truncated or corrupted bytes throw or decode; they never trap.
            let cut = bytes.prefix(Int(random.next() % UInt64(bytes.count + 1)))
            _ = try? StoreEncoding.decodeValue(Array(cut))
            var flipped = bytes
            if !flipped.isEmpty {
                let index = Int(random.next() % UInt64(flipped.count))
                flipped[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            }
            _ = try? StoreEncoding.decodeChangeset(flipped)
        }
    }

    /// Random instructions of three clients over three objects (also what StoreEquivalenceTests
    /// integrates into both stores).
    static func randomChangesets(_ random: inout SplitMix64, count: Int) -> [Changeset] {
        var versions: [UInt64] = [0, 0, 0]
        var result: [Changeset] = []
        for step in 0..<count {
            let client = random.next() % 3 + 1
            versions[Int(client - 1)] += 1
            let clock = 1000 + UInt64(step) * 10 + random.next() % 30
            let o = item(Int64(random.next() % 3))
            let e = element(clock: clock, client: client)
            let instructions: [Instruction] = (0..<3).map { _ in
                switch random.next() % 9 {
                case 0: return .create(o, fields: [SyncField("count", .int(Int64(step)))])
                case 1: return .erase(o)
                case 2: return .set(o, path: ["name"], value: .string("s\(step)"))
                case 3: return .listInsert(o, field: "tags", element: e, position: .first, value: .string("t\(step)"))
                case 4: return .listClear(o, field: "tags")
                case 5: return .setAdd(o, field: "labels", value: .string("l\(random.next() % 3)"))
                case 6: return .setRemove(o, field: "labels", value: .string("l\(random.next() % 3)"))
                case 7: return .mapPut(o, field: "attrs", key: "k\(random.next() % 2)", value: .int(Int64(step)))
                default: return .set(o, path: ["spec"], value: .embedded([SyncField("size", .int(Int64(step)))]))
                }
            }
            result.append(
                changeset(
                    client, versions[Int(client - 1)], basedOn: UInt64(random.next() % UInt64(step + 1)),
                    clock: clock, instructions))
        }
        return result
    }

    @Test(arguments: StoreKind.available)
    func testGroupCommitDecidesAsOneTransactionPerChangeset(on kind: StoreKind) throws {
        let seed = TestSeed.make("group commit", pinned: 0x5EED_6C01)
        var random = SplitMix64(seed: seed)
        let log = Self.randomChangesets(&random, count: 60)
        let grouped = try ServerFixture(on: kind)
        let single = try ServerFixture(on: kind)
        try grouped.clients(3)
        try single.clients(3)
        var index = 0
        while index < log.count {
            let size = Int(random.next() % 7) + 1
            let batch = log[index..<min(log.count, index + size)]
            try grouped.integrator.integrate(batch.map { Upload(clientFileID: $0.clientFileID, changesets: [$0]) })
            index += size
        }
        for c in log { try single.integrator.integrate([Upload(clientFileID: c.clientFileID, changesets: [c])]) }
        #expect((try grouped.canonical()) == (try single.canonical()), "seed \(seed)")
        #expect(
            (try grouped.state.history(after: 0, limit: 1000)) == (try single.state.history(after: 0, limit: 1000)),
            "seed \(seed)")
        let versions = try grouped.state.history(after: 0, limit: 1000).map(\.serverVersion)
        #expect(versions == Array(1...UInt64(log.count)), "all integrated, densely; seed \(seed)")
    }
}
