import CSQLite
import Foundation
import RealmDatabase
import RealmSync

/// The classes of the sync workloads: `Dog` with a primary key (classes without one do not sync),
/// used by both sides so that the ratio measures sync's recording alone.
enum SyncBenchSchema {
    nonisolated(unsafe) static let schema = Schema([
        ObjectSchema(
            className: "Dog",
            properties: [
                Property(name: "_id", type: .int, isPrimaryKey: true),
                Property(name: "name", type: .string),
                Property(name: "age", type: .int),
                Property(name: "breed", type: .string, isOptional: true),
                Property(name: "weight", type: .double),
            ])
    ])

    static func dog(_ i: Int, _ values: DogValues) -> RealmValue {
        [
            "_id": .int(Int64(i)), "name": .string(values.name), "age": .int(values.age),
            "breed": values.breed.map { .string($0) } ?? .null, "weight": .double(values.weight),
        ]
    }
}

/// `sync_insert_bulk`: 100,000 dogs created in one write on a synced realm (the commit records its
/// changeset in the same transaction: a create per dog), against the same write on a local realm.
struct SyncInsertBulk: Workload {
    let name = "sync_insert_bulk"
    let target = 1.5

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let n = context.scaled(100_000)
        let dogs = DogValues.batch(n).enumerated().map { SyncBenchSchema.dog($0.offset + 1, $0.element) }
        func side(synced: Bool) -> SideBuilder {
            { size in
                let configuration = Realm.Configuration(
                    fileURL: context.freshURL(synced ? "synced" : "local"), schema: SyncBenchSchema.schema)
                let realm: Realm
                if synced {
                    realm = try SyncClient(configuration: configuration, user: "bench", wallClock: SystemWallClock())
                        .realm
                } else {
                    realm = try Realm(configuration: configuration)
                }
                return PreparedRun(
                    run: {
                        try realm.write { for dog in dogs.prefix(size) { _ = try realm.create("Dog", value: dog) } }
                        return Int64(size)
                    }, check: { _ in Int64(try realm.objects("Dog").countObjects()) })
            }
        }
        return [
            Comparison(
                name: name, target: target, baseline: "local realm", size: n, warmUpSize: n,
                ours: side(synced: true), raw: side(synced: false))
        ]
    }
}

