import Foundation
import RealmSyncPostgres

/// The PostgreSQL server of the `*_postgres` workloads: `$REALMHOST_BENCH_POSTGRES_URL`, else one
/// started with `.ci/postgres start` in a temporary folder of its own and stopped (folder deleted)
/// when this object is released. Each run gets a fresh database (`freshDatabase`), dropped by `drop`.
final class BenchPostgres {
    static let environmentVariable = "REALMHOST_BENCH_POSTGRES_URL"

    /// The server's administrative address (the database the URL names).
    let admin: PostgresStoreLocation
    /// Set when this object started the server: the folder `.ci/postgres stop` is given.
    private let ownFolder: URL?
    private var databases = 0

    /// The server, or `WorkloadSkipped` saying why there is none.
    init(_ context: BenchContext) throws {
        if let url = ProcessInfo.processInfo.environment[Self.environmentVariable], !url.isEmpty {
            do {
                admin = try PostgresStoreLocation(parsing: url)
            } catch {
                throw WorkloadSkipped(reason: "$\(Self.environmentVariable): \(error)")
            }
            ownFolder = nil
            return
        }
        // In the system's temporary folder, which the `postgres` user the script runs the server as
        // (when this runs as root) can enter; the run's own folder may not be.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "realmbench-postgres-\(getpid())")
        let output: String
        do {
            output = try Self.script("start", folder: folder)
        } catch {
            _ = try? Self.script("stop", folder: folder)
            throw WorkloadSkipped(
                reason: "no PostgreSQL: $\(Self.environmentVariable) is unset and .ci/postgres start failed: \(error)")
        }
        ownFolder = folder
        let url = output.split(separator: "\n").last.map(String.init) ?? ""
        do {
            admin = try PostgresStoreLocation(parsing: url)
        } catch {
            _ = try? Self.script("stop", folder: folder)
            throw WorkloadSkipped(reason: ".ci/postgres start printed '\(url)': \(error)")
        }
        context.log("PostgreSQL started for the benchmark: \(admin)")
    }

    deinit {
        if let ownFolder { _ = try? Self.script("stop", folder: ownFolder) }
    }

    /// A new empty database on the server; the name is unique in this process and the server.
    func freshDatabase() throws -> PostgresStoreLocation {
        databases += 1
        var location = admin
        // Letters, digits and underscores only: CREATE DATABASE takes no parameter.
        location.database = "realmbench_\(getpid())_\(databases)_\(UInt32.random(in: 0...UInt32.max))"
        let connection = try BlockingPostgresConnection(admin)
        defer { connection.close() }
        try connection.query("CREATE DATABASE \(location.database)", [], "creating the benchmark's database")
        return location
    }

    /// Drops the database at `location` (whoever is still connected).
    func drop(_ location: PostgresStoreLocation) {
        guard let connection = try? BlockingPostgresConnection(admin) else { return }
        _ = try? connection.query("DROP DATABASE IF EXISTS \(location.database) WITH (FORCE)", [], "dropping it")
        connection.close()
    }

    /// The checkout: this file is Sources/RealmBench/Workloads/BenchPostgres.swift.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `.ci/postgres COMMAND` with `folder` as its REALMHOST_POSTGRES_DIR; its standard output, or
    /// its standard error as the error. Spawned and waited for with posix_spawn and waitpid, as the
    /// tests' TestPostgres does (Foundation's Process waited forever once the script had exited);
    /// output goes to files, not pipes, which the server the script starts would keep open. The wait
    /// is bounded (the script's own waits are, by pg_ctl -t 30).
    private static func script(_ command: String, folder: URL) throws -> String {
        let script = root.appendingPathComponent(".ci/postgres")
        guard FileManager.default.isReadableFile(atPath: script.path) else {
            throw WorkloadSkipped(reason: "\(script.path) is missing")
        }
        let (outPath, errPath) = (folder.path + ".out", folder.path + ".err")
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var environment = ProcessInfo.processInfo.environment
        environment["REALMHOST_POSTGRES_DIR"] = folder.path
        let arguments = ["/bin/bash", script.path, command]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw WorkloadSkipped(reason: "cannot run .ci/postgres: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(120)
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard Date() < deadline else {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw WorkloadSkipped(reason: ".ci/postgres \(command) did not finish in 120 s")
            }
            usleep(20_000)
        }
        let read = { (path: String) in
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // Exited normally with status 0 (the wait status's low 7 bits are the signal, the next 8 the code).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw WorkloadSkipped(reason: ".ci/postgres \(command) failed: \(read(errPath))")
        }
        return read(outPath)
    }
}
