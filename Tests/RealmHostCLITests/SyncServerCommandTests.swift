import Foundation
import RealmDatabase
import RealmHost
import RealmSync
import RealmSyncNet
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `realm-host sync-server` as a process on 127.0.0.1: its first line, its secret, two replicas of
/// one user syncing through it, a graceful stop, a restart on the same folder, and its refusals.
final class SyncServerCommandTests: XCTestCase {
    func testTwoReplicasOfOneUserSyncThroughTheServerWhichKeepsTheDataAfterARestart() async throws {
        let workspace = try Workspace()
        let arguments = ["--listen", "127.0.0.1:0", "--data", "server", "--plugins", "plugins"]
        let server = try SyncServerProcess(arguments, in: workspace.root)
        let listened = await blocking { server.listeningPort() }
        let port = try XCTUnwrap(listened)
        let secretPath = workspace.root.appendingPathComponent("server/sync-secret").path
        let mode = try FileManager.default.attributesOfItem(atPath: secretPath)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the secret file's mode")
        XCTAssertTrue(server.standardError.contains("created the shared secret in \(secretPath)"), server.standardError)
        let secret = try SyncSharedSecret.read(file: secretPath)
        XCTAssertEqual(secret.bytes.count, 2 * SyncSharedSecret.generatedBytes, "hex digits of the created secret")

        let replicas = Replicas(folder: workspace.root, secret: secret, url: "ws://127.0.0.1:\(port)/sync")
        let a = try await replicas.start("a", user: "alice")
        let b = try await replicas.start("b", user: "alice")
        let toy = ObjectId.generate()
        try a.replica.writeToy(toy, name: "ball", household: "alice")
        await a.client.flush()
        let arrived = await eventually { b.replica.toyName(toy) == "ball" }
        XCTAssertTrue(arrived, "the toy written on a did not reach b; the server said:\n\(server.standardError)")

        let stopped = await blocking { server.stop(with: SIGTERM) }
        XCTAssertEqual(stopped, 0, "exit status after SIGTERM; standard error:\n\(server.standardError)")
        XCTAssertTrue(server.standardError.contains("sync server: SIGTERM: stopping"), server.standardError)
        await a.client.stop()
        await b.client.stop()

        // The same folder again: the same secret, the store as it was.
        let restarted = try SyncServerProcess(arguments, in: workspace.root)
        let listenedAgain = await blocking { restarted.listeningPort() }
        let newPort = try XCTUnwrap(listenedAgain)
        XCTAssertTrue(restarted.standardError.contains("shared secret in \(secretPath)"), restarted.standardError)
        let again = try SyncSharedSecret.read(file: secretPath)
        XCTAssertEqual(again.bytes, secret.bytes, "the secret changed at the restart")
        let later = Replicas(folder: workspace.root, secret: secret, url: "ws://127.0.0.1:\(newPort)/sync")
        let c = try await later.start("c", user: "alice")
        let kept = await eventually { c.replica.toyName(toy) == "ball" }
        XCTAssertTrue(
            kept, "a fresh replica did not get the toy from the restarted server:\n\(restarted.standardError)")
        await c.client.stop()
        let interrupted = await blocking { restarted.stop(with: SIGINT) }
        XCTAssertEqual(interrupted, 0, "exit status after SIGINT; standard error:\n\(restarted.standardError)")
    }

    func testTheSecretFromTheEnvironmentIsUsedAndNoFileIsWritten() async throws {
        let workspace = try Workspace()
        let environment = [SyncSharedSecret.environmentVariable: String(repeating: "s3cret-", count: 6)]
        let server = try SyncServerProcess(
            ["--listen", "127.0.0.1:0", "--data", "server", "--plugins", "plugins"], in: workspace.root,
            environment: environment)
        let port = await blocking { server.listeningPort() }
        XCTAssertNotNil(port)
        XCTAssertTrue(server.standardError.contains("shared secret from $REALMHOST_SYNC_SECRET"), server.standardError)
        let file = workspace.root.appendingPathComponent("server/sync-secret").path
        XCTAssertFalse(FileManager.default.fileExists(atPath: file), "a secret file was written")
        let stopped = await blocking { server.stop(with: SIGTERM) }
        XCTAssertEqual(stopped, 0, server.standardError)
    }

