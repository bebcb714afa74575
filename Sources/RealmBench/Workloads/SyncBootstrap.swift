import Foundation
import RealmDatabase
import RealmSync

/// `sync_bootstrap`: a fresh replica subscribes to `Dog where owner == 'alice'` and is bootstrapped
/// to `complete` from a server whose SQLite store holds 200,000 dogs, half of them alice's (so
/// 100,000 objects match and half the store does not). Timed, through `InMemoryTransport` (every
/// message encoded and decoded): from the client's bind to its subscription set's state `complete`:
/// the server's query, the snapshots, the held-set writes, the batches, the client storing them
/// aside and applying them in one transaction. Against the same 100,000 dogs created in one write
/// on a local realm. The target is absolute (≤ 3 s); the ratio target is that time over
/// the baseline's ~0.2 s here.
struct SyncBootstrap: Workload {
    let name = "sync_bootstrap"
    let target = 15.0
    static let maxFigure = 3.0
    static let owners = ["alice", "bob"]
    /// Creates per uploaded changeset: a few large uploads, as a bulk import would make.
    static let createsPerChangeset = 5_000

    /// Dog with the field subscriptions and rules query.
    nonisolated(unsafe) static let schema = Schema([
        ObjectSchema(
            className: "Dog",
            properties: [
                Property(name: "_id", type: .int, isPrimaryKey: true),
                Property(name: "owner", type: .string),
                Property(name: "name", type: .string),
                Property(name: "age", type: .int),
                Property(name: "breed", type: .string, isOptional: true),
                Property(name: "weight", type: .double),
            ])
    ])

