import Foundation
import RealmDatabase
import RealmSync

/// Several servers on one store, as one endpoint for the in-memory transport (docs/SYNC.md
/// "Several servers on one store"): each connection is served by one of them (its number modulo
/// their count, so a replica that reconnects usually lands on another), each puts its uploads in
/// the store's inbox, one of them, picked at random at every round (the election moving), drains
/// the inbox in small batches (or, at random, leaves it for a later round), and then every server
/// routes what was integrated to its sessions.
/// With one server it is the engine's own path, bypassed: the simulations run `SyncServer` alone.
final class SharedStoreCluster: SyncServerEndpoint {
    let servers: [SyncServer]
    private let random: () -> UInt64

    /// Every server shares `servers[0]`'s store file; they all read the same state.
    var state: ServerState { servers[0].state }

    init(servers: [SyncServer], random: @escaping () -> UInt64) {
        self.servers = servers
        self.random = random
    }

    /// `count` servers, each with its own connection to the store `open` opens (one store, opened
    /// once per server).
    static func make(
        count: Int, open: () throws -> any SyncStore, schema: Schema, wallClock: any WallClock,
        options: SyncServerOptions,
        permissions: SyncPermissions? = nil, salts: @escaping () -> UInt64, random: @escaping () -> UInt64
    ) throws -> SharedStoreCluster {
        var options = options
        options.sharedStore = true
        let servers = try (0..<max(1, count)).map { _ in
            try SyncServer(
                store: try open(), schema: schema,
                wallClock: wallClock, options: options, permissions: permissions, salts: salts)
        }
        return SharedStoreCluster(servers: servers, random: random)
    }

    func receive(_ message: SyncMessage, on connection: ConnectionID) -> [Outgoing] {
        server(for: connection).receive(message, on: connection)
    }

    func integratePending() -> [Outgoing] {
        let received = servers.contains { $0.hasPendingUploads }
        var out = servers.flatMap { $0.integratePending() }
        let integrator = servers[Int(random() % UInt64(servers.count))]
        // A third of the rounds that received uploads, the integrator is late: they wait in the inbox
        // while replicas reconnect elsewhere and the servers route. A round that received nothing
        // (as at quiescence) always drains it.
        if !received || random() % 3 != 0 {
            // Batches of 3: one round's uploads often take several integrations.
            while ((try? integrator.integrateInbox(limit: 3)) ?? 0) > 0 {}
        }
        out += servers.flatMap { $0.catchUp() }
        return out
    }

    func disconnect(_ connection: ConnectionID) {
        server(for: connection).disconnect(connection)
    }

    private func server(for connection: ConnectionID) -> SyncServer {
        servers[Int(connection.rawValue % UInt64(servers.count))]
    }
}
