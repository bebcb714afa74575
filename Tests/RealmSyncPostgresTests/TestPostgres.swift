import Foundation
import RealmSync
import RealmSyncPostgres
import XCTest

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

    /// Runs `.ci/postgres COMMAND`; its standard output, or its standard error as the failure.
    private static func script(_ command: String) throws(TestPostgresUnavailable) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent(".ci/postgres").path, command]
        var environment = ProcessInfo.processInfo.environment
        environment["REALMHOST_POSTGRES_DIR"] = ownFolder.path
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do {
            try process.run()
        } catch {
            throw TestPostgresUnavailable(message: "cannot run .ci/postgres: \(error)")
        }
        // The script bounds its own waits (pg_ctl -t 30).
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let why = String(decoding: stderr, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw TestPostgresUnavailable(message: ".ci/postgres \(command) failed: \(why)")
        }
        return String(decoding: stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Why the tests have no PostgreSQL.
struct TestPostgresUnavailable: Error, CustomStringConvertible {
    var message: String
    var description: String { "PostgreSQL is unavailable: \(message)" }
}
