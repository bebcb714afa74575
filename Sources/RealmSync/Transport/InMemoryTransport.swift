/// A transport without a network for the simulation and the benchmarks: N client endpoints and one
/// server endpoint in one process. Each connection has two FIFO queues of ENCODED messages (every
/// message crosses `SyncMessageCodec`, so the simulation exercises the codec). A connection is
/// ordered like TCP; a seeded scheduler reorders only across connections, and can delay, duplicate
/// an upload and drop a connection at any message. Not thread-safe: one driver steps it.
public final class InMemoryTransport {
    /// One client endpoint and its connection (if up) with its queues.
    private struct Peer {
        var endpoint: any SyncClientEndpoint
        let session: UInt32
        var connection: ConnectionID?
        var toServer = MessageQueue()
        var toClient = MessageQueue()
    }

    /// What one scheduling step did.
    public enum Step: Hashable, Sendable {
        case deliveredToServer(client: Int)
        case deliveredToClient(client: Int)
        case integrated
        case duplicatedUpload(client: Int)
        case dropped(client: Int)
        case connected(client: Int)
    }

    /// Percentages of steps spent on faults when the scheduler picks at random.
    public struct Faults: Sendable {
        public var duplicateUploadPercent: Int
        public var dropPercent: Int
        public init(duplicateUploadPercent: Int = 0, dropPercent: Int = 0) {
            self.duplicateUploadPercent = duplicateUploadPercent
            self.dropPercent = dropPercent
        }
        public static let none = Faults()
    }

    public struct Statistics: Hashable, Sendable {
        public var delivered = 0, duplicated = 0, dropped = 0, lost = 0, bytes = 0
        public init() {}
    }

    private var server: any SyncServerEndpoint
    private let random: () -> UInt64
    private var peers: [Peer] = []
    /// A reconnection gets a new id, so the server never mistakes a new connection for an old one.
    private var nextConnection: UInt64 = 1
    public private(set) var statistics = Statistics()
    /// Errors client endpoints threw on receiving a message (each ended its connection).
    public private(set) var clientErrors: [(client: Int, error: any Error)] = []

    /// `random` drives every choice the scheduler makes (a seeded generator makes a run replayable).
    public init(server: any SyncServerEndpoint, random: @escaping () -> UInt64) {
        self.server = server
        self.random = random
    }

    /// Adds a client (disconnected); its index names it in every other call.
    @discardableResult
    public func addClient(_ endpoint: any SyncClientEndpoint, session: UInt32 = 1) -> Int {
        peers.append(Peer(endpoint: endpoint, session: session))
        return peers.count - 1
    }

    public var clientCount: Int { peers.count }

    public func isConnected(_ client: Int) -> Bool { peers.indices.contains(client) && peers[client].connection != nil }

    /// Messages waiting: to the server from `client`, and to `client` from the server.
    public func queued(_ client: Int) -> (toServer: Int, toClient: Int) {
        guard peers.indices.contains(client) else { return (0, 0) }
        return (peers[client].toServer.count, peers[client].toClient.count)
    }

    /// Every queue is empty: nothing is in flight.
    public var isQuiescent: Bool { peers.allSatisfy { $0.toServer.isEmpty && $0.toClient.isEmpty } }

    // MARK: - Explicit steps

    /// Opens a new connection for `client` and queues its opening messages. False if already up.
    @discardableResult
    public func connect(_ client: Int) -> Bool {
        guard peers.indices.contains(client), peers[client].connection == nil else { return false }
        peers[client].connection = ConnectionID(rawValue: nextConnection)
        nextConnection += 1
        asClient(client) { try peers[client].endpoint.connect(session: peers[client].session) }
        return true
    }

    /// Queues the uploads of `client`'s new local commits (nothing when disconnected).
    public func flushUploads(_ client: Int) {
        guard isConnected(client) else { return }
        asClient(client) { try peers[client].endpoint.pendingUploads() }
    }

    /// Runs one call into a client endpoint and queues what it sends; a thrown error is recorded and
    /// ends the connection, as a client that failed would close its socket.
    private func asClient(_ client: Int, _ call: () throws -> [SyncMessage]) {
        do {
            enqueueToServer(client, try call())
        } catch {
            clientErrors.append((client, error))
            drop(client)
        }
    }

    /// Delivers the next message from `client` to the server. False when its queue is empty. Throws
    /// only when a queued message does not decode (a codec bug: the transport encoded it).
    @discardableResult
    public func deliverToServer(from client: Int) throws -> Bool {
        guard isConnected(client), let connection = peers[client].connection,
            let bytes = peers[client].toServer.pop()
        else { return false }
        let message = try SyncMessageCodec.decode(bytes)
        statistics.delivered += 1
        route(server.receive(message, on: connection))
        return true
    }

    /// Delivers the next message from the server to `client`; a client error drops the connection.
    @discardableResult
    public func deliverToClient(_ client: Int) throws -> Bool {
        guard isConnected(client), let bytes = peers[client].toClient.pop() else { return false }
        let message = try SyncMessageCodec.decode(bytes)
        statistics.delivered += 1
        asClient(client) { try peers[client].endpoint.receive(message) }
        return true
    }

    /// Lets the server integrate what it received, and queues what it sends.
    public func integrate() { route(server.integratePending()) }