    /// Each user reads and writes the dogs they own; subscriptions may query `owner`.
    static let rules = SyncRules(
        queryable: ["Dog": ["owner"]],
        permissions: ["Dog": .init(read: .query("owner == $user"), write: .query("owner == $user"))])

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let matching = context.scaled(100_000)
        let values = DogValues.batch(matching)
        return [
            Comparison(
                name: name, target: target, baseline: "local realm, one write", size: matching, warmUpSize: nil,
                maxFigure: Self.maxFigure,
                ours: { _ in try Self.bootstrapSide(context, matching: matching) },
                raw: { size in try Self.localSide(context, values.prefix(size)) })
        ]
    }

    /// Dog `i` as a value of `schema`, owned by `owner`.
    static func dog(_ i: Int, owner: String, _ values: DogValues) -> [SyncField] {
        [
            SyncField("owner", .string(owner)), SyncField("name", .string(values.name)),
            SyncField("age", .int(values.age)), SyncField("breed", values.breed.map { .string($0) } ?? .null),
            SyncField("weight", .double(values.weight)),
        ]
    }

    // MARK: Ours

    static func bootstrapSide(_ context: BenchContext, matching: Int) throws -> PreparedRun {
        // Each run gets its own copy of the filled store: a server restarted on it, a fresh replica.
        let fixture = try filledStore(context, matching: matching)
        let storeURL = context.freshURL("bootstrap-store")
        try copyStore(fixture, to: storeURL)
        return try bootstrap(
            from: try SQLiteSyncStore(path: storeURL.path, schema: schema), context, matching: matching)
    }

    /// The timed bootstrap of a fresh replica of alice from a server on `store` (filled by `fill`).
    static func bootstrap(from store: any SyncStore, _ context: BenchContext, matching: Int) throws -> PreparedRun {
        let server = try SyncServer(
            store: store, schema: schema, wallClock: SystemWallClock(),
            permissions: try SyncPermissions.compile(rules, schema: schema), salts: { 7 })
        let client = try SyncClient(
            configuration: Realm.Configuration(fileURL: context.freshURL("bootstrap-replica"), schema: schema),
            user: "alice", wallClock: SystemWallClock(), viewSource: .subscriptions)
        try client.realm.subscriptions.update {
            try $0.append(QuerySubscription(className: "Dog", query: "owner == 'alice'"))
        }
        let subscriptions = try client.realm.subscriptions
        let transport = InMemoryTransport(server: server, random: { 0 })
        let peer = transport.addClient(client)
        return PreparedRun(
            run: {
                transport.connect(peer)
                while try transport.deliverToServer(from: peer) || transport.deliverToClient(peer) {}
                if let failure = transport.clientErrors.first {
                    throw WorkloadSkipped(reason: "the replica failed: \(failure.error)")
                }
                guard subscriptions.state == .complete else {
                    throw WorkloadSkipped(reason: "the subscription set is \(subscriptions.state), not complete")
                }
                return Int64(matching)
            }, check: { _ in Int64(try client.realm.objects("Dog").countObjects()) })
    }

    /// The copy of a closed store: its file and, if one was left, its WAL.
    static func copyStore(_ fixture: URL, to url: URL) throws {
        try FileManager.default.copyItem(at: fixture, to: url)
        let wal = URL(fileURLWithPath: fixture.path + "-wal")
        if FileManager.default.fileExists(atPath: wal.path) {
            try FileManager.default.copyItem(at: wal, to: URL(fileURLWithPath: url.path + "-wal"))
        }
    }

    /// A store holding `matching` dogs of each owner, uploaded by one writer per owner in changesets
    /// of `createsPerChangeset` creates and integrated by the server (its rules checked). Built once.
    static func filledStore(_ context: BenchContext, matching: Int) throws -> URL {
        let id = "sync-bootstrap-store-\(matching)"
        if let url = context.fixtures[id] { return url }
        context.log("fixture: \(matching * owners.count) dogs uploaded by \(owners.count) writers")
        let url = context.folder.appendingPathComponent(id + ".sqlite")
        try fill(try SQLiteSyncStore(path: url.path, schema: schema), matching: matching)
        context.fixtures[id] = url
        return url
    }

    /// Fills `store` with `matching` dogs of each owner through the integrator (as `filledStore`).
    static func fill(_ store: any SyncStore, matching: Int) throws {
        let server = try SyncServer(
            store: store, schema: schema, wallClock: SystemWallClock(),
            permissions: try SyncPermissions.compile(rules, schema: schema), salts: { 7 })
        let values = DogValues.batch(matching)
        let start = SystemWallClock().nowMilliseconds()
        for (writer, owner) in owners.enumerated() {
            let connection = ConnectionID(rawValue: UInt64(writer + 1))
            let replies = server.receive(.bind(session: 1, user: owner, needsClientFileID: true), on: connection)
            guard case .ident(_, let fileID, let salt) = replies.first?.message else {
                throw WorkloadSkipped(reason: "the server allocated no client file id: \(replies)")
            }
            _ = server.receive(
                .identify(
                    session: 1, clientFileID: fileID, salt: salt, downloadCursor: 0, query: .allObjects(of: ["Dog"])),
                on: connection)
            var version: UInt64 = 0
            for first in stride(from: 0, to: matching, by: createsPerChangeset) {
                version += 1
                let instructions = (first..<min(first + createsPerChangeset, matching)).map { i in
                    let id = Int64(i * owners.count + writer + 1)
                    return Instruction.create(ObjectRef("Dog", .int(id)), fields: dog(i, owner: owner, values[i]))
                }
                let changeset = Changeset(
                    clientVersion: version, basedOnServerVersion: 0,
                    clock: HLCTimestamp(milliseconds: start, counter: UInt16(truncatingIfNeeded: version)),
                    clientFileID: fileID, instructions: instructions)
                _ = server.receive(.upload(session: 1, changesets: [changeset]), on: connection)
                for reply in server.integratePending() {
                    if case .error(_, _, let message, _) = reply.message {
                        throw WorkloadSkipped(reason: "the server refused the fixture's upload: \(message)")
                    }
                }
            }
            server.disconnect(connection)
        }
        let changesets = owners.count * ((matching + createsPerChangeset - 1) / createsPerChangeset)
        let versions = try server.state.latestServerVersion()
        guard versions == UInt64(changesets) else {
            throw WorkloadSkipped(reason: "the fixture store integrated \(versions) changesets, not \(changesets)")
        }
    }

    // MARK: Baseline

    static func localSide(_ context: BenchContext, _ values: ArraySlice<DogValues>) throws -> PreparedRun {
        let realm = try Realm(
            configuration: Realm.Configuration(fileURL: context.freshURL("bootstrap-local"), schema: schema))
        let dogs: [RealmValue] = values.enumerated().map { i, dog in
            [
                "_id": .int(Int64(i * owners.count + 1)), "owner": .string("alice"), "name": .string(dog.name),
                "age": .int(dog.age), "breed": dog.breed.map { .string($0) } ?? .null, "weight": .double(dog.weight),
            ]
        }
        return PreparedRun(
            run: {
                try realm.write { for dog in dogs { _ = try realm.create("Dog", value: dog) } }
                return Int64(dogs.count)
            }, check: { _ in Int64(try realm.objects("Dog").countObjects()) })
    }
}
