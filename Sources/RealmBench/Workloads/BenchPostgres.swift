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

    /// Databases the workloads copy (`freshDatabase(copying:)`), dropped with this object.
    private var templates: [PostgresStoreLocation] = []

    deinit {
        for template in templates { drop(template) }
        if let ownFolder { _ = try? Self.script("stop", folder: ownFolder) }
    }

    /// A new empty database kept until this object goes, for runs to copy.
    func templateDatabase() throws -> PostgresStoreLocation {
        let location = try freshDatabase()
        templates.append(location)
        return location
    }

    /// A new database on the server, empty or a copy of `template` (whose connections must be
    /// closed); the name is unique in this process and the server.
    func freshDatabase(copying template: PostgresStoreLocation? = nil) throws -> PostgresStoreLocation {
        databases += 1
        var location = admin
        // Letters, digits and underscores only: CREATE DATABASE takes no parameter.
        location.database = "realmbench_\(getpid())_\(databases)_\(UInt32.random(in: 0...UInt32.max))"
        let connection = try BlockingPostgresConnection(admin)
        defer { connection.close() }
        let copy = template.map { " TEMPLATE \($0.database)" } ?? ""
        try connection.query("CREATE DATABASE \(location.database)\(copy)", [], "creating the benchmark's database")
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

    /// `.ci/postgres COMMAND` on `folder` (`PostgresScript`); its output, or why it failed as a skip.
    private static func script(_ command: String, folder: URL) throws -> String {
        let script = root.appendingPathComponent(".ci/postgres")
        guard FileManager.default.isReadableFile(atPath: script.path) else {
            throw WorkloadSkipped(reason: "\(script.path) is missing")
        }
        do {
            return try PostgresScript.run(script, command, folder: folder.path)
        } catch {
            throw WorkloadSkipped(reason: error.reason)
        }
    }
}
