import Foundation
import RealmDatabase
import RealmHost
import RealmHostNet
import RealmSync
import RealmSyncNet
import RealmTestSupport
import XCTest

/// `serve` on a host that syncs: the API works on the user's synced realm, a change another host
/// uploads reaches a watch with no request, and readiness follows the sync connection.
final class ServeSyncTests: XCTestCase {
    let secret = Array("a secret shared by the test's hosts and its server".utf8)

    func testADownloadFromAnotherHostReachesAWatchAndReadinessFollowsTheServer() async throws {
        let plugins = try ServeFixture.makePlugins()
        defer { try? FileManager.default.removeItem(at: plugins) }
        let registry = try PluginRegistry(folders: [plugins])
        let store = plugins.appendingPathComponent("sync.sqlite").path
        let server = try SyncNetServer(
            configuration: SyncNetServerConfiguration(host: "127.0.0.1", port: 0), storePath: store,
            schema: registry.schema,
            permissions: try SyncPermissions.compile(registry.syncRules, schema: registry.schema),
            secret: secret)
        try await server.start()
        let serverURL = await server.url
        let url = try XCTUnwrap(serverURL)
        let fixture = try await ServeFixture(plugins: plugins, sync: transport, syncURL: url)
        let admin = fixture.admin
        try await waitFor("ready while connected") { try admin.request("GET", "/readyz").status == 200 }

        let token = try await fixture.token("alice")
        let watch = WatchClient(port: fixture.appPort, token: token)
        watch.send(#"{"watch": 1, "class": "Dog", "sort": "name"}"#)
        let initial = try await watch.messages(atLeast: 1)
        XCTAssertEqual(initial[0][field: "objects"], .array([]), initial[0].text())

        // Host B writes alice's dog through its own synced realm.
        var options = HostOptions(
            dataFolder: plugins.appendingPathComponent("hostB"), pluginFolders: [plugins])
        options.sync.url = url
        let hostB = try TenantHost(options: options, syncTransport: transport)
        let uploaded = try await onThread {
            try hostB.withTenant("alice") { tenant in
                try tenant.runtime.execute(
                    """
                    local r = Realm.asyncOpen(user:flexibleSyncConfiguration{}, { timeout = 10000 })
                    r:objects("Dog"):append{ name = "Bandido", breed = "Mutt", weight = 23, household = "alice" }
                    return r.syncSession:waitForUpload{ timeout = 10000 }
                    """, chunkName: "=hostB"
                ).first?.boolValue
            }
        }
        XCTAssertEqual(uploaded, true)
        let change = try await watch.messages(atLeast: 2, within: 10)[1]
        XCTAssertEqual(change[field: "insertions"], .array([.int(0)]), change.text())
        XCTAssertEqual(change[field: "objects"]?.arrayValues.first?[field: "name"], .string("Bandido"))
        // The API reads the synced realm too.
        let app = fixture.app
        let listed = try await fixture.call { try app.request("GET", "/v1/objects/Dog", token: token) }
        XCTAssertEqual(listed.json?[field: "count"], .int(1), "\(listed)")

        await (hostB.syncTransport as? NetSyncTransport)?.stop()
        await server.stop()
        try await waitFor("not ready once the server is gone") {
            let answer = try admin.request("GET", "/readyz")
            return answer.status == 503 && answer.text.contains("sync server")
        }
        _ = try await watch.close()
        await fixture.stop()
        await (fixture.server.host.syncTransport as? NetSyncTransport)?.stop()
    }

    private func transport(_ sync: HostSyncOptions) throws -> any SyncSessionTransport {
        try NetSyncTransport(
            url: try XCTUnwrap(sync.url), secret: secret,
            options: SyncNetClientOptions(
                backoff: ReconnectBackoff(initial: .milliseconds(50), maximum: .milliseconds(100))))
    }

    /// Polls `condition` (off the cooperative pool) until it holds, for at most 10 s.
    private func waitFor(_ what: String, _ condition: @escaping @Sendable () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? await onThread(condition)) == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTFail("not within 10 s: \(what)")
    }
}

/// Runs blocking work on a new thread, off Swift concurrency's few threads (the network needs them).
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
