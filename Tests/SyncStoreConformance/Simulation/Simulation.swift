import Foundation
import RealmDatabase
import RealmSync
import RealmTestSupport

/// One run of the deterministic simulation (docs/SYNC.md, "The simulation"): 2–8 replicas, real
/// realm files in a temporary folder, one server on a store of the test's `TestStorePlace` (SQLite, or
/// PostgreSQL in RealmSyncPostgresTests), an in-memory transport whose
/// seeded scheduler delays, reorders across connections, duplicates uploads and drops connections,
/// and crashes of clients and of the server. Everything random comes from the seed, so a failing
/// seed replays exactly.
final class Simulation {
    struct Failure: Error, CustomStringConvertible {
        let seed: UInt64
        let what: String
        var description: String { "seed \(seed): \(what) (replay: SYNC_SIMULATION_SEED=\(seed))" }
    }

    /// What a run did, for the figures in docs/SYNC.md.
    struct Figures {
        var replicas = 0, commits = 0, steps = 0, clientCrashes = 0, serverCrashes = 0
        var transport = InMemoryTransport.Statistics()
        var integratedChangesets = 0
    }

    let seed: UInt64
    let folder: URL
    let place: TestStorePlace
    private var random: SplitMix64
    private let time = SimulatedTime(start: 1_790_000_000_000)
    private var workloads: [Workload] = []
    private var clients: [SyncClient] = []
    private var skews: [Int64] = []
    private var server: (endpoint: any SyncServerEndpoint, state: ServerState)
    private let transport: InMemoryTransport
    private(set) var figures = Figures()
    private let schema = SimulationSchema.schema
    private let classes = SimulationSchema.syncedClasses.sorted()

    /// How many servers share the store (`SharedStoreCluster`); 1: one `SyncServer`.
    private let serverCount: Int

    init(seed: UInt64, folder: URL, place: TestStorePlace, servers: Int = 1) throws {
        self.seed = seed
        self.folder = folder
        self.place = place
        serverCount = servers
        random = SplitMix64(seed: seed)
        var serverRandom = SplitMix64(seed: seed ^ 0x5E4E_4E11)
        server = try Self.makeServer(
            place: place, time: time, count: servers, seed: seed, salts: { serverRandom.next() })
        var schedulerRandom = SplitMix64(seed: seed ^ 0x7A45_9072)
        transport = InMemoryTransport(server: server.endpoint, random: { schedulerRandom.next() })
        let replicaCount = 2 + number(7)
        figures.replicas = replicaCount
        for index in 0..<replicaCount {
            skews.append(Int64(number(4001)) - 2000)
            workloads.append(Workload(seed: random.next()))
            clients.append(try openClient(index))
            transport.addClient(clients[index])
        }
    }

    /// The server, or `count` servers on one store, and the state they share.
    private static func makeServer(
        place: TestStorePlace, time: SimulatedTime, count: Int, seed: UInt64, salts: @escaping () -> UInt64
    ) throws -> (endpoint: any SyncServerEndpoint, state: ServerState) {
        let options = SyncServerOptions(bootstrapBatchSize: 7, downloadBatchSize: 5)
        let clock = SkewedClock(time: time, skew: 0)
        if count > 1 {
            var election = SplitMix64(seed: seed ^ 0xC1_0573)
            let cluster = try SharedStoreCluster.make(
                count: count, open: { try place.open(historySalt: 42, schema: SimulationSchema.schema) },
                schema: SimulationSchema.schema, wallClock: clock, options: options,
                salts: salts, random: { election.next() })
            return (cluster, cluster.state)
        }
        let store = try place.open(historySalt: 42, schema: SimulationSchema.schema)
        let server = try SyncServer(
            store: store, schema: SimulationSchema.schema, wallClock: clock, options: options, salts: salts)
        return (server, server.state)
    }

