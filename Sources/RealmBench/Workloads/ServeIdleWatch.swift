import Foundation
import RealmDatabase
import RealmServe

/// `serve_idle_watch`: the heap one idle watch costs `realm-host serve` (docs/SERVE.md: ≤ 50 KB).
/// A served host with 50 users whose tenants are open; after 20 watches as a warm-up, the heap in
/// use is read, `size` more WebSockets are opened, each with one watch (`Item` where `id == 1`,
/// users in turn) whose initial results arrived, and the heap is read again: the growth over `size`.
/// The clients are another process (`WatchClientsProcess`): the heap read is the host's alone.
/// Against the same number of WebSockets on the same route that watch nothing: what a watch adds to
/// an idle connection.
struct ServeIdleWatch: Workload {
    let name = "serve_idle_watch"
    /// A watch (its observer, queue and objects) over a bare socket: loose, the absolute bound is
    /// the target that counts.
    let target = 4.0
    static let maxKilobytes = 50.0
    static let users = 50
    static let warmUp = 20

    func comparisons(_ context: BenchContext) throws -> [Comparison] {
        let watches = context.scaled(500, minimum: 10)
        return [
            Comparison(
                name: name, target: target, baseline: "the same WebSockets, no watch", size: watches,
                warmUpSize: nil, maxFigure: Self.maxKilobytes, unit: .kilobytes,
                ours: { size in try Self.side(context, sockets: size, watching: true) },
                raw: { size in try Self.side(context, sockets: size, watching: false) })
        ]
    }

    static func side(_ context: BenchContext, sockets: Int, watching: Bool) throws -> PreparedRun {
        let (server, port, tokens) = try ServeCalls.startServe(context, users: users)
        let stopServe = { _ = try? awaitBlocking("stopping serve") { await server.stop() } }
        let clients: WatchClientsProcess
        do {
            clients = try WatchClientsProcess(port: port, tokens: tokens, watching: watching, folder: context.folder)
        } catch {
            stopServe()
            throw error
        }
        let release = {
            clients.stop()
            stopServe()
        }
        do {
            try clients.open(0..<warmUp)
            var figure: RunFigure?
            return PreparedRun(
                run: {
                    let start = try SyncIdleSession.MemoryReading()
                    try clients.open(warmUp..<(warmUp + sockets))
                    figure = try SyncIdleSession.MemoryReading().kilobytesEach(
                        since: start, sessions: sockets, context, side: watching ? "ours" : "bare sockets",
                        row: "serve_idle_watch", each: "watch")
                    return Int64(sockets)
                },
                figure: { try figure.unwrapped("no memory was measured") }, release: release)
        } catch {
            release()
            throw error
        }
    }
}
