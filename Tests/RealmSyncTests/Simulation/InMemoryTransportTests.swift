import RealmTestSupport
import XCTest

@testable import RealmSync

/// A client that sends `.mark`s as its "uploads" (numbered per client) and records what it gets.
private final class FakeClient: SyncClientEndpoint {
    var local: [SyncMessage] = []
    var received: [SyncMessage] = []
    var connects = 0, disconnects = 0
    var failOn: UInt64?

    func connect(session: UInt32) -> [SyncMessage] {
        connects += 1
        return [.bind(session: session, user: "u", needsClientFileID: false)]
    }

    func receive(_ message: SyncMessage) throws -> [SyncMessage] {
        received.append(message)
        if case .mark(_, let id) = message, id == failOn { throw SyncError(.badChangeset, "fake failure") }
        return []
    }

    func pendingUploads() -> [SyncMessage] {
        defer { local = [] }
        return local
    }

    func disconnect() { disconnects += 1 }
}

/// A server that records every message per connection and, on integration, acknowledges each
/// upload received since with a `.mark` to its connection.
private final class FakeServer: SyncServerEndpoint {
    var received: [(ConnectionID, SyncMessage)] = []
    var unintegrated: [(ConnectionID, SyncMessage)] = []
    var disconnected: [ConnectionID] = []

    func receive(_ message: SyncMessage, on connection: ConnectionID) -> [Outgoing] {
        received.append((connection, message))
        if case .upload = message { unintegrated.append((connection, message)) }
        return []
    }

    func integratePending() -> [Outgoing] {
        defer { unintegrated = [] }
        return unintegrated.enumerated().map { i, item in
            Outgoing(connection: item.0, message: .mark(session: 1, requestID: UInt64(i)))
        }
    }

    func disconnect(_ connection: ConnectionID) { disconnected.append(connection) }
}

final class InMemoryTransportTests: XCTestCase {
    private func upload(_ n: UInt64) -> SyncMessage {
        .upload(
            session: 1,
            changesets: [
                Changeset(clientVersion: n, basedOnServerVersion: 0, clock: .zero, clientFileID: 1, instructions: [])
            ])
    }

    private func makeTransport(seed: UInt64, clients: Int) -> (InMemoryTransport, FakeServer, [FakeClient]) {
        let server = FakeServer()
        var rng = SplitMix64(seed: seed)
        let transport = InMemoryTransport(server: server) { rng.next() }
        let fakes = (0..<clients).map { _ in FakeClient() }
        for fake in fakes { transport.addClient(fake) }
        return (transport, server, fakes)
    }

    private func clientVersions(_ messages: [SyncMessage]) -> [UInt64] {
        messages.compactMap { if case .upload(_, let c) = $0 { return c.first?.clientVersion } else { return nil } }
    }

    func testConnectionsStayOrderedWhileTheSchedulerInterleavesThem() throws {
        let seed = TestSeed.make("InMemoryTransportTests.order")
        let (transport, server, clients) = makeTransport(seed: seed, clients: 3)
        for client in clients { client.local = (1...20).map(upload) }
        try transport.runUntilQuiescent()
        XCTAssertTrue(transport.isQuiescent)
        let connections = Set(server.received.map(\.0))
        XCTAssertEqual(connections.count, 3, "seed \(seed)")
        for connection in connections {
            let mine = server.received.filter { $0.0 == connection }.map(\.1)
            XCTAssertEqual(mine.first, .bind(session: 1, user: "u", needsClientFileID: false), "seed \(seed)")
            XCTAssertEqual(clientVersions(mine), Array(1...20), "seed \(seed): a connection is FIFO")
        }
        // Across connections the order is the scheduler's: not one client's messages all first.
        let order = server.received.map(\.0.rawValue)
        XCTAssertNotEqual(order, order.sorted(), "seed \(seed)")
        // Every upload was acknowledged by an integration and delivered back.
        XCTAssertEqual(clients.map { $0.received.count }.reduce(0, +), 60, "seed \(seed)")
    }

