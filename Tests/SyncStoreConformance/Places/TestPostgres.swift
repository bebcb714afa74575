import Foundation
import XCTest

@testable import RealmSyncPostgres

/// The PostgreSQL server the tests run on: `$REALMHOST_TEST_POSTGRES_URL` (what `.ci/run` and the
/// README's test command export), else one this process starts with `.ci/postgres` in a folder of its
/// own and stops when it exits. When neither works the tests skip, naming why (XCTest), or run on
/// SQLite alone (the conformance cases, `StoreKind.available`), except under `CI=true`, where they
/// fail: CI must run them.
enum TestPostgres {
    static let environmentVariable = "REALMHOST_TEST_POSTGRES_URL"

    /// The server's administrative address (its `postgres` database), or why there is none.
    private static let server: Result<PostgresStoreLocation, TestPostgresUnavailable> = locate()

    /// Whether the conformance cases run on PostgreSQL too: there is a server, or CI requires one.
    static var isRequiredOrAvailable: Bool {
        if case .success = server { return true }
        return ProcessInfo.processInfo.environment["CI"] == "true"
    }

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

    /// The repository's root: this file is Tests/SyncStoreConformance/Places/TestPostgres.swift.
    /// `.ci/postgres`, for a test that runs a server of its own (`PostgresRestartTests`).
    static var scriptURL: URL { root.appendingPathComponent(".ci/postgres") }

    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A folder of this process's own, so a parallel run never stops this one's server.
    private static let ownFolder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "realmhost-postgres-tests-\(ProcessInfo.processInfo.processIdentifier)")

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

    /// Runs `.ci/postgres COMMAND` on this process's folder (`PostgresScript`); its standard output,
    /// or its failure as why PostgreSQL is unavailable.
    private static func script(_ command: String) throws(TestPostgresUnavailable) -> String {
        do {
            return try PostgresScript.run(scriptURL, command, folder: ownFolder.path)
        } catch {
            throw TestPostgresUnavailable(message: error.reason)
        }
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
