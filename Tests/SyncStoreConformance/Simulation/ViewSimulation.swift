import Foundation
import RealmDatabase
import RealmSync
import RealmTestSupport

/// One run of the deterministic simulation with views and rules (issue 16, "Prove it"): part 1's
/// replicas, transport, faults and crashes, but 3 users owning 2–8 replicas, random read/write
/// rules per seed, every replica in `.subscriptions` mode with random sets that change over time,
/// and the audit tap (`AuditingServer`, `ViewAudit`) on everything the server sends and stores.
final class ViewSimulation {
    struct Failure: Error, CustomStringConvertible {
        let seed: UInt64
        let what: String
        var description: String { "seed \(seed): \(what) (replay: SYNC_VIEW_SIMULATION_SEED=\(seed))" }
    }

    struct Figures {
        var base = Simulation.Figures()
        var subscriptionSets = 0, refusedSets = 0, refusedLocalWrites = 0, compensatingWrites = 0
        var auditedObjects = 0
    }

    /// One replica: its user, its workload, its client and the subscription sets it committed.
    private struct Replica {
        let user: String
        let skew: Int64
        var workload: Workload
        var endpoint: AuditedReplica
        /// Every committed version: its queries, and whether the server must refuse it.
        var sets: [Int64: (queries: [SubscriptionQuery], refused: Bool)] = [0: ([], false)]
        /// Each committed version's set as it was committed (they outlive the client's crashes).
        var committed: [SubscriptionSet] = []
        var client: SyncClient { endpoint.client }
    }

    let seed: UInt64
    let folder: URL
    let place: TestStorePlace
    private var random: SplitMix64
    private let time = SimulatedTime(start: 1_790_000_000_000)
    private var schema: Schema { audit.schema }
    private let classes = SimulationSchema.syncedClasses.sorted()
    private let audit: ViewAudit
    private var server: AuditingServer
    private let transport: InMemoryTransport
    private var replicas: [Replica] = []
    private(set) var figures = Figures()

    /// How many servers share the store (`SharedStoreCluster`); 1: one `SyncServer`, as deployed on SQLite.
    private let serverCount: Int

    init(seed: UInt64, folder: URL, place: TestStorePlace, servers: Int = 1) throws {
        self.seed = seed
        self.folder = folder
        self.place = place
        serverCount = servers
        var setup = SplitMix64(seed: seed)
        let schema = SimulationSchema.viewSchema
        let permissions = try SyncPermissions.compile(SimulationRules.rules(&setup), schema: schema)
        random = setup
        audit = ViewAudit(schema: schema, permissions: permissions)
        var serverRandom = SplitMix64(seed: seed ^ 0x5E4E_4E11)
        server = try Self.makeServer(
            place: place, time: time, audit: audit, count: servers, seed: seed, salts: { serverRandom.next() })
        var schedulerRandom = SplitMix64(seed: seed ^ 0x7A45_9072)
        transport = InMemoryTransport(server: server, random: { schedulerRandom.next() })
        let count = 2 + number(7)
        figures.base.replicas = count
        for index in 0..<count {
            let user = SimulationRules.users[number(SimulationRules.users.count)]
            let skew = Int64(number(4001)) - 2000
            let workload = Workload(seed: random.next())
            let record = AuditedReplica.Record()
            let endpoint = AuditedReplica(
                try Self.openClient(index, user: user, skew: skew, folder: folder, time: time, record: record),
                record: record)
            replicas.append(Replica(user: user, skew: skew, workload: workload, endpoint: endpoint))
            try changeSubscriptions(index)
            transport.addClient(endpoint)
        }
    }

    private static func makeServer(
        place: TestStorePlace, time: SimulatedTime, audit: ViewAudit, count: Int, seed: UInt64,
        inbox: [UInt64: [UInt64: OracleWriter]]? = nil, salts: @escaping () -> UInt64
    ) throws -> AuditingServer {
        let options = SyncServerOptions(bootstrapBatchSize: 7, downloadBatchSize: 5)
        let clock = SkewedClock(time: time, skew: 0)
        if count > 1 {
            var election = SplitMix64(seed: seed ^ 0xC1_0573)
            let cluster = try SharedStoreCluster.make(
                count: count, open: { try place.open(historySalt: 42, schema: audit.schema) }, schema: audit.schema,
                wallClock: clock, options: options,
                permissions: audit.permissions, salts: salts, random: { election.next() })
            return AuditingServer(cluster, state: cluster.state, audit: audit, inbox: inbox ?? [:])
        }
        let store = try place.open(historySalt: 42, schema: audit.schema)
        let server = try SyncServer(
            store: store, schema: audit.schema, wallClock: clock, options: options, permissions: audit.permissions,
            salts: salts)
        return AuditingServer(server, state: server.state, audit: audit)
    }

