import Foundation
import XCTest

@testable import RealmSyncPostgres

/// The PostgreSQL server the tests run on: `$REALMHOST_TEST_POSTGRES_URL` (what `.ci/run` and the
/// README's test command export), else one this process starts with `.ci/postgres` in a folder of its
/// own and stops when it exits. When neither works the tests skip, naming why, except under
/// `CI=true`, where they fail: CI must run them.
enum TestPostgres {
    static let environmentVariable = "REALMHOST_TEST_POSTGRES_URL"

    /// The server's administrative address (its `postgres` database), or why there is none.
    private static let server: Result<PostgresStoreLocation, TestPostgresUnavailable> = locate()

    /// The server, or the error that skips (outside CI) or fails (in CI) the test asking.
    static func location() throws -> PostgresStoreLocation {
        switch server {
        case .success(let location): return location
        case .failure(let reason):
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw reason }
            throw XCTSkip(
                "PostgreSQL is unavailable (\(reason.message)); set \(environmentVariable) or install PostgreSQL "
                    + "(bash .ci/setup)")
        }
    }

    private static func locate() -> Result<PostgresStoreLocation, TestPostgresUnavailable> {
        if let url = ProcessInfo.processInfo.environment[environmentVariable], !url.isEmpty {
            do {
                return .success(try PostgresStoreLocation(parsing: url))
            } catch {
                return .failure(TestPostgresUnavailable(message: "$\(environmentVariable): \(error)"))
            }
        }
        return startOwn()
    }

    /// The repository's root: this file is Tests/RealmSyncPostgresTests/TestPostgres.swift.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A folder of this process's own, so a parallel run never stops this one's server; and of this
    /// module's (RealmHostCLITests compiles this file too, into the same test process).
    private static let ownFolder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "realmhost-postgres-tests-\(ProcessInfo.processInfo.processIdentifier)-\(#fileID.prefix { $0 != "/" })")

    private static func startOwn() -> Result<PostgresStoreLocation, TestPostgresUnavailable> {
        let output: String
        do {
            output = try script("start")
        } catch {
            return .failure(error)
        }
        // Stopped when the test process exits, however the tests went.
        atexit { _ = try? TestPostgres.script("stop") }
        let url = output.split(separator: "\n").last.map(String.init) ?? ""
        do {
            return .success(try PostgresStoreLocation(parsing: url))
        } catch {
            return .failure(TestPostgresUnavailable(message: ".ci/postgres start printed '\(url)': \(error)"))
        }
    }

    /// Runs `.ci/postgres COMMAND` (its waits bounded by the script, pg_ctl -t 30, and here by a
    /// deadline); its standard output, or its standard error as the failure. Spawned and waited for
    /// with posix_spawn and waitpid: Foundation's Process waited forever here once the script had
    /// exited. Output goes to files, not pipes: the server the script starts would keep a pipe open.
    private static func script(_ command: String) throws(TestPostgresUnavailable) -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("postgres-\(UUID().uuidString)")
        let (outPath, errPath) = (base.path + ".out", base.path + ".err")
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
        environment["REALMHOST_POSTGRES_DIR"] = ownFolder.path
        let arguments = ["/bin/bash", root.appendingPathComponent(".ci/postgres").path, command]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw TestPostgresUnavailable(message: "cannot run .ci/postgres: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(120)
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard Date() < deadline else {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw TestPostgresUnavailable(message: ".ci/postgres \(command) did not finish in 120 s")
            }
            usleep(20_000)
        }
        let read = { (path: String) in
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // Exited normally with status 0 (the wait status's low 7 bits are the signal, the next 8 the code).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw TestPostgresUnavailable(message: ".ci/postgres \(command) failed: \(read(errPath))")
        }
        return read(outPath)
    }
}

/// Why the tests have no PostgreSQL.
struct TestPostgresUnavailable: Error, CustomStringConvertible {
    var message: String
    var description: String { "PostgreSQL is unavailable: \(message)" }
}

/// A database of its own on the test PostgreSQL, dropped (whoever is still connected) when released.
final class TestPostgresDatabase {
    let location: PostgresStoreLocation

    /// `label` tells what the database is for; a random tag makes its name unique.
    init(_ label: String) throws {
        var location = try TestPostgres.location()
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        // Letters, digits and underscores only: CREATE DATABASE takes no parameter.
        location.database = "realmhost_\(label.filter { $0.isASCII && ($0.isLetter || $0.isNumber) })_\(tag)"
            .lowercased()
        let admin = try BlockingPostgresConnection(try TestPostgres.location())
        defer { admin.close() }
        try admin.query("CREATE DATABASE \(location.database)", [], "creating the test database")
        self.location = location
    }

    deinit {
        guard let admin = try? BlockingPostgresConnection(try TestPostgres.location()) else { return }
        _ = try? admin.query("DROP DATABASE IF EXISTS \(location.database) WITH (FORCE)", [], "dropping it")
        admin.close()
    }
}