/// `sync_integrate`: 8 writers upload changesets of 10 changes each (creates of their own dogs and
/// updates of dogs every writer shares, so that conflicts are decided too); the server integrates
/// each round of uploads in one store transaction (group commit) and acknowledges them. Against raw
/// SQLite writing one row per change, one transaction per round: the floor of any durable store.
/// Deciding a change reads and writes several records (the object, the field and its time, the
/// history), so the target allows 50 raw rows per change: with raw SQLite's ~1M rows/s here that is
/// well above the 10,000 changes/s, which docs/BENCHMARKS.md reports from the measured time.
struct SyncIntegrate: Workload {
    let name = "sync_integrate"
    let target = 50.0
    static let writers = 8
    static let changesPerChangeset = 10
    static let changesetsPerUpload = 4

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let (rounds, changes) = Self.rounds(context)
        return [
            Comparison(
                name: name, target: target, baseline: "raw SQLite, a row per change", size: changes, warmUpSize: nil,
                ours: { _ in
                    let store = try SQLiteSyncStore(
                        path: context.freshURL("sync-store").path, schema: SyncBenchSchema.schema)
                    return try Self.serverSide(store: store, rounds: rounds, changes: changes)
                },
                raw: { _ in try Self.rawSide(context, rounds: rounds, changes: changes) })
        ]
    }

    /// The uploads of one writer: `rounds` uploads of `changesetsPerUpload` changesets.
    static func uploads(writer: Int, fileID: UInt64, rounds: Int, start: UInt64) -> [[Changeset]] {
        var version: UInt64 = 0
        return (0..<rounds).map { round in
            (0..<changesetsPerUpload).map { _ in
                version += 1
                let instructions: [Instruction] = (0..<changesPerChangeset).map { i in
                    let own = ObjectRef("Dog", .int(Int64(writer * 10_000_000 + Int(version) * 100 + i)))
                    if i % 5 == 4 {
                        let shared = ObjectRef("Dog", .int(Int64(i)))
                        return .create(shared, fields: [SyncField("age", .int(Int64(round)))])
                    }
                    return .create(
                        own, fields: [SyncField("name", .string("dog \(version)")), SyncField("age", .int(3))])
                }
                return Changeset(
                    clientVersion: version, basedOnServerVersion: 0,
                    clock: HLCTimestamp(milliseconds: start, counter: UInt16(truncatingIfNeeded: version)),
                    clientFileID: fileID, instructions: instructions)
            }
        }
    }

    /// The rounds measured: the counts of `comparisons` (shared with `sync_integrate_postgres`).
    static func rounds(_ context: BenchContext) -> (rounds: Int, changes: Int) {
        let changesets = context.scaled(4_000, minimum: Self.writers)
        let rounds = max(1, changesets / (Self.writers * Self.changesetsPerUpload))
        return (rounds, rounds * Self.writers * Self.changesetsPerUpload * Self.changesPerChangeset)
    }

    /// The server on `store`, its writers bound and identified (untimed); the run uploads every round.
    static func serverSide(store: any SyncStore, rounds: Int, changes: Int) throws -> PreparedRun {
        let clock = SystemWallClock()
        let server = try SyncServer(
            store: store, schema: SyncBenchSchema.schema, wallClock: clock, salts: { 7 })
        var fileIDs: [UInt64] = []
        for writer in 0..<writers {
            let connection = ConnectionID(rawValue: UInt64(writer + 1))
            let replies = server.receive(.bind(session: 1, user: "w\(writer)", needsClientFileID: true), on: connection)
            guard case .ident(_, let fileID, let salt) = replies.first?.message else {
                throw WorkloadSkipped(reason: "the server allocated no client file id: \(replies)")
            }
            fileIDs.append(fileID)
            _ = server.receive(
                .identify(
                    session: 1, clientFileID: fileID, salt: salt, downloadCursor: 0, query: .allObjects(of: ["Dog"])),
                on: connection)
        }
        let start = clock.nowMilliseconds()
        let prepared = fileIDs.enumerated().map {
            self.uploads(writer: $0.offset, fileID: $0.element, rounds: rounds, start: start)
        }
        return PreparedRun(
            run: {
                for round in 0..<rounds {
                    for writer in 0..<writers {
                        _ = server.receive(
                            .upload(session: 1, changesets: prepared[writer][round]),
                            on: ConnectionID(rawValue: UInt64(writer + 1)))
                    }
                    _ = server.integratePending()
                }
                return Int64(changes)
            },
            check: { _ in
                let versions = try server.state.latestServerVersion()
                let expected = UInt64(rounds * writers * changesetsPerUpload)
                return versions == expected ? Int64(changes) : -Int64(versions)
            })
    }

    static func rawSide(_ context: BenchContext, rounds: Int, changes: Int) throws -> PreparedRun {
        let db = try RawDatabase.openConfigured(context.freshURL("raw-changes").path)
        try db.exec("CREATE TABLE changes (id INTEGER PRIMARY KEY, object INTEGER, field TEXT, value BLOB)")
        let perRound = changes / rounds
        return PreparedRun(
            run: {
                let begin = try db.prepare("BEGIN IMMEDIATE")
                let commit = try db.prepare("COMMIT")
                let insert = try db.prepare("INSERT INTO changes (object, field, value) VALUES (?, 'age', ?)")
                let s = insert.handle
                for round in 0..<rounds {
                    try begin.run()
                    for i in 0..<perRound {
                        sqlite3_bind_int64(s, 1, Int64(round * perRound + i))
                        sqlite3_bind_int64(s, 2, Int64(i))
                        let rc = sqlite3_step(s)
                        sqlite3_reset(s)
                        if rc != SQLITE_DONE {
                            sqlite3_exec(db.handle, "ROLLBACK", nil, nil, nil)
                            throw db.failure(rc)
                        }
                    }
                    try commit.run()
                }
                return Int64(changes)
            }, check: { _ in try db.scalarInt("SELECT count(*) FROM changes") })
    }
}