    private static func openClient(
        _ index: Int, user: String, skew: Int64, folder: URL, time: SimulatedTime, record: AuditedReplica.Record
    ) throws -> SyncClient {
        var configuration = Realm.Configuration(
            fileURL: folder.appendingPathComponent("replica-\(index).realm"), schema: SimulationSchema.viewSchema)
        configuration.schemaVersion = 1
        // A simulated crash is a process's: what SQLite handed the operating system stays.
        configuration.waitsForTheDisk = false
        return try SyncClient(
            configuration: configuration, user: user, wallClock: SkewedClock(time: time, skew: skew),
            viewSource: .subscriptions, errorHandler: { _, writes in record.handled += writes })
    }

    private func number(_ bound: Int) -> Int { Int(random.next() % UInt64(max(bound, 1))) }

    // MARK: Running

    /// `steps` random steps, then everyone online until nothing is in flight, then the checks.
    func run(steps: Int) throws {
        for _ in 0..<steps {
            try step()
            figures.base.steps += 1
        }
        try quiesce()
        try checkConvergence()
    }

    private func step() throws {
        time.advance(by: UInt64(number(4)))
        let roll = number(1000)
        if roll < 250 {
            try commit(number(replicas.count))
        } else if roll < 275 {
            try changeSubscriptions(number(replicas.count))
        } else if roll < 285 {
            try writeUnsubscribed(number(replicas.count))
        } else if roll < 297 {
            try crashClient(number(replicas.count))
        } else if roll < 301 {
            try crashServer()
        } else {
            let faults = InMemoryTransport.Faults(duplicateUploadPercent: 4, dropPercent: 2)
            if case .deliveredToClient(let index) = try transport.step(faults: faults) {
                try checkAtomicity(index)
            }
        }
        try checkNoErrors()
    }

    /// A workload commit on the classes the replica's latest set subscribes to.
    private func commit(_ index: Int) throws {
        let subscribed = Set(try replicas[index].client.realm.subscriptions.map(\.objectClassName))
        let scope = WorkloadScope(
            user: replicas[index].user, users: SimulationRules.users, writesItems: subscribed.contains("Item"),
            writesEntries: subscribed.contains("Entry"))
        guard scope.writesItems || scope.writesEntries else { return }
        figures.base.commits += 1
        try replicas[index].workload.commit(
            on: replicas[index].client.realm, named: "r\(index)-c\(figures.base.commits)", scope: scope)
        transport.flushUploads(index)
    }

    /// A new subscription set, committed through `realm.subscriptions.update`.
    private func changeSubscriptions(_ index: Int) throws {
        let queries = SimulationRules.subscriptions(&random, refusedPercent: 8)
        let realm = replicas[index].client.realm
        try realm.subscriptions.update { set in
            try set.removeAll()
            for query in queries { try set.append(QuerySubscription(className: query.className, query: query.query)) }
        }
        let committed = try realm.subscriptions
        let stored = committed.map { SubscriptionQuery(className: $0.objectClassName, query: $0.queryString) }
        let refused = stored.contains(SimulationRules.refusedQuery)
        replicas[index].sets[committed.version] = (stored, refused)
        replicas[index].committed.append(committed)
        figures.subscriptionSets += 1
        if refused { figures.refusedSets += 1 }
        transport.flushUploads(index)
    }

