import Foundation
import RealmDatabase
import RealmTestSupport
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// The same uploads integrated into a SQLite store and into a PostgreSQL store, in the same groups,
/// leave identical records: canonical state, history (as kept and as uploaded), client files and
/// bootstraps of views.
final class StoreEquivalenceTests: XCTestCase {
    private struct Server {
        let store: any SyncStore
        let integrator: Integrator
        let state: ServerState

        init(_ store: any SyncStore) throws {
            self.store = store
            integrator = Integrator(store: store, schema: serverTestSchema, wallClock: ManualWallClock(serverTestNow))
            state = ServerState(store: store, schema: serverTestSchema)
            for index in 0..<3 { _ = try state.allocateClient(salt: UInt64(100 + index), user: "u\(index % 2)") }
        }

        func bootstrap(_ predicate: ViewPredicate, user: String) throws -> [ObjectRef] {
            try store.read { reader in
                try reader.existingObjects(ofClass: "Item", matching: predicate, user: user, after: 0, limit: 1000)
                    .map(\.ref)
            }
        }
    }

    func testRandomUploadsLeaveIdenticalRecordsInBothStores() throws {
        let seed = TestSeed.make("store equivalence", pinned: 0x5EED_E901)
        var random = SplitMix64(seed: seed)
        let log = ServerRandomizedTests.randomChangesets(&random, count: 120)
        var groups: [ArraySlice<Changeset>] = []
        var index = 0
        while index < log.count {
            let size = Int(random.next() % 7) + 1
            groups.append(log[index..<min(log.count, index + size)])
            index += size
        }
        let folder = try ClientTestFolder()
        let place = try TestStorePlace("equivalence", kind: .postgres)
        let servers = [
            try Server(
                SQLiteSyncStore(
                    path: folder.url.appendingPathComponent("sync.sqlite").path, historySalt: 42,
                    schema: serverTestSchema
                )),
            try Server(place.open(historySalt: 42, schema: serverTestSchema)),
        ]
        for server in servers {
            for group in groups {
                try server.integrator.integrate(group.map { Upload(clientFileID: $0.clientFileID, changesets: [$0]) })
            }
        }
        let (sqlite, postgres) = (servers[0], servers[1])
        XCTAssertEqual(
            try postgres.state.canonicalState(classes: ["Item"]), try sqlite.state.canonicalState(classes: ["Item"]),
            "seed \(seed)")
        XCTAssertEqual(
            try postgres.state.history(after: 0, limit: 1000), try sqlite.state.history(after: 0, limit: 1000))
        let originals = { (server: Server) in
            try server.store.read { try $0.originalChangesets(after: 0, limit: 1000).map(\.1) }
        }
        XCTAssertEqual(try originals(postgres), try originals(sqlite))
        for fileID in UInt64(1)...4 {
            XCTAssertEqual(
                try postgres.store.read { try $0.client(fileID) }, try sqlite.store.read { try $0.client(fileID) })
        }
        let predicates: [ViewPredicate] = [
            .constant(true), .createdByUser,
            .compare(field: "count", .greater, .value(.int(40)), caseInsensitive: false),
            .or([
                .compare(field: "name", .beginsWith, .value(.string("S1")), caseInsensitive: true),
                .not(.compare(field: "count", .lessEqual, .value(.int(10)), caseInsensitive: false)),
            ]),
        ]
        for predicate in predicates {
            for user in ["u0", "u1"] {
                XCTAssertEqual(
                    try postgres.bootstrap(predicate, user: user), try sqlite.bootstrap(predicate, user: user),
                    "\(predicate) for \(user), seed \(seed)")
            }
        }
    }
}
