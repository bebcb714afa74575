import Foundation
import RealmDatabase
import RealmSync
import RealmSyncNet

/// What the network workloads share: a sync server on 127.0.0.1 (a free port, a fresh store in the
/// run's folder) inside the benchmark's process, hosts (`SyncNetClient`, one WebSocket each) carrying
/// flexible-sync replicas of one user, and the observers that report what each replica sees.
enum NetBench {
    static let secret = Array("the secret realm-bench's in-process hosts and server share".utf8)
    static let user = "alice"
    /// The object every write touches: `Probe` `probe`, whose `seq` each round sets.
    static let probeID = "probe"

    /// Probe { _id: string (pk), seq: int }. A function: a `Schema` is handed over to each realm.
    static func schema() -> Schema {
        Schema([
            ObjectSchema(
                className: "Probe",
                properties: [
                    Property(name: "_id", type: .string, isPrimaryKey: true), Property(name: "seq", type: .int),
                ])
        ])
    }

    /// Hosts retry every 20–40 ms, so a run never waits out the production backoff (1 s and more).
    static let clientOptions = SyncNetClientOptions(
        backoff: ReconnectBackoff(initial: .milliseconds(40), maximum: .milliseconds(40)))

    /// A flexible-sync replica of `user` in a fresh file, subscribed to every `Probe` (the set
    /// committed; the server completes it once the replica's host connects).
    static func replica(_ context: BenchContext) throws -> SharedSyncEndpoint<SyncClient> {
        let client = try SyncClient(
            configuration: Realm.Configuration(fileURL: context.freshURL("net-replica"), schema: schema()),
            user: user, wallClock: SystemWallClock(), viewSource: .subscriptions)
        try client.realm.subscriptions.update { try $0.append(QuerySubscription(className: "Probe")) }
        return SharedSyncEndpoint(client)
    }

    /// Sets the probe's `seq` in one write (creating it the first time).
    static func writeProbe(_ replica: SharedSyncEndpoint<SyncClient>, seq: Int64) throws {
        try replica.withEndpoint { client in
            try client.realm.write {
                _ = try client.realm.create(
                    "Probe", value: ["_id": .string(probeID), "seq": .int(seq)], update: .modified)
            }
        }
    }

    /// The probe's `seq` in `realm` (nil before the first write reached it).
    static func probeSeq(_ realm: Realm) -> Int64? {
        (try? realm.object(ofType: "Probe", forPrimaryKey: .string(probeID))?.value(forKey: "seq"))?.intValue
    }

    /// A session number for the `index`th replica of a host.
    static func sessionNumber(_ index: Int) throws -> UInt32 {
        guard let number = UInt32(exactly: index + 1) else {
            throw WorkloadSkipped(reason: "too many sessions on one host: \(index + 1)")
        }
        return number
    }
}

/// The server and hosts one run started: stopped together when the run ends or fails, so nothing
/// keeps running (or holds a port) into the next workload.
final class NetBenchRun {
    let context: BenchContext
    let server: SyncNetServer
    let url: String
    private(set) var hosts: [SyncNetClient] = []

    /// Starts a server on 127.0.0.1, port 0, on a fresh store with `NetBench.schema()`.
    init(_ context: BenchContext, maxConnections: Int = 1000) throws {
        let server = try SyncNetServer(
            configuration: SyncNetServerConfiguration(host: "127.0.0.1", port: 0, maxConnections: maxConnections),
            storePath: context.freshURL("net-store").path, schema: NetBench.schema(), secret: NetBench.secret)
        let url = try awaitBlocking("starting the sync server") { () async throws -> String in
            try await server.start()
            guard let url = await server.url else { throw WorkloadSkipped(reason: "the sync server has no URL") }
            return url
        }
        self.context = context
        self.server = server
        self.url = url
    }

    /// A host carrying `replicas` (sessions 1, 2, …), connected.
    @discardableResult
    func host(carrying replicas: [SharedSyncEndpoint<SyncClient>]) throws -> SyncNetClient {
        let host = try SyncNetClient(url: url, secret: NetBench.secret, options: NetBench.clientOptions)
        hosts.append(host)
        let numbered = try replicas.enumerated().map { (try NetBench.sessionNumber($0.offset), $0.element) }
        try awaitBlocking("registering \(replicas.count) sessions on a host") {
            for (number, replica) in numbered { try await host.register(replica, session: number, user: NetBench.user) }
            await host.start()
        }
        return host
    }

    /// Waits until every replica's subscription set is complete (its view bootstrapped).
    func waitUntilComplete(_ replicas: [SharedSyncEndpoint<SyncClient>], timeout: Duration = .seconds(60)) throws {
        var waiting = replicas[...]
        try waitUntil("the subscriptions of \(replicas.count) replicas to complete", timeout: timeout) {
            while let replica = waiting.first,
                try replica.withEndpoint({ try $0.realm.subscriptions.state }) == .complete
            {
                waiting = waiting.dropFirst()
            }
            return waiting.isEmpty
        }
    }