    private func openClient(_ index: Int) throws -> SyncClient {
        var configuration = Realm.Configuration(
            fileURL: folder.appendingPathComponent("replica-\(index).realm"), schema: schema)
        configuration.schemaVersion = 1
        // A simulated crash is a process's: what SQLite handed the operating system stays.
        configuration.waitsForTheDisk = false
        return try SyncClient(
            configuration: configuration, user: "user\(index)", wallClock: SkewedClock(time: time, skew: skews[index]))
    }

    private func number(_ bound: Int) -> Int { Int(random.next() % UInt64(max(bound, 1))) }

    // MARK: Running

    /// `steps` random steps, then everyone online until nothing is in flight, then the checks.
    func run(steps: Int) throws {
        for _ in 0..<steps {
            try step()
            figures.steps += 1
        }
        try quiesce()
        try checkConvergence()
    }

    private func step() throws {
        time.advance(by: UInt64(number(4)))
        let roll = number(1000)
        if roll < 250 {
            let index = number(clients.count)
            figures.commits += 1
            try workloads[index].commit(on: clients[index].realm, named: "r\(index)-c\(figures.commits)")
            transport.flushUploads(index)
        } else if roll < 262 {
            try crashClient(number(clients.count))
        } else if roll < 266 {
            try crashServer()
        } else {
            let faults = InMemoryTransport.Faults(duplicateUploadPercent: 4, dropPercent: 2)
            if case .deliveredToClient(let index) = try transport.step(faults: faults) {
                try checkAtomicity(index)
            }
        }
        try checkNoClientErrors()
    }

    /// A client process dies: its in-memory state is gone; a new one opens the same file.
    private func crashClient(_ index: Int) throws {
        figures.clientCrashes += 1
        clients[index] = try openClient(index)
        transport.restartClient(index, as: clients[index])
    }

    /// The server process dies: uploads received but not integrated are lost with it; a new server
    /// opens the same store.
    private func crashServer() throws {
        figures.serverCrashes += 1
        var serverRandom = SplitMix64(seed: random.next())
        server = try Self.makeServer(
            place: place, time: time, count: serverCount, seed: random.next(), salts: { serverRandom.next() })
        transport.restartServer(server.endpoint)
    }

    private func quiesce() throws {
        for index in clients.indices { transport.flushUploads(index) }
        // Several rounds: a round ends when nothing is in flight; uploads made visible by its
        // acknowledgements go in the next.
        for _ in 0..<20 {
            try transport.runUntilQuiescent(maxSteps: 2_000_000)
            try checkNoClientErrors()
            if clients.allSatisfy({ !$0.hasUnacknowledgedChanges }) { break }
        }
        figures.transport = transport.statistics
    }

    // MARK: Checks

    private func fail(_ what: String) -> Failure { Failure(seed: seed, what: what) }

    private func checkNoClientErrors() throws {
        if let (client, error) = transport.clientErrors.first {
            throw fail("replica \(client) failed: \(error)")
        }
    }

    /// Every commit is visible atomically: a replica never holds part of another commit's entries.
    private func checkAtomicity(_ index: Int) throws {
        if let problem = try SimulationChecks.atomicityProblem(clients[index].realm) {
            throw fail("replica \(index) \(problem)")
        }
    }

    private func checkConvergence() throws {
        for index in clients.indices {
            if clients[index].hasUnacknowledgedChanges {
                throw fail("replica \(index) still has unacknowledged changes after quiescence")
            }
        }
        let serverState = try server.state.canonicalState(classes: classes)
        let log = try server.state.integrationLog()
        figures.integratedChangesets = log.count
        if let problem = SimulationChecks.logProblem(log) { throw fail(problem) }
        let oracleState = try Oracle.state(schema: schema, log: log)
        if oracleState != serverState {
            throw fail(
                "server differs from the oracle:\n" + serverState.differences(from: oracleState).joined(separator: "\n")
            )
        }
        for index in clients.indices {
            let replica = try clients[index].canonicalState()
            if replica != serverState {
                throw fail(
                    "replica \(index) differs from the server:\n"
                        + replica.differences(from: serverState).joined(separator: "\n"))
            }
            try checkAtomicity(index)
        }
    }
}