    /// A write to a class the latest set does not subscribe to: refused before it is committed, and
    /// the realm unchanged.
    private func writeUnsubscribed(_ index: Int) throws {
        let realm = replicas[index].client.realm
        let subscribed = Set(try realm.subscriptions.map(\.objectClassName))
        guard let className = classes.first(where: { !subscribed.contains($0) }) else { return }
        let before = try realm.objects(className).count
        let key: RealmValue = className == "Item" ? .int(Int64(100 + number(100))) : .string("probe-\(number(100))")
        do {
            try realm.write { _ = try realm.create(className, value: .dictionary(["_id": key]), update: .modified) }
        } catch let error as RealmError where error.code == .subscription {
            figures.refusedLocalWrites += 1
            if try realm.objects(className).count != before {
                throw fail("replica \(index): a refused write to unsubscribed \(className) changed the realm")
            }
            return
        }
        throw fail("replica \(index): a write to \(className), which it does not subscribe to, was committed")
    }

    private func crashClient(_ index: Int) throws {
        figures.base.clientCrashes += 1
        let replica = replicas[index]
        let client = try Self.openClient(
            index, user: replica.user, skew: replica.skew, folder: folder, time: time, record: replica.endpoint.record)
        replicas[index].endpoint = AuditedReplica(client, record: replica.endpoint.record)
        transport.restartClient(index, as: replicas[index].endpoint)
    }

    private func crashServer() throws {
        figures.base.serverCrashes += 1
        var serverRandom = SplitMix64(seed: random.next())
        // What the inbox holds survives the servers: its writers go to the audit of the new ones.
        server = try Self.makeServer(
            place: place, time: time, audit: audit, count: serverCount, seed: random.next(),
            inbox: server.inboxWriters, salts: { serverRandom.next() })
        transport.restartServer(server)
    }

    private func quiesce() throws {
        for index in replicas.indices { transport.flushUploads(index) }
        for _ in 0..<20 {
            try transport.runUntilQuiescent(maxSteps: 2_000_000)
            try checkNoErrors()
            if replicas.allSatisfy({ !$0.client.hasUnacknowledgedChanges }) { break }
        }
        figures.base.transport = transport.statistics
    }

    // MARK: Checks

    private func fail(_ what: String) -> Failure { Failure(seed: seed, what: what) }

    private func checkNoErrors() throws {
        if let (client, error) = transport.clientErrors.first { throw fail("replica \(client) failed: \(error)") }
        if let violation = audit.violations.first { throw fail("audit: \(violation)") }
    }

    private func checkAtomicity(_ index: Int) throws {
        if let problem = try SimulationChecks.atomicityProblem(replicas[index].client.realm) {
            throw fail("replica \(index) \(problem)")
        }
    }

    private func checkConvergence() throws {
        let log = try server.state.integrationLog()
        figures.base.integratedChangesets = log.count
        figures.auditedObjects = audit.auditedObjects
        if let problem = SimulationChecks.logProblem(log) { throw fail(problem) }
        let serverState = try server.state.canonicalState(classes: classes)
        if serverState != audit.oracle.canonicalState {
            throw fail(
                "server differs from the permission oracle:\n"
                    + serverState.differences(from: audit.oracle.canonicalState).joined(separator: "\n"))
        }
        try checkCompensatingWrites()
        for index in replicas.indices {
            if replicas[index].client.hasUnacknowledgedChanges {
                throw fail(
                    "replica \(index) (file \(replicas[index].endpoint.record.fileID)) still has unacknowledged changes after quiescence"
                )
            }
            let active = try checkSubscriptionStates(index)
            try checkView(index, active: active, serverState: serverState)
            try checkAtomicity(index)
        }
    }

    /// The server sent exactly the compensating writes the oracle's checks call for, and each
    /// replica's error handler was told of exactly those delivered to it.
    private func checkCompensatingWrites() throws {
        let expected = Set(audit.oracle.refusals)
        figures.compensatingWrites = expected.count
        if expected != audit.sentCompensations {
            let missing = expected.subtracting(audit.sentCompensations).sorted().prefix(5)
            let extra = audit.sentCompensations.subtracting(expected).sorted().prefix(5)
            throw fail("compensating writes: not sent \(Array(missing)), sent without cause \(Array(extra))")
        }
        for (index, replica) in replicas.enumerated() {
            let record = replica.endpoint.record
            if record.handled != record.delivered {
                throw fail(
                    "replica \(index): its error handler got \(record.handled.count) compensating writes "
                        + "where \(record.delivered.count) were delivered")
            }
        }
    }

