import Foundation
import RealmDatabase
import RealmSync
import RealmSyncNet

/// `sync_idle_session`: the resident memory one idle session costs the sync server. The server runs
/// in this process on 127.0.0.1; each session is a peer of its own (a WebSocket of its own, a user
/// of its own, as from separate hosts) speaking the wire protocol: a bind with its token, the
/// identify of a fresh file subscribed to every `Probe`, a mark answered, then silence. After 50
/// peers as a warm-up, the heap in use is read, `size` more peers are opened, it is read again; the
/// figure is the difference over `size`, in KB (the RSS's is logged beside it: it misses the pages
/// malloc reuses after earlier workloads, which made the engine's figure 0). The peers' own ends of
/// the connections are in the same process, so the figure is an upper bound of the server's share. The issue's target is
/// ≤ 100 KB per idle session. Against the same sessions bound, identified and marked on the engine
/// alone (`SyncServer.receive`, a connection id each, no network): what the network layer adds.
struct SyncIdleSession: Workload {
    let name = "sync_idle_session"
    /// The issue's 100 KB over the engine's 0.25–0.5 KB per session here (as `sync_bootstrap`'s ratio
    /// target): the network's connection, not the engine's session, is what an idle session costs.
    let target = 400.0
    static let maxKilobytes = 100.0
    static let warmUpSessions = 50

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let sessions = context.scaled(500, minimum: 10)
        let warmUp = min(Self.warmUpSessions, sessions)
        return [
            Comparison(
                name: name, target: target, baseline: "the engine alone, no network", size: sessions,
                warmUpSize: nil, maxFigure: Self.maxKilobytes, unit: .kilobytes,
                ours: { size in try Self.networkSide(context, sessions: size, warmUp: warmUp) },
                raw: { size in try Self.engineSide(context, sessions: size, warmUp: warmUp) })
        ]
    }

    /// The heap in use and the RSS, read together.
    struct MemoryReading {
        let heap: Int
        let resident: Int?

        init() throws {
            guard let heap = Memory.heapInUseBytes else {
                throw WorkloadSkipped(reason: "the heap in use cannot be read (glibc's mallinfo2)")
            }
            self.heap = heap
            resident = Memory.currentBytes
        }

        /// The heap's growth since `start` over `sessions`, in KB each; the RSS's growth is logged
        /// beside it (it misses the pages malloc reuses, so it is not the figure).
        func kilobytesEach(
            since start: MemoryReading, sessions: Int, _ context: BenchContext, side: String,
            row: String = "sync_idle_session", each what: String = "session"
        ) -> RunFigure {
            let each = { (grown: Int) in Double(max(0, grown)) / 1024 / Double(max(1, sessions)) }
            if let resident, let before = start.resident {
                context.log(
                    String(
                        format: "%@ %@: %.1f KB of heap and %.1f KB of RSS per %@", row, side,
                        each(heap - start.heap), each(resident - before), what))
            }
            return RunFigure(value: each(heap - start.heap), events: sessions)
        }
    }

    // MARK: Ours

    static func networkSide(_ context: BenchContext, sessions: Int, warmUp: Int) throws -> PreparedRun {
        let net = try NetBenchRun(context, maxConnections: warmUp + sessions + 16)
        let peers = IdlePeers(url: net.url)
        let release = {
            net.stop()
            peers.stop()
        }
        do {
            try peers.open(warmUp, first: 0)
            var figure: RunFigure?
            return PreparedRun(
                run: {
                    let start = try MemoryReading()
                    try peers.open(sessions, first: warmUp)
                    figure = try MemoryReading().kilobytesEach(since: start, sessions: sessions, context, side: "ours")
                    return Int64(sessions)
                },
                figure: { try figure.unwrapped("the network side measured no memory") }, release: release)
        } catch {
            release()
            throw error
        }
    }

    // MARK: Baseline

    static func engineSide(_ context: BenchContext, sessions: Int, warmUp: Int) throws -> PreparedRun {
        let engine = try SyncServer(
            store: try SQLiteSyncStore(path: context.freshURL("idle-engine-store").path, schema: NetBench.schema()),
            schema: NetBench.schema(), wallClock: SystemWallClock(), salts: { UInt64.random(in: 1...UInt64.max) })
        try (0..<warmUp).forEach { try bind(engine, connection: $0) }
        var figure: RunFigure?
        return PreparedRun(
            run: {
                let start = try MemoryReading()
                for connection in warmUp..<(warmUp + sessions) { try bind(engine, connection: connection) }
                figure = try MemoryReading().kilobytesEach(since: start, sessions: sessions, context, side: "engine")
                return Int64(sessions)
            }, figure: { try figure.unwrapped("the engine side measured no memory") })
    }

    /// What an idle peer does, on the engine: bind (a new file), identify, a mark answered.
    static func bind(_ engine: SyncServer, connection index: Int) throws {
        let connection = ConnectionID(rawValue: UInt64(index) + 1)
        let replies = engine.receive(.bind(session: 1, user: "idle\(index)", needsClientFileID: true), on: connection)
        guard case .ident(_, let fileID, let salt)? = replies.first?.message else {
            throw WorkloadSkipped(reason: "the engine allocated no client file id: \(replies)")
        }
        _ = engine.receive(
            .identify(
                session: 1, clientFileID: fileID, salt: salt, downloadCursor: 0, query: .allObjects(of: ["Probe"])),
            on: connection)
        let marked = engine.receive(.mark(session: 1, requestID: 1), on: connection)
        guard marked.contains(where: { if case .mark = $0.message { true } else { false } }) else {
            throw WorkloadSkipped(reason: "the engine did not answer session \(index)'s mark: \(marked)")
        }
    }
}

extension Optional {
    /// The value, or a workload failure saying `what` is missing.
    func unwrapped(_ what: String) throws -> Wrapped {
        guard let value = self else { throw WorkloadSkipped(reason: what) }
        return value
    }
}
