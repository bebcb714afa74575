import Foundation
import RealmDatabase
import RealmSync

/// `sync_download_pending`: a replica holds 1,000 local commits the server has not acknowledged (it
/// was offline: one dog updated per commit) and receives 200 downloads, each one remote changeset
/// creating a dog, as a catch-up sends them. Every download is decided against the pending
/// changesets (docs/SYNC.md "How a replica applies a download"), so its cost grows with what is
/// pending: the row measures that growth. Against the same 200 creates as 200 writes on a local
/// realm: what applying them costs without sync.
struct SyncDownloadPending: Workload {
    let name = "sync_download_pending"
    /// A measure for issue 29's "pending changesets decoded once", not an issue's target: about the
    /// ratio before that change (1.8–2.7 in release; 1.6–2.0 after), so a return of per-download
    /// decoding shows.
    let target = 3.0
    static let pendingCommits = 1_000
    static let downloads = 200

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let pending = context.scaled(Self.pendingCommits)
        let downloads = context.scaled(Self.downloads)
        return [
            Comparison(
                name: name, target: target, baseline: "local realm, one write per create", size: downloads,
                warmUpSize: nil,
                ours: { size in try Self.replicaSide(context, pending: pending, downloads: size) },
                raw: { size in try Self.localSide(context, creates: size) })
        ]
    }

    /// The remote dogs, created by client file 2, past the replica's own keys.
    private static func remoteDog(_ i: Int) -> [SyncField] {
        [
            SyncField("name", .string("remote \(i)")), SyncField("age", .int(Int64(i % 20))),
            SyncField("breed", .null), SyncField("weight", .double(Double(i))),
        ]
    }

    private static func replicaSide(_ context: BenchContext, pending: Int, downloads: Int) throws -> PreparedRun {
        let client = try SyncClient(
            configuration: Realm.Configuration(fileURL: context.freshURL("pending"), schema: SyncBenchSchema.schema),
            user: "bench", wallClock: SystemWallClock())
        _ = try client.connect(session: 1)
        _ = try client.receive(.ident(session: 1, clientFileID: 1, salt: 7))
        _ = try client.receive(.download(session: 1, downloadCursor: 0, uploadAcknowledged: 0, changesets: []))
        let realm = client.realm
        try realm.write { _ = try realm.create("Dog", value: SyncBenchSchema.dog(1, DogValues.batch(1)[0])) }
        for commit in 0..<pending {
            try realm.write {
                try realm.objects("Dog").first?.setValue(.int(Int64(commit)), forKey: "age")
            }
        }
        let remote = (1...downloads).map { i in
            IntegratedChangeset(
                serverVersion: UInt64(i),
                origin: Changeset(
                    clientVersion: UInt64(i), basedOnServerVersion: UInt64(i - 1),
                    clock: HLCTimestamp(milliseconds: 1_000 + UInt64(i), counter: 0), clientFileID: 2,
                    instructions: [.create(ObjectRef("Dog", .int(Int64(1_000_000 + i))), fields: remoteDog(i))]))
        }
        return PreparedRun(
            run: {
                for changeset in remote {
                    _ = try client.receive(
                        .download(
                            session: 1, downloadCursor: changeset.serverVersion, uploadAcknowledged: 0,
                            changesets: [changeset]))
                }
                return Int64(downloads)
            },
            check: { _ in Int64(try realm.objects("Dog").countObjects()) - 1 })
    }

    private static func localSide(_ context: BenchContext, creates: Int) throws -> PreparedRun {
        let realm = try Realm(
            configuration: Realm.Configuration(fileURL: context.freshURL("local"), schema: SyncBenchSchema.schema))
        return PreparedRun(
            run: {
                for i in 1...creates {
                    try realm.write {
                        var fields: [String: RealmValue] = ["_id": .int(Int64(1_000_000 + i))]
                        fields["name"] = .string("remote \(i)")
                        fields["age"] = .int(Int64(i % 20))
                        fields["weight"] = .double(Double(i))
                        _ = try realm.create("Dog", value: .dictionary(fields))
                    }
                }
                return Int64(creates)
            }, check: { _ in Int64(try realm.objects("Dog").countObjects()) })
    }
}
