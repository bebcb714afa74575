import Foundation
import RealmHost
import RealmSyncNet
import XCTest

@testable import RealmHostNet

/// Where a host syncs: `host.lua`'s `sync` table under the command line's flags, and the secret.
final class HostSyncConfigurationTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("host-sync-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func writeHostFile(_ text: String) throws {
        try text.write(to: folder.appendingPathComponent("host.lua"), atomically: true, encoding: .utf8)
    }

    /// The options the transport was made with (nil: none was made).
    private func transportOptions(_ options: HostOptions) throws -> HostSyncOptions? {
        let seen = OptionsSeen()
        _ = try TenantHost(options: options) { sync in
            seen.options = sync
            return try NetSyncTransport(url: sync.url ?? "", secret: nil)
        }
        return seen.options
    }

    func testHostFileNamesTheServerAndTheSecretFile() throws {
        try writeHostFile("return { sync = { url = 'ws://127.0.0.1:9/sync', secretFile = 'sync-secret' } }")
        let options = try transportOptions(HostOptions(dataFolder: folder))
        XCTAssertEqual(options?.url, "ws://127.0.0.1:9/sync")
        XCTAssertEqual(options?.secretFile?.path, folder.appendingPathComponent("sync-secret").path)
    }

    /// `sync.url` may list servers, as a list or separated by commas; the transport gets them in order.
    func testHostFileMayListSeveralServers() throws {
        let servers = ["ws://127.0.0.1:9/sync", "ws://127.0.0.1:10/sync"]
        try writeHostFile("return { sync = { url = { 'ws://127.0.0.1:9/sync', 'ws://127.0.0.1:10/sync' } } }")
        XCTAssertEqual(try transportOptions(HostOptions(dataFolder: folder))?.urls, servers)
        try writeHostFile("return { sync = { url = 'ws://127.0.0.1:9/sync, ws://127.0.0.1:10/sync' } }")
        XCTAssertEqual(try transportOptions(HostOptions(dataFolder: folder))?.urls, servers)
        // Each list entry is one server, trimmed: a blank, a number or two servers in one entry are refused.
        try writeHostFile("return { sync = { url = { ' ws://127.0.0.1:9/sync ', 'ws://127.0.0.1:10/sync' } } }")
        XCTAssertEqual(try transportOptions(HostOptions(dataFolder: folder))?.urls, servers)
        for entry in ["7", "' '", "'ws://127.0.0.1:9/sync,ws://127.0.0.1:10/sync'"] {
            try writeHostFile("return { sync = { url = { 'ws://127.0.0.1:9/sync', \(entry) } } }")
            XCTAssertThrowsError(try transportOptions(HostOptions(dataFolder: folder)), entry) { error in
                XCTAssertTrue("\(error)".contains("field 'sync.url' must be a non-empty string or a list"), "\(error)")
            }
        }
        let transport = try NetSyncTransport.make(HostSyncOptions(urls: servers), environment: [:])
        XCTAssertEqual(transport.urls, servers)
        XCTAssertEqual(transport.client.urls, servers)
    }

    func testFlagsWinOverTheHostFile() throws {
        try writeHostFile("return { sync = { url = 'ws://127.0.0.1:9/sync' } }")
        var given = HostOptions(dataFolder: folder)
        given.sync.url = "ws://127.0.0.1:10/sync"
        XCTAssertEqual(try transportOptions(given)?.url, "ws://127.0.0.1:10/sync")
    }

    func testNoURLMakesNoTransport() throws {
        XCTAssertNil(try transportOptions(HostOptions(dataFolder: folder)))
    }

    func testAMistakeInTheSyncTableNamesTheField() throws {
        try writeHostFile("return { sync = { urll = 'ws://127.0.0.1:9/sync' } }")
        XCTAssertThrowsError(try transportOptions(HostOptions(dataFolder: folder))) { error in
            XCTAssertTrue(
                "\(error)".contains(
                    "field 'sync.urll' is not a known field (did you mean 'url'?); sync has url, secretFile"),
                "\(error)")
        }
        try writeHostFile("return { sync = { url = 7 } }")
        XCTAssertThrowsError(try transportOptions(HostOptions(dataFolder: folder))) { error in
            XCTAssertTrue("\(error)".contains("field 'sync.url' must be a non-empty string"), "\(error)")
        }
    }

    func testTheSecretComesFromTheEnvironmentFirstThenTheFileTrimmed() throws {
        let file = folder.appendingPathComponent("secret")
        try "  the file's secret, long enough to sign with\n".write(to: file, atomically: true, encoding: .utf8)
        let options = HostSyncOptions(url: "ws://127.0.0.1:9/sync", secretFile: file)
        XCTAssertThrowsError(try NetSyncTransport.secret(options, environment: [:]), "others may read it") { error in
            XCTAssertTrue("\(error)".contains(file.path), "\(error)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        XCTAssertEqual(
            try NetSyncTransport.secret(options, environment: [:]),
            Array("the file's secret, long enough to sign with".utf8))
        let fromEnvironment = "the environment's secret, long enough to sign with"
        XCTAssertEqual(
            try NetSyncTransport.secret(options, environment: ["REALMHOST_SYNC_SECRET": fromEnvironment]),
            Array(fromEnvironment.utf8))
        XCTAssertNil(try NetSyncTransport.secret(HostSyncOptions(url: "ws://127.0.0.1:9/sync"), environment: [:]))
        let missing = HostSyncOptions(url: "ws://x/sync", secretFile: folder.appendingPathComponent("none"))
        XCTAssertThrowsError(try NetSyncTransport.secret(missing, environment: [:]))
    }
}

private final class OptionsSeen: @unchecked Sendable {
    var options: HostSyncOptions?
}