    func testABadListenAddressIsRefusedBeforeAnythingIsCreated() throws {
        let workspace = try Workspace()
        for (address, why) in [
            ("127.0.0.1:http", "the port must be a number from 0 to 65535, not 'http'"),
            ("127.0.0.1:70000", "the port must be a number from 0 to 65535, not '70000'"),
            ("localhost", "the port is missing"),
            (":7800", "the host is missing"),
            ("::1:7800", "write an IPv6 address in brackets"),
            ("[::1]7800", "an IPv6 address is written [ADDRESS]:PORT"),
        ] {
            let result = try workspace.run(
                ["sync-server", "--listen", address, "--data", "server", "--plugins", "plugins"])
            XCTAssertNotEqual(result.status, 0, address)
            XCTAssertTrue(result.stderr.contains("--listen '\(address)': \(why)"), result.stderr)
            XCTAssertEqual(result.stdout, "", address)
        }
        let data = workspace.root.appendingPathComponent("server").path
        XCTAssertFalse(FileManager.default.fileExists(atPath: data), "the data folder was created")
    }

    func testAMissingPluginsFolderIsRefused() throws {
        let workspace = try Workspace()
        let result = try workspace.run(
            ["sync-server", "--listen", "127.0.0.1:0", "--data", "server", "--plugins", "no-such-plugins"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("--plugins no-such-plugins: no such folder"), result.stderr)
        let empty = try workspace.write("empty/README.md", "no plugin here")
        let none = try workspace.run(
            ["sync-server", "--listen", "127.0.0.1:0", "--data", "server", "--plugins", "empty"])
        XCTAssertNotEqual(none.status, 0, empty)
        XCTAssertTrue(none.stderr.contains("--plugins: no plugin in empty"), none.stderr)
    }

    func testADataPathThatIsAFileIsRefused() throws {
        let workspace = try Workspace()
        try workspace.write("server", "a file, not a folder")
        let result = try workspace.run(
            ["sync-server", "--listen", "127.0.0.1:0", "--data", "server", "--plugins", "plugins"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("--data server: not a folder"), result.stderr)
    }

    func testAnUnreachableOrIncompletePostgresStoreIsRefusedAndOtherStoresAreUnknown() throws {
        let workspace = try Workspace()
        // Port 1 on the loopback: nothing listens there, the connection is refused at once.
        let postgres = try workspace.run([
            "sync-server", "--listen", "127.0.0.1:0", "--data", "server", "--plugins", "plugins",
            "--store", "postgres://realm:hunter2@127.0.0.1:1/sync",
        ])
        XCTAssertNotEqual(postgres.status, 0)
        XCTAssertTrue(
            postgres.stderr.contains("cannot connect to the PostgreSQL store postgres://realm@127.0.0.1:1/sync"),
            postgres.stderr)
        XCTAssertFalse(postgres.stderr.contains("hunter2"), "the password is in the message")

        let userless = try workspace.run([
            "sync-server", "--listen", "127.0.0.1:0", "--data", "server", "--plugins", "plugins",
            "--store", "postgres://127.0.0.1:5432/sync",
        ])
        XCTAssertNotEqual(userless.status, 0)
        XCTAssertTrue(userless.stderr.contains("the PostgreSQL user is missing"), userless.stderr)

        let other = try workspace.run([
            "sync-server", "--listen", "127.0.0.1:0", "--data", "server", "--plugins", "plugins",
            "--store", "mysql://127.0.0.1/sync",
        ])
        XCTAssertNotEqual(other.status, 0)
        XCTAssertTrue(other.stderr.contains("--store 'mysql://127.0.0.1/sync': unknown kind of store"), other.stderr)
    }

    func testASecretFileOthersMayReadIsRefused() throws {
        let workspace = try Workspace()
        try workspace.write("server/sync-secret", String(repeating: "ab", count: 32) + "\n")
        let path = workspace.root.appendingPathComponent("server/sync-secret").path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let result = try workspace.run(
            ["sync-server", "--listen", "127.0.0.1:0", "--data", "server", "--plugins", "plugins"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("\(path) has mode 0644"), result.stderr)
        XCTAssertEqual(result.stdout, "")
    }

    func testABusyPortIsReportedWithANonZeroStatus() async throws {
        let workspace = try Workspace()
        let first = try SyncServerProcess(
            ["--listen", "127.0.0.1:0", "--data", "one", "--plugins", "plugins"], in: workspace.root)
        let listened = await blocking { first.listeningPort() }
        let port = try XCTUnwrap(listened)
        let second = try SyncServerProcess(
            ["--listen", "127.0.0.1:\(port)", "--data", "two", "--plugins", "plugins"], in: workspace.root)
        let status = await blocking { second.waitForExit() }
        XCTAssertNotNil(status)
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(second.standardError.contains("cannot listen on 127.0.0.1:\(port)"), second.standardError)
        XCTAssertEqual(second.standardOutput, "")
        let stopped = await blocking { first.stop(with: SIGTERM) }
        XCTAssertEqual(stopped, 0, first.standardError)
    }
}