    func testTheSameSeedMakesTheSameRun() throws {
        func run() throws -> [InMemoryTransport.Step] {
            let (transport, _, clients) = makeTransport(seed: 99, clients: 4)
            for client in clients { client.local = (1...5).map(upload) }
            for c in 0..<4 {
                transport.connect(c)
                transport.flushUploads(c)
            }
            var steps: [InMemoryTransport.Step] = []
            while let step = try transport.step(faults: .init(duplicateUploadPercent: 10, dropPercent: 2)),
                steps.count < 300
            {
                steps.append(step)
            }
            return steps
        }
        let first = try run()
        XCTAssertEqual(first, try run())
        XCTAssertTrue(first.contains { if case .dropped = $0 { return true } else { return false } })
    }

    func testADuplicatedUploadArrivesTwiceInARow() throws {
        let (transport, server, clients) = makeTransport(seed: 1, clients: 1)
        clients[0].local = [upload(1), upload(2)]
        transport.connect(0)
        transport.flushUploads(0)
        XCTAssertFalse(transport.duplicateNextUpload(from: 0), "the head is the bind, not an upload")
        XCTAssertTrue(try transport.deliverToServer(from: 0))
        XCTAssertTrue(transport.duplicateNextUpload(from: 0))
        while try transport.deliverToServer(from: 0) {}
        XCTAssertEqual(clientVersions(server.received.map(\.1)), [1, 1, 2])
        XCTAssertEqual(transport.statistics.duplicated, 1)
    }

    func testADropLosesWhatIsInFlightAndTellsBothEnds() throws {
        let (transport, server, clients) = makeTransport(seed: 1, clients: 2)
        clients[0].local = [upload(1), upload(2)]
        transport.connect(0)
        transport.connect(1)
        transport.flushUploads(0)
        try transport.deliverToServer(from: 0)
        try transport.deliverToServer(from: 0)
        transport.integrate()
        XCTAssertEqual(transport.queued(0).toClient, 1)
        XCTAssertEqual(transport.queued(0).toServer, 1)
        transport.drop(0)
        XCTAssertEqual(transport.queued(0).toServer + transport.queued(0).toClient, 0)
        XCTAssertFalse(transport.isConnected(0))
        XCTAssertTrue(transport.isConnected(1))
        XCTAssertEqual(clients[0].disconnects, 1)
        XCTAssertEqual(server.disconnected, [ConnectionID(rawValue: 1)])
        XCTAssertEqual(transport.statistics.lost, 2)
        // Nothing is delivered on a dropped connection; a reconnection is a new connection.
        XCTAssertFalse(try transport.deliverToServer(from: 0))
        XCTAssertTrue(transport.connect(0))
        try transport.deliverToServer(from: 0)
        XCTAssertEqual(server.received.last?.0, ConnectionID(rawValue: 3))
        XCTAssertEqual(clients[0].connects, 2)
    }

    func testAClientErrorEndsItsConnection() throws {
        let (transport, server, clients) = makeTransport(seed: 1, clients: 1)
        clients[0].failOn = 0
        clients[0].local = [upload(1)]
        transport.connect(0)
        transport.flushUploads(0)
        while try transport.deliverToServer(from: 0) {}
        transport.integrate()
        XCTAssertTrue(try transport.deliverToClient(0))
        XCTAssertFalse(transport.isConnected(0))
        XCTAssertEqual(transport.clientErrors.count, 1)
        XCTAssertEqual(server.disconnected.count, 1)
    }

    func testQuiescenceMeansNothingInFlightAndNothingToIntegrate() throws {
        let (transport, server, clients) = makeTransport(seed: 5, clients: 2)
        XCTAssertTrue(transport.isQuiescent)
        clients[1].local = [upload(1)]
        transport.connect(1)
        transport.flushUploads(1)
        XCTAssertFalse(transport.isQuiescent)
        try transport.runUntilQuiescent()
        XCTAssertTrue(transport.isQuiescent)
        XCTAssertTrue(server.unintegrated.isEmpty)
        XCTAssertEqual(clients[1].received, [.mark(session: 1, requestID: 0)])
    }
}
