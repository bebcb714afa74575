import RealmSync
import RealmSyncPostgres

/// `sync_bootstrap_postgres` (issue 18): `sync_bootstrap`'s 100,000 dogs of alice (of 200,000)
/// bootstrapped to a fresh replica from a server on `PostgresSyncStore`, against the same bootstrap
/// from the SQLite store. The store is filled once through the integrator into a database that each
/// run copies (`CREATE DATABASE … TEMPLATE`; dropped with `BenchPostgres`), so every run starts from the same store with a fresh
/// connection and cache. The target is the SQLite row's own: ≤ 3 s.
struct SyncBootstrapPostgres: Workload {
    let name = "sync_bootstrap_postgres"
    let target = 3.0

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let matching = context.scaled(100_000)
        let postgres = try BenchPostgres(context)
        let fixture = try postgres.templateDatabase()
        context.log("fixture: \(matching * SyncBootstrap.owners.count) dogs uploaded into PostgreSQL")
        let store = try PostgresSyncStore(location: fixture, historySalt: 7, schema: SyncBootstrap.schema)
        defer { store.close() }  // Before the runs: a database being copied must have no connection.
        try SyncBootstrap.fill(store, matching: matching)
        return [
            Comparison(
                name: name, target: target, baseline: "SQLiteSyncStore", size: matching, warmUpSize: nil,
                maxFigure: SyncBootstrap.maxFigure,
                ours: { _ in
                    let location = try postgres.freshDatabase(copying: fixture)
                    let store: PostgresSyncStore
                    do {
                        store = try PostgresSyncStore(location: location, historySalt: 7, schema: SyncBootstrap.schema)
                    } catch {
                        postgres.drop(location)
                        throw error
                    }
                    var run = try SyncBootstrap.bootstrap(from: store, context, matching: matching)
                    run.release = {
                        store.close()
                        postgres.drop(location)
                    }
                    return run
                },
                raw: { _ in try SyncBootstrap.bootstrapSide(context, matching: matching) })
        ]
    }
}
