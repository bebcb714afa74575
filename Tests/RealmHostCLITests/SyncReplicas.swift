import Foundation
import RealmDatabase
import RealmHost
import RealmSync
import RealmSyncNet
import Synchronization
import XCTest

/// Replicas with the schema of the repository's plugins (or of the plugins the server was given),
/// each behind its own network client (as on its own host), signing their users' tokens with the
/// server's secret.
struct Replicas {
    let folder: URL
    let secret: SyncSharedSecret
    let url: String
    /// The plugins folder whose schema the replicas have.
    var plugins = CLI.repository.appendingPathComponent("plugins")

    struct Host: Sendable {
        let replica: SharedSyncEndpoint<SyncClient>
        let client: SyncNetClient
    }

    /// The schema the server loads from the repository's plugins.
    static func pluginSchema() throws -> Schema {
        try PluginRegistry(folders: [CLI.repository.appendingPathComponent("plugins")]).schema
    }

    /// The schema of the replicas' plugins.
    func schema() throws -> Schema { try PluginRegistry(folders: [plugins]).schema }

    /// The replica `name.realm` of `user`, registered with a client of `url` that retries every 40 ms, started.
    func start(_ name: String, user: String) async throws -> Host {
        let configuration = Realm.Configuration(
            fileURL: folder.appendingPathComponent("\(name).realm"), schema: try schema())
        let replica = SharedSyncEndpoint(
            try SyncClient(configuration: configuration, user: user, wallClock: SystemWallClock()))
        let secret = self.secret
        let client = SyncNetClient(
            url: url, tokens: { try await secret.signToken(user: $0) },
            options: SyncNetClientOptions(
                backoff: ReconnectBackoff(initial: .milliseconds(40), maximum: .milliseconds(40))))
        try await client.register(replica, session: 1, user: user)
        await client.start()
        return Host(replica: replica, client: client)
    }
}

extension SharedSyncEndpoint where Endpoint == SyncClient {
    func writeToy(_ id: ObjectId, name: String, household: String) throws {
        try withEndpoint { client in
            try client.realm.write {
                _ = try client.realm.create(
                    "DogToy", value: ["_id": .objectId(id), "name": .string(name), "household": .string(household)])
            }
        }
    }

    /// The toys in this replica (-1 when it cannot be read).
    var toyCount: Int { (try? withEndpoint { try $0.realm.objects("DogToy").count }) ?? -1 }

    /// The toy's name in this replica; nil while it has no such toy.
    func toyName(_ id: ObjectId) -> String? {
        try? withEndpoint { client in
            try client.realm.object(ofType: "DogToy", forPrimaryKey: .objectId(id))?.value(forKey: "name").stringValue
        }
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; whether it held.
func eventually(timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// Runs a blocking wait (on a process, a pipe) off the concurrency pool, which the clients need.
func blocking<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: body()) }
    }
}

extension Replicas.Host {
    /// Stops the host's client; whether it stopped within `timeout`. The wait is bounded: a client
    /// whose connection is stuck does not hang the test (its task is left behind).
    func stop(timeout: Duration = .seconds(15)) async -> Bool {
        let stopped = StopFlag()
        let client = self.client
        Task {
            await client.stop()
            stopped.set()
        }
        return await eventually(timeout: timeout) { stopped.isSet }
    }
}

/// Set once, from any thread.
final class StopFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}

/// A replica's storm: one toy per commit, flushed at once, until cancelled; the toys written.
func storm(_ host: Replicas.Host, name: String) -> Task<[ObjectId], Never> {
    Task {
        var written: [ObjectId] = []
        while !Task.isCancelled {
            let id = ObjectId.generate()
            do {
                try host.replica.writeToy(id, name: "\(name)\(written.count)", household: "alice")
            } catch {
                XCTFail("commit \(written.count) on \(name): \(error)")
                break
            }
            written.append(id)
            await host.client.flush()
            try? await Task.sleep(for: .milliseconds(5))
        }
        return written
    }
}

/// The store behind `state` holds every toy of `written` once, and each of the two client files'
/// changesets once each, numbered 1, 2, ….
func checkToysInStore(_ state: ServerState, _ written: [ObjectId]) throws {
    let toys = Set(try state.canonicalState(classes: ["DogToy"]).objects.keys)
    XCTAssertEqual(toys, Set(written.map { ObjectRef("DogToy", .objectId($0)) }), "the store's toys")
    let log = try state.integrationLog()
    let versions = Dictionary(grouping: log.map(\.changeset), by: \.clientFileID).mapValues { $0.map(\.clientVersion) }
    XCTAssertEqual(versions.count, 2, "two client files uploaded")
    for (file, numbers) in versions {
        XCTAssertEqual(numbers, Array(1...UInt64(numbers.count)), "client file \(file)'s changesets")
    }
    XCTAssertEqual(log.count, written.count, "one changeset per commit")
}