    /// Delivers the next upload of `client` twice (as a client resending after a lost ack would).
    /// False when the next message to the server is not an upload.
    @discardableResult
    public func duplicateNextUpload(from client: Int) -> Bool {
        guard isConnected(client), let bytes = peers[client].toServer.peek(),
            case .upload = try? SyncMessageCodec.decode(bytes)
        else { return false }
        peers[client].toServer.pushFront(bytes)
        statistics.duplicated += 1
        return true
    }

    /// Cuts `client`'s connection: both queues are emptied (the messages are lost), both ends told.
    public func drop(_ client: Int) {
        guard isConnected(client), let connection = peers[client].connection else { return }
        statistics.dropped += 1
        cut(client)
        server.disconnect(connection)
    }

    /// `client`'s process crashed and restarted as `endpoint` (on the same file): its connection is
    /// cut (the server is told, as a socket closing would tell it), and the old endpoint is gone.
    public func restartClient(_ client: Int, as endpoint: any SyncClientEndpoint) {
        guard peers.indices.contains(client) else { return }
        drop(client)
        peers[client].endpoint = endpoint
    }

    /// The server process crashed and restarted as `server` (on the same store): every connection is
    /// cut, messages in flight are lost, and the old server, with what it had not integrated, is gone
    /// without being told. Clients learn it as a dropped connection.
    public func restartServer(_ server: any SyncServerEndpoint) {
        for client in peers.indices where isConnected(client) { cut(client) }
        self.server = server
    }

    /// Ends `client`'s connection on the client's side: its queued messages are lost, it is told.
    private func cut(_ client: Int) {
        statistics.lost += peers[client].toServer.count + peers[client].toClient.count
        peers[client].toServer.removeAll()
        peers[client].toClient.removeAll()
        peers[client].connection = nil
        peers[client].endpoint.disconnect()
    }

    // MARK: - The scheduler

    /// One step chosen at random among what can happen now: a delivery on any non-empty queue (the
    /// order across connections is the generator's), a server integration, a reconnection, or a
    /// fault as often as `faults` asks. Nil when nothing can happen.
    @discardableResult
    public func step(faults: Faults = .none) throws -> Step? {
        let connected = peers.indices.filter { isConnected($0) }
        if !connected.isEmpty, percent() < faults.dropPercent {
            let client = connected[below(connected.count)]
            drop(client)
            return .dropped(client: client)
        }
        let uploading = connected.filter { !peers[$0].toServer.isEmpty }
        if !uploading.isEmpty, percent() < faults.duplicateUploadPercent {
            let client = uploading[below(uploading.count)]
            if duplicateNextUpload(from: client) { return .duplicatedUpload(client: client) }
        }
        var choices: [Step] = uploading.map { .deliveredToServer(client: $0) }
        choices += connected.filter { !peers[$0].toClient.isEmpty }.map { .deliveredToClient(client: $0) }
        choices += peers.indices.filter { !isConnected($0) }.map { .connected(client: $0) }
        choices.append(.integrated)
        let choice = choices[below(choices.count)]
        switch choice {
        case .deliveredToServer(let client): try deliverToServer(from: client)
        case .deliveredToClient(let client): try deliverToClient(client)
        case .connected(let client): connect(client)
        case .integrated: integrate()
        case .duplicatedUpload, .dropped: break
        }
        return choice
    }

    /// Connects every client and runs fault-free steps until nothing is in flight and an integration
    /// sends nothing more. Returns the steps taken; throws `SyncError(.otherError)` past `maxSteps`.
    @discardableResult
    public func runUntilQuiescent(maxSteps: Int = 1_000_000) throws -> Int {
        for client in peers.indices {
            connect(client)
            flushUploads(client)
        }
        var steps = 0
        while steps < maxSteps {
            if isQuiescent {
                integrate()
                if isQuiescent { return steps }
            }
            try step()
            steps += 1
        }
        throw SyncError(.otherError, "in-memory transport: not quiescent after \(maxSteps) steps")
    }

    // MARK: - Plumbing

    private func enqueueToServer(_ client: Int, _ messages: [SyncMessage]) {
        for message in messages {
            let bytes = SyncMessageCodec.encode(message)
            statistics.bytes += bytes.count
            peers[client].toServer.push(bytes)
        }
    }

    /// Queues each server message on its connection's client; a message for a connection that is
    /// gone is lost, as on a closed socket.
    private func route(_ deliveries: [Outgoing]) {
        for delivery in deliveries {
            guard let client = peers.firstIndex(where: { $0.connection == delivery.connection }) else {
                statistics.lost += 1
                continue
            }
            let bytes = SyncMessageCodec.encode(delivery.message)
            statistics.bytes += bytes.count
            peers[client].toClient.push(bytes)
        }
    }

    private func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(truncatingIfNeeded: random() % UInt64(n)) }

    private func percent() -> Int { below(100) }
}

/// A FIFO of encoded messages: a head index instead of `removeFirst`, compacted when half is spent.
struct MessageQueue {
    private var items: [[UInt8]] = []
    private var head = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { count == 0 }

    mutating func push(_ bytes: [UInt8]) { items.append(bytes) }

    func peek() -> [UInt8]? { isEmpty ? nil : items[head] }

    mutating func pop() -> [UInt8]? {
        guard !isEmpty else { return nil }
        let bytes = items[head]
        head += 1
        if head > 32 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return bytes
    }

    /// Puts `bytes` before the head (a duplicate delivered next).
    mutating func pushFront(_ bytes: [UInt8]) {
        if head > 0 {
            head -= 1
            items[head] = bytes
        } else {
            items.insert(bytes, at: 0)
        }
    }

    mutating func removeAll() {
        items.removeAll()
        head = 0
    }
}
