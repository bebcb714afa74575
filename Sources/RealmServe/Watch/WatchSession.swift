import Foundation
import RealmDatabase
import RealmHost
import Synchronization

/// One `/v1/watch` WebSocket: the live queries a client registered, each a `Results.observe` in the
/// user's tenant (so every commit that changes them, whoever made it, sends Realm's change indices
/// and the objects now in the results). Messages leave through a queue bounded in messages and in
/// bytes: the connection of a client that does not read them is closed, never buffered without end.
final class WatchSession: Sendable {
    let user: String
    let lanes: TenantLanes
    let metrics: ServeMetrics
    let maxDepth: Int
    /// Outgoing text messages; finished once the socket must close (the queue overflowed).
    let outgoing: AsyncStream<String>.Continuation
    /// Watch id → the tenant's kept observer.
    private let observers = Mutex<[Int64: Int]>([:])
    /// Set when the client fell so far behind that its queue overflowed.
    let overflowed = Atomic<Bool>(false)
    /// Bytes sent to the queue and not written to the socket yet.
    private let queuedBytes = Atomic<Int>(0)
    let maxQueuedBytes: Int

    static let queueLimit = 1024

    /// Closes the connection at once (a write the client never reads would hold it forever).
    let abort: @Sendable () -> Void

    init(
        user: String, lanes: TenantLanes, metrics: ServeMetrics, maxDepth: Int, maxQueuedBytes: Int,
        outgoing: AsyncStream<String>.Continuation, abort: @escaping @Sendable () -> Void
    ) {
        self.maxQueuedBytes = maxQueuedBytes
        self.abort = abort
        self.user = user
        self.lanes = lanes
        self.metrics = metrics
        self.maxDepth = maxDepth
        self.outgoing = outgoing
    }

    /// Sends a message, or marks the session overflowed and ends the stream.
    func send(_ message: JSONValue) {
        let text = message.text()
        let queued = queuedBytes.add(text.utf8.count, ordering: .relaxed).newValue
        // One message of any size goes to an empty queue: the bound is on what a client leaves unread.
        if queued > maxQueuedBytes && queued > text.utf8.count {
            overflow()
            return
        }
        if case .dropped = outgoing.yield(text) { overflow() }
    }

    /// The socket's writer wrote a message.
    func written(_ text: String) { queuedBytes.subtract(text.utf8.count, ordering: .relaxed) }

    private func overflow() {
        guard !overflowed.exchange(true, ordering: .relaxed) else { return }
        outgoing.finish()
        abort()
    }

    func sendError(id: Int64?, _ error: ServeError) {
        var fields = [JSONValue.Field]()
        if let id { fields.append(JSONValue.Field("id", .int(id))) }
        send(.object(fields + (error.json[field: "error"].map { [JSONValue.Field("error", $0)] } ?? [])))
    }

    /// Handles one client text message.
    func receive(_ text: String) async {
        let request: WatchRequest
        do {
            request = try WatchRequest(text: text, maxDepth: maxDepth)
        } catch {
            sendError(id: nil, ServeError.from(error))
            return
        }
        switch request {
        case .watch(let id, let className, let query): await watch(id: id, className: className, query: query)
        case .unwatch(let id): await unwatch(id: id)
        }
    }

    private func watch(id: Int64, className: String, query: ObjectVerbs.Query) async {
        guard observers.withLock({ $0[id] == nil }) else {
            sendError(id: id, .badRequest("watch \(id) is already registered on this socket"))
            return
        }
        do {
            guard lanes.host.registry.api[className] != nil else {
                throw ServeError.forbidden("no plugin's api table names class '\(className)'")
            }
            let lanes = self.lanes
            let user = self.user
            let observer = try await lanes.run(user) { [self] session in
                try session.perform { tenant in
                    let realm = try tenant.appRealm()
                    let verbs = ObjectVerbs(realm: realm, className: className)
                    _ = try verbs.objectSchema()
                    let results = try verbs.results(query)
                    let token = try results.observe { [self] change in deliver(change, id: id) }
                    // Another instance's commit (a sync download) reaches this realm when its lane refreshes it.
                    realm.onCommitElsewhere {
                        lanes.schedule(user) { session in _ = try? session.perform { try $0.appRealm().refresh() } }
                    }
                    return tenant.keep(token)
                }
            }
            lanes.host.pin(user)
            observers.withLock { $0[id] = observer }
            metrics.watchOpened()
        } catch {
            sendError(id: id, ServeError.from(error))
        }
    }

    private func unwatch(id: Int64) async {
        guard let observer = observers.withLock({ $0.removeValue(forKey: id) }) else {
            sendError(id: id, .badRequest("no watch \(id) on this socket"))
            return
        }
        await release([observer])
    }

    /// Ends every watch of the socket (it closed).
    func close() async {
        let all = observers.withLock { o in
            defer { o.removeAll() }
            return Array(o.values)
        }
        await release(all)
    }

    private func release(_ ids: [Int]) async {
        guard !ids.isEmpty else { return }
        _ = try? await lanes.run(user) { session in
            try session.perform { tenant in for id in ids { tenant.release(observer: id) } }
        }
        for _ in ids {
            lanes.host.unpin(user)
            metrics.watchClosed()
        }
    }

    /// A change to a watched query, on the user's lane: the message for it.
    private func deliver(_ change: RealmCollectionChange, id: Int64) {
        // A socket being closed for falling behind gets nothing more (its results are not even encoded).
        guard !overflowed.load(ordering: .relaxed) else { return }
        do {
            switch change {
            case .initial(let results):
                send(.object([JSONValue.Field("id", .int(id)), JSONValue.Field("objects", try Self.objects(results))]))
            case .update(let results, let deletions, let insertions, let modifications):
                func indices(_ list: [Int]) -> JSONValue { .array(list.map { .int(Int64($0)) }) }
                send(
                    .object([
                        JSONValue.Field("id", .int(id)), JSONValue.Field("deletions", indices(deletions)),
                        JSONValue.Field("insertions", indices(insertions)),
                        JSONValue.Field("modifications", indices(modifications)),
                        JSONValue.Field("objects", try Self.objects(results)),
                    ]))
            case .error(let error):
                sendError(id: id, ServeError.from(error))
            }
        } catch {
            sendError(id: id, ServeError.from(error))
        }
    }

    private static func objects(_ results: Results) throws -> JSONValue {
        var objects = [JSONValue]()
        try results.forEach { objects.append(try ObjectVerbs.json($0)) }
        return .array(objects)
    }
}
