import Foundation
import RealmDatabase
import RealmSync
import RealmSyncNet

/// `sync_catchup`: replica B's session is paused (unregistered from its host, as `syncSession:pause()`
/// does) while replica A commits 10,000 creates in 20 commits, uploads them and has them
/// acknowledged (untimed). Timed: from B's resume (registered again on its connected host) until
/// B's observer counts all 10,000 objects, i.e. the server's history since B's cursor has been
/// downloaded and applied. The target is absolute (≤ 2 s). Against the same creates in the
/// same 20 commits on a local realm: what writing them costs without sync.
struct SyncCatchup: Workload {
    let name = "sync_catchup"
    /// The 2 s over the baseline's ~27 ms here (as `sync_bootstrap`'s ratio target).
    let target = 75.0
    static let maxSeconds = 2.0
    static let commits = 20

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let changes = context.scaled(10_000, minimum: Self.commits)
        return [
            Comparison(
                name: name, target: target, baseline: "local realm, the same commits", size: changes,
                warmUpSize: nil, maxFigure: Self.maxSeconds,
                ours: { size in try Self.networkSide(context, changes: size) },
                raw: { size in try Self.localSide(context, changes: size) })
        ]
    }

    /// The creates of commit `commit` (of `commits`): objects `c<i>` with `seq` i.
    static func commitRange(_ commit: Int, of changes: Int) -> Range<Int> {
        let size = (changes + commits - 1) / commits
        return min(commit * size, changes)..<min((commit + 1) * size, changes)
    }

    static func create(_ i: Int, in realm: Realm) throws {
        _ = try realm.create("Probe", value: ["_id": .string("c\(i)"), "seq": .int(Int64(i))])
    }

    // MARK: Ours

    static func networkSide(_ context: BenchContext, changes: Int) throws -> PreparedRun {
        let net = try NetBenchRun(context)
        let observers = ReplicaObservers()
        do {
            let (a, b) = (try NetBench.replica(context), try NetBench.replica(context))
            let hostA = try net.host(carrying: [a])
            let hostB = try net.host(carrying: [b])
            try net.waitUntilComplete([a, b])
            try awaitBlocking("pausing replica B's session") { await hostB.unregister(session: 1) }
            try writeAndUpload(a, host: hostA, changes: changes)
            let barrier = ObservationBarrier(observers: 1)
            barrier.expect(Int64(changes))
            try observers.observe(b, as: 0, barrier: barrier) { realm in
                (try? realm.objects("Probe")).map { Int64($0.count) }
            }
            return PreparedRun(
                run: {
                    Task { try await hostB.register(b, session: 1, user: NetBench.user) }
                    _ = try barrier.wait("replica B catching up on \(changes) changes", timeout: .seconds(60))
                    return Int64(changes)
                },
                check: { _ in Int64(try b.withEndpoint { try $0.realm.objects("Probe").count }) },
                release: {
                    observers.invalidate()
                    net.stop()
                })
        } catch {
            observers.invalidate()
            net.stop()
            throw error
        }
    }

    /// A's commits, uploaded and acknowledged by the server (so integrated there).
    static func writeAndUpload(_ a: SharedSyncEndpoint<SyncClient>, host: SyncNetClient, changes: Int) throws {
        for commit in 0..<commits {
            try a.withEndpoint { client in
                try client.realm.write { for i in commitRange(commit, of: changes) { try create(i, in: client.realm) } }
            }
        }
        try awaitBlocking("uploading replica A's commits") { await host.flush(session: 1) }
        try waitUntil("the server to acknowledge replica A's \(commits) commits", timeout: .seconds(120)) {
            !a.withEndpoint { $0.hasUnacknowledgedChanges }
        }
    }

    // MARK: Baseline

    static func localSide(_ context: BenchContext, changes: Int) throws -> PreparedRun {
        let realm = try Realm(
            configuration: Realm.Configuration(fileURL: context.freshURL("catchup-local"), schema: NetBench.schema()))
        return PreparedRun(
            run: {
                for commit in 0..<commits {
                    try realm.write { for i in commitRange(commit, of: changes) { try create(i, in: realm) } }
                }
                return Int64(changes)
            }, check: { _ in Int64(try realm.objects("Probe").count) })
    }
}
