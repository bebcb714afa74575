import RealmSync
import RealmSyncPostgres

/// `sync_integrate_postgres` (issue 18): `sync_integrate`'s 8 writers and rounds, integrated by a
/// `SyncServer` on `PostgresSyncStore` (a fresh database per run, on `BenchPostgres`'s server),
/// against the same server on `SQLiteSyncStore`: the row is the SQLite figure beside PostgreSQL's.
/// The target is absolute, at least 5,000 changes per second; the ratio allows what that is
/// over SQLite's ~12,000 changes per second here.
struct SyncIntegratePostgres: Workload {
    let name = "sync_integrate_postgres"
    let target = 2.5
    static let changesPerSecond = 5_000.0

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let (rounds, changes) = SyncIntegrate.rounds(context)
        let postgres = try BenchPostgres(context)
        return [
            Comparison(
                name: name, target: target, baseline: "SQLiteSyncStore", size: changes, warmUpSize: nil,
                maxFigure: Double(changes) / Self.changesPerSecond,
                ours: { _ in
                    let location = try postgres.freshDatabase()
                    let store: PostgresSyncStore
                    do {
                        store = try PostgresSyncStore(
                            location: location, historySalt: 7, schema: SyncBenchSchema.schema)
                    } catch {
                        postgres.drop(location)
                        throw error
                    }
                    var run = try SyncIntegrate.serverSide(store: store, rounds: rounds, changes: changes)
                    run.release = {
                        store.close()
                        postgres.drop(location)
                    }
                    return run
                },
                raw: { _ in
                    let store = try SQLiteSyncStore(
                        path: context.freshURL("sync-store").path, schema: SyncBenchSchema.schema)
                    return try SyncIntegrate.serverSide(store: store, rounds: rounds, changes: changes)
                })
        ]
    }
}