    /// Every set older than the active one (the last the server completed) reads `superseded`, and
    /// so do the ones between it and a refused latest; the active one reads `complete` (the latest
    /// when the server took it), a refused latest `error`. Returns the version the replica's view is
    /// built from.
    private func checkSubscriptionStates(_ index: Int) throws -> Int64 {
        let replica = replicas[index]
        let latest = try replica.client.realm.subscriptions
        let completed = try replica.client.realm.subscriptionProgress().complete
        for set in replica.committed where set.version < latest.version {
            let expected: SubscriptionState = set.version == completed ? .complete : .superseded
            if set.state != expected {
                throw fail("replica \(index): subscription set \(set.version) is \(set.state), not \(expected)")
            }
        }
        let refused = replica.sets[latest.version]?.refused ?? false
        let expected: SubscriptionState = refused ? .error : .complete
        if latest.state != expected {
            throw fail(
                "replica \(index): its latest subscription set \(latest.version) is \(latest.state), not \(expected)")
        }
        let active = try replica.client.realm.subscriptionProgress().complete
        if !refused && active != latest.version {
            throw fail("replica \(index): set \(active) is active, not the latest, \(latest.version)")
        }
        if replica.sets[active]?.refused ?? true {
            throw fail("replica \(index): the active set \(active) is one the server refuses, or unknown")
        }
        return active
    }

    /// The replica holds exactly the server's objects in its view: its active set's queries within
    /// its user's read rules, on the oracle's state (equal to the server's).
    private func checkView(_ index: Int, active: Int64, serverState: CanonicalState) throws {
        let replica = replicas[index]
        let queries = QuerySet(version: active, subscriptions: replica.sets[active]?.queries ?? [])
        guard let subscriptions = audit.subscriptions(of: queries) else {
            throw fail("replica \(index): its active set \(active) does not compile")
        }
        let expected = CanonicalState(
            objects: serverState.objects.filter {
                audit.oracle.isInView($0.key, subscriptions: subscriptions, user: replica.user)
            })
        let state = try replica.client.canonicalState()
        if state != expected {
            throw fail(
                "replica \(index) (\(replica.user), file \(replica.endpoint.record.fileID), set \(active): \(queries.subscriptions.map(\.query))) differs "
                    + "from the server's state in its view:\n"
                    + state.differences(from: expected).joined(separator: "\n") + "\n"
                    + explanation(of: state, expected, replica.user, delivered: replica.endpoint.record.delivered))
        }
    }

    /// For a failure: how the server and the rules stand on each object that differs.
    private func explanation(
        of state: CanonicalState, _ expected: CanonicalState, _ user: String, delivered: [CompensatingWrite]
    ) -> String {
        let differing = Set(state.objects.keys).union(expected.objects.keys).filter {
            state.objects[$0] != expected.objects[$0]
        }
        return differing.sorted().prefix(5).map { ref in
            let refusals = audit.oracle.refusals.filter { $0.object == ref }.map {
                "\($0.clientFileID)@\($0.serverVersion)"
            }
            let creator = audit.oracle.objects[ref]?.creator ?? "-"
            return "\(ref): on the server \(audit.oracle.objects[ref] == nil ? "absent" : "present"), created by "
                + "\(creator), readable by \(user): \(audit.oracle.isReadable(ref, by: user)), refused writes \(refusals), "
                + "compensating writes delivered here \(delivered.filter { $0.object == ref }.map(\.serverVersion))\n"
                + history(of: ref)
        }.joined(separator: "\n")
    }

    /// For a failure: each changeset that wrote `ref`, its instructions as uploaded and as kept.
    private func history(of ref: ObjectRef) -> String {
        guard let log = try? server.state.integrationLog(),
            let kept = try? server.state.history(after: 0, limit: 1_000_000)
        else { return "" }
        return zip(log, kept).compactMap { entry, keptEntry in
            let written = entry.changeset.instructions.filter { $0.object == ref }
            guard !written.isEmpty else { return nil }
            let stood = keptEntry.kept.instructions.filter { $0.object == ref }
            return "  v\(entry.serverVersion) file \(entry.changeset.clientFileID) based on "
                + "\(entry.changeset.basedOnServerVersion): \(written) kept \(stood)"
        }.joined(separator: "\n")
    }
}
