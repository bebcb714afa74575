import ArgumentParser
import Foundation
import RealmHost
import RealmSync
import RealmSyncNet

/// `realm-host sync-server`: the sync server of docs/SYNC.md, on a SQLite store in the data folder (or a
/// PostgreSQL database, `--store postgres://…`),
/// with the schema and sync rules of the plugins the hosts load. Its first line on standard output
/// is the URL the hosts connect to; SIGINT or SIGTERM stop it gracefully (exit status 0).
struct SyncServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-server",
        abstract: "Serve sync to the hosts over WebSocket until SIGINT or SIGTERM.",
        discussion: """
            The first line on standard output is 'sync server listening on ws://HOST:PORT/sync'. Users' \
            tokens are signed with the secret in $\(SyncSharedSecret.environmentVariable), else in \
            DIR/\(SyncSharedSecret.fileName) (created, mode 0600, on the first start).
            """
    )

    @Option(name: .long, help: ArgumentHelp("The server's folder: its store and its secret.", valueName: "dir"))
    var data: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A folder of plugins, the same the hosts load (schema and sync rules); repeat for several.",
            valueName: "dir"))
    var plugins: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("The address to listen on; port 0 picks a free one.", valueName: "host:port"))
    var listen: String = ListenAddress.defaultText

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The central store: sqlite:PATH (default: sqlite:DIR/\(SyncStoreLocation.defaultFileName)) or "
                + "postgres://USER@HOST:PORT/DB.",
            valueName: "url"))
    var store: String?

    func run() throws {
        try runReportingErrors {
            let address = try ListenAddress(parsing: listen)
            let dataFolder = URL(fileURLWithPath: data, isDirectory: true).standardizedFileURL
            let storeLocation = try SyncStoreLocation(parsing: store, dataFolder: dataFolder)
            let registry = try SyncServerStartup.plugins(plugins)
            let permissions = try SyncServerStartup.permissions(of: registry)
            try SyncServerStartup.makeDataFolder(dataFolder)
            let secret = try SyncSharedSecret.forServer(dataFolder: dataFolder)
            for line in SyncServerStartup.describe(registry, store: storeLocation, secret: secret) {
                StandardStreams.errorLine(line)
            }
            try TerminationSignals.install()
            let server = try SyncServerStartup.server(
                listen: address, store: storeLocation, schema: registry.schema, permissions: permissions,
                secret: secret)
            try serve(server, at: address)
            return 0
        }
    }

    /// How long a graceful stop may take once a signal asked for it.
    static let stopTimeout: Duration = .seconds(10)

    /// Starts `server`, says where on the first line of standard output, and stops it at SIGINT or
    /// SIGTERM: the uploads that arrived are integrated and every connection closed before it returns.
    private func serve(_ server: SyncNetServer, at address: ListenAddress) throws {
        let port: Int
        do {
            port = try AsyncBridge.wait { try await server.start() }
        } catch let error as SyncError {
            // "cannot listen on HOST:PORT: why" says it all; the engine's error number would not help.
            throw CLIError.failed(error.message)
        }
        let path = server.configuration.path
        StandardStreams.line("sync server listening on ws://\(address.authority(port: port))\(path)")
        let signal = TerminationSignals.wait()
        TerminationSignals.restoreDefaults()
        StandardStreams.errorLine("sync server: \(signal): stopping (a second signal ends it at once)")
        // What arrived is integrated first; a peer that never answers its close must not hold the
        // process forever.
        guard try AsyncBridge.wait(timeout: Self.stopTimeout, { await server.stop() }) != nil else {
            StandardStreams.errorLine("sync server: connections still open after \(Self.stopTimeout); exiting")
            return
        }
        StandardStreams.errorLine("sync server: stopped")
    }
}
