import ArgumentParser
import Foundation
import RealmDatabase
import RealmHost
import RealmHostNet
import RealmServe
import RealmSyncNet

/// `realm-host serve`: the long-lived host (docs/SERVE.md). Holds the data folder (other commands
/// on it are refused), serves the app API and the operators' listener, and stops gracefully on
/// SIGINT or SIGTERM (calls in flight finished, tenants closed, exit 0; a second signal ends it).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the users' realms to apps over HTTP and WebSocket until SIGINT or SIGTERM.",
        discussion: """
            The first line on standard output is 'realm-host serving http://HOST:PORT (admin http://HOST:PORT)'. \
            App calls need 'Authorization: Bearer <JWT>' (realm-host token prints one for development); \
            admin paths other than /healthz, /readyz and /metrics need the token in DATA/admin-token. \
            One JSON log line per request goes to standard error. host.lua's serve table sets the same \
            options; a flag wins.
            """
    )

    @OptionGroup var host: HostFlags
    @OptionGroup var sync: SyncFlags

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The apps' listener (default 127.0.0.1:8080; port 0 picks a free one).", valueName: "host:port"))
    var listen: String?

    @Option(
        name: .customLong("admin-listen"),
        help: ArgumentHelp("The operators' listener (default 127.0.0.1:8081).", valueName: "host:port"))
    var adminListen: String?

    /// How long calls in flight may take to finish once a signal asked to stop.
    static let stopTimeout: Duration = .seconds(10)

    func run() throws {
        // Standard error carries one JSON line per request: a wait's plain sentence would break it
        // (a call that waits out the limit fails with the reason in its answer and its line).
        LockWaitPolicy.current.announce = nil
        try runReportingErrors {
            let folder = host.options.dataFolder
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let lock: ServeLock
            do {
                lock = try ServeLock.acquire(dataFolder: folder)
            } catch {
                throw CLIError.failed("\(error)")
            }
            let tenants = try host.makeHost(sync: sync, servedBy: lock)
            var options = tenants.options.serve
            if let listen { options.listen = listen }
            if let adminListen { options.adminListen = adminListen }
            try TerminationSignals.install()
            let server = try AsyncBridge.wait { [options] in try await ServeHost.make(host: tenants, options: options) }
            let ports: (app: Int, admin: Int)
            do {
                ports = try AsyncBridge.wait { try await server.start() }
            } catch {
                throw CLIError.failed("\(error)")
            }
            let writeTimeout = options.consoleWriteTimeout
            let console: ConsoleSocket
            do {
                console = try ConsoleSocket(dataFolder: folder) { connection in
                    AttachedConsole.serve(connection, host: tenants, writeTimeout: writeTimeout)
                }
            } catch {
                throw CLIError.failed("\(error)")
            }
            let app = try ListenAddress(parsing: options.listen, what: "--listen")
            let admin = try ListenAddress(parsing: options.adminListen, what: "--admin-listen")
            StandardStreams.line(
                "realm-host serving http://\(app.authority(port: ports.app)) "
                    + "(admin http://\(admin.authority(port: ports.admin)))")
            let signal = TerminationSignals.wait()
            console.stop()
            TerminationSignals.restoreDefaults()
            StandardStreams.errorLine("realm-host serve: \(signal): stopping (a second signal ends it at once)")
            guard try AsyncBridge.wait(timeout: Self.stopTimeout, { await server.stop() }) != nil else {
                StandardStreams.errorLine("realm-host serve: calls still running after \(Self.stopTimeout); exiting")
                return 0
            }
            // The tenants are closed (their last uploads flushed at their commits); the connection goes last.
            if let transport = tenants.syncTransport as? NetSyncTransport {
                _ = try AsyncBridge.wait(timeout: .seconds(5)) { await transport.stop() }
            }
            withExtendedLifetime(lock) {}
            StandardStreams.errorLine("realm-host serve: stopped")
            return 0
        }
    }
}

/// `realm-host token`: a development token for an app user, signed with the data folder's secret.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print an app token for a user, signed with the development secret (DATA/auth-secret).",
        discussion: """
            For development and tests: host.lua's auth table naming public keys turns this off (tokens then \
            come from whoever holds the private keys).
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp("The data folder (default: $REALM_HOST_DATA, else ./data).", valueName: "dir"))
    var data: String?

    @Option(name: .long, help: ArgumentHelp("The user the token names.", valueName: "name"))
    var user: String

    @Option(name: .long, help: ArgumentHelp("How long it is valid: 90s, 30m, 1h, 7d (default 1h).", valueName: "ttl"))
    var ttl: String = "1h"

    @Option(name: .long, help: ArgumentHelp("Another claim, key=value; repeat for several.", valueName: "key=value"))
    var claim: [String] = []

    func validate() throws {
        guard Self.seconds(ttl) != nil else {
            throw ValidationError(
                "--ttl must be a number with s, m, h or d (90s, 30m, 1h, 7d; at most 3650d), got '\(ttl)'.")
        }
        for c in claim where !c.contains("=") || c.hasPrefix("=") {
            throw ValidationError("--claim must be key=value, got '\(c)'.")
        }
    }

    func run() throws {
        try runReportingErrors {
            let user = try checkedUser(user)
            let folder = HostOptions.defaultDataFolder(data)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let auth = try HostOptions(dataFolder: folder).applyingConfigurationFile().auth
            guard !auth.usesPublicKeys else {
                throw CLIError.failed(
                    "host.lua's auth names public keys: app tokens come from whoever holds their private keys, "
                        + "not from realm-host token")
            }
            var claims = [String: String]()
            for c in claim {
                let parts = c.split(separator: "=", maxSplits: 1).map(String.init)
                claims[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            let lifetime = Self.seconds(ttl) ?? 3600
            let token = try AsyncBridge.wait { [claims] in
                let tokens = try await AppTokens.make(auth: auth, dataFolder: folder)
                return try await tokens.sign(user: user, lifetime: lifetime, claims: claims)
            }
            StandardStreams.line(token)
            return 0
        }
    }

    static func seconds(_ text: String) -> TimeInterval? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        // At most ten years: a longer lifetime is a typo, and the expiry must fit the token's integer.
        guard let unit = text.last.flatMap({ units[$0] }), let n = Double(text.dropLast()), n > 0, n.isFinite,
            n * unit <= 3650 * 86400
        else { return nil }
        return n * unit
    }
}