    /// Stops the hosts, then the server; a stop that hangs is given up after 30 s.
    func stop() {
        let (hosts, server) = (hosts, server)
        _ = try? awaitBlocking("stopping the hosts and the sync server") {
            for host in hosts { await host.stop() }
            await server.stop()
        }
        self.hosts = []
    }
}

/// Observers on replicas' realms (the database's notifications, the API a Lua `observe` uses): each
/// reports the value `value` reads after every commit on its replica, which for a replica that does
/// not write is a download applied. Tokens are only touched under their replica's lock.
final class ReplicaObservers {
    private var registrations: [(replica: SharedSyncEndpoint<SyncClient>, token: NotificationToken?)] = []

    /// Observer `index` of `barrier` on `replica`.
    func observe(
        _ replica: SharedSyncEndpoint<SyncClient>, as index: Int, barrier: ObservationBarrier,
        value: @escaping (Realm) -> Int64?
    ) throws {
        var token: NotificationToken?
        try replica.withEndpoint { client in
            token = try client.realm.observe { _, realm in
                if let seen = value(realm) { barrier.observed(seen, by: index) }
            }
        }
        registrations.append((replica, token))
    }

    func invalidate() {
        for (replica, token) in registrations { replica.withEndpoint { _ in token?.invalidate() } }
        registrations = []
    }
}

/// Rounds of probe writes, each timed from before its commit to the moment `barrier` is reached
/// (every observer has read the write): the latency workloads' loop, on both sides.
struct ProbeRounds {
    let warmUp: Int
    let timed: Int
    let barrier: ObservationBarrier
    /// Who waits, for the error when a round is not seen in time.
    let observersName: String

    /// Runs the rounds: `write` commits `seq` (and sends it, on a network side); the timed rounds'
    /// latencies are added to `samples`.
    func run(into samples: inout LatencySamples, write: (Int64) throws -> Void) throws {
        for round in 1...(warmUp + timed) {
            let seq = Int64(round)
            barrier.expect(seq)
            let start = monotonicNanoseconds()
            try write(seq)
            let seen = try barrier.wait("\(observersName) waiting for write \(round)")
            if round > warmUp { samples.add(from: start, to: seen) }
        }
    }

    /// The local baseline: the same rounds on one local file, written by one instance and observed
    /// on `instances` others, each refreshed right after the commit (what a host does to deliver a
    /// notification to another instance). `percentile` of the timed rounds is the figure.
    static func localSide(
        _ context: BenchContext, instances: Int, warmUp: Int, timed: Int, percentile: Double
    ) throws -> PreparedRun {
        let configuration = Realm.Configuration(fileURL: context.freshURL("observe-local"), schema: NetBench.schema())
        let writer = try Realm(configuration: configuration)
        let readers = try (0..<instances).map { _ in try Realm(configuration: configuration) }
        let rounds = ProbeRounds(
            warmUp: warmUp, timed: timed, barrier: ObservationBarrier(observers: instances),
            observersName: "\(instances) observers of one local file")
        let tokens = try readers.enumerated().map { index, reader in
            try reader.observe { _, realm in
                if let seq = NetBench.probeSeq(realm) { rounds.barrier.observed(seq, by: index) }
            }
        }
        var samples = LatencySamples()
        return PreparedRun(
            run: {
                try rounds.run(into: &samples) { seq in
                    try writer.write {
                        _ = try writer.create(
                            "Probe", value: ["_id": .string(NetBench.probeID), "seq": .int(seq)], update: .modified)
                    }
                    for reader in readers { reader.refresh() }
                }
                return Int64(timed)
            },
            check: { _ in Int64(samples.nanoseconds.count) },
            figure: {
                context.log("\(rounds.observersName): \(samples.summary)")
                return samples.percentile(percentile)
            },
            release: { for token in tokens { token.invalidate() } })
    }

    /// The network side: `writer` (session 1 of `writerHost`) writes, and the observers on
    /// `observed` (registered here, as observers 0, 1, …) must all read it.
    static func networkSide(
        _ net: NetBenchRun, writer: SharedSyncEndpoint<SyncClient>, writerHost: SyncNetClient,
        observed: [SharedSyncEndpoint<SyncClient>], warmUp: Int, timed: Int, percentile: Double
    ) throws -> PreparedRun {
        let observers = ReplicaObservers()
        let rounds = ProbeRounds(
            warmUp: warmUp, timed: timed, barrier: ObservationBarrier(observers: observed.count),
            observersName: "the observers of \(observed.count) replicas")
        do {
            for (index, replica) in observed.enumerated() {
                try observers.observe(replica, as: index, barrier: rounds.barrier, value: NetBench.probeSeq)
            }
        } catch {
            observers.invalidate()
            throw error
        }
        var samples = LatencySamples()
        return PreparedRun(
            run: {
                try rounds.run(into: &samples) { seq in
                    try NetBench.writeProbe(writer, seq: seq)
                    // What a tenant's session does after each commit.
                    Task { await writerHost.flush(session: 1) }
                }
                return Int64(timed)
            },
            check: { _ in Int64(samples.nanoseconds.count) },
            figure: {
                net.context.log("\(rounds.observersName): \(samples.summary)")
                return samples.percentile(percentile)
            },
            release: {
                observers.invalidate()
                net.stop()
            })
    }
}
