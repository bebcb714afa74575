import Foundation
import RealmHost
import RealmSync
import RealmSyncNet
import XCTest

/// Client reset through Lua (docs/LUA-API.md "Sync"): alice's host syncs a note, the server stops,
/// she writes offline, and a server on a new empty store (the store was replaced) answers on the
/// same port: her session is reset as her configuration's `clientResetMode` says, and her
/// `errorHandler` receives the reset.
final class HostClientResetTests: XCTestCase {
    /// Lua: waits (up to 10 s) until the session's error handler has received the reset, leaving
    /// the session in `s`.
    private static let untilTheResetIsReported = """
        local s = R.syncSession
        for _ = 1, 200 do
          if #ERRORS > 0 then break end
          s:waitForDownload{ timeout = 50 }
        end
        """
    /// A server on `store` (a file under the fixture's root) listening on `port` (0: a free one).
    private func startServer(_ fixture: HostSyncFixture, store: String, port: Int) async throws -> SyncNetServer {
        let registry = try PluginRegistry(folders: fixture.pluginFolders)
        let server = try SyncNetServer(
            configuration: SyncNetServerConfiguration(host: "127.0.0.1", port: port),
            storePath: fixture.root.appendingPathComponent(store).path, schema: registry.schema,
            permissions: try SyncPermissions.compile(registry.syncRules, schema: registry.schema),
            secret: fixture.secret)
        try await server.start()
        return server
    }

    /// The first server, on a free port, its URL and the port (the second server takes it over).
    private func firstServer(_ fixture: HostSyncFixture) async throws -> (SyncNetServer, String, Int) {
        let first = try await startServer(fixture, store: "first.sqlite", port: 0)
        let url = try await fixture.url(of: first)
        let port = try XCTUnwrap(Int(try XCTUnwrap(url.split(separator: ":").last?.split(separator: "/").first)))
        return (first, url, port)
    }

    /// Runs the scenario with `mode`; returns what alice's script saw after the reset and the host.
    private func resetScenario(mode: String) async throws -> (result: [String], sessionError: String?) {
        let fixture = try HostSyncFixture()
        let (first, url, port) = try await firstServer(fixture)
        let host = try fixture.host("hostA", url: url)
        let synced = try await host.run(
            "alice",
            """
            ERRORS = {}
            local config = user:flexibleSyncConfiguration{
              initialSubscriptions = function(subs) subs:append(QuerySubscription("Note")) end,
              errorHandler = function(err) ERRORS[#ERRORS + 1] = err end,
              clientResetMode = "\(mode)",
            }
            R = Realm.asyncOpen(config, { timeout = 10000 })
            R:write(function() R:create("Note", { _id = "synced", text = "on the first server" }) end)
            return R.syncSession:waitForUpload{ timeout = 10000 }
            """)
        XCTAssertEqual(synced, ["true"])
        await first.stop()
        // Offline: a note, and a subscription (realm-core: DiscardLocal loses both).
        _ = try await host.run(
            "alice",
            """
            R:write(function() R:create("Note", { _id = "offline", text = "written offline" }) end)
            R.subscriptions:update(function(s) s:append(QuerySubscription("Dog", { name = "offline" })) end)
            """)
        let second = try await startServer(fixture, store: "second.sqlite", port: port)
        let result = try await host.run(
            "alice",
            """
            \(Self.untilTheResetIsReported)
            local uploaded = "\(mode)" ~= "manual" and s:waitForUpload{ timeout = 10000 }
            local e = ERRORS[1]
            if "\(mode)" ~= "manual" then R.subscriptions:waitForSync{ timeout = 10000 } end
            return #ERRORS, e and e.kind, e and e.code, e and e.message, tostring(uploaded),
              R:object("Note", "offline") ~= nil, R:object("Note", "synced") ~= nil,
              R.subscriptions:first("offline") ~= nil, s.state .. "/" .. s.connectionState
            """)
        // What the new server has, as a second host of alice's sees it.
        if mode == "recoverUnsyncedChanges" {
            let b = try fixture.host("hostB", url: url)
            let read = try await b.run(
                "alice",
                """
                local config = user:flexibleSyncConfiguration{
                  initialSubscriptions = function(subs) subs:append(QuerySubscription("Note")) end }
                local r = Realm.asyncOpen(config, { timeout = 10000 })
                return #r:objects("Note"), r:object("Note", "offline").text
                """)
            XCTAssertEqual(read, ["1", "written offline"], "the unsynced note reached the new server, alone")
            await b.stopSync()
        }
        // What `.sync` shows as the session's error.
        let sessionError = try host.withTenant("alice") { $0.syncStatus.first?.sessionError }
        await host.stopSync()
        await second.stop()
        return (result, sessionError)
    }

    func testRecoverKeepsTheOfflineWriteAndTellsTheErrorHandler() async throws {
        let (result, sessionError) = try await resetScenario(mode: "recoverUnsyncedChanges")
        XCTAssertNil(sessionError, "the session goes on")
        XCTAssertEqual(result.count, 9, "\(result)")
        XCTAssertEqual(Array(result.prefix(3)), ["1", "clientReset", "1032"])
        XCTAssertTrue(result[3].contains("recoverUnsyncedChanges") && result[3].contains("sync error 208"), result[3])
        XCTAssertEqual(Array(result[4..<7]), ["true", "true", "false"], "uploaded, kept, the old note gone")
        XCTAssertEqual(Array(result.suffix(2)), ["true", "active/connected"], "the offline subscription kept")
    }

    func testDiscardDropsTheOfflineWriteAndEndsWithTheServersState() async throws {
        let (result, _) = try await resetScenario(mode: "discardUnsyncedChanges")
        XCTAssertEqual(Array(result.prefix(3)), ["1", "clientReset", "1032"], "\(result)")
        XCTAssertTrue(result[3].contains("discardUnsyncedChanges"), result[3])
        XCTAssertEqual(Array(result[4..<7]), ["true", "false", "false"], "\(result)")
        XCTAssertEqual(
            Array(result.suffix(2)), ["false", "active/connected"], "the offline subscription lost, as realm-core's")
    }

    func testManualLeavesTheRealmAndStopsTheSession() async throws {
        let (result, sessionError) = try await resetScenario(mode: "manual")
        XCTAssertTrue(
            sessionError?.hasPrefix("Client reset required (manual mode)") == true, "\(sessionError ?? "nil")")
        XCTAssertEqual(Array(result.prefix(3)), ["1", "clientReset", "1032"], "\(result)")
        XCTAssertTrue(result[3].contains("manual"), result[3])
        XCTAssertEqual(Array(result[4..<7]), ["false", "true", "true"], "nothing changed locally")
        XCTAssertEqual(
            Array(result.suffix(2)), ["true", "inactive/disconnected"], "the session stops, as realm-core's")
    }

    /// realm-core's flx "Recover: offline writes with associated subscriptions in the correct
    /// order": offline, twenty times, the subscriptions become one note's and that note is created.
    /// Recovered after the reset, each create is judged under the set it was made in (the sets go
    /// to the server in order, between the writes): none is refused, the last set's view holds one
    /// note, and subscribing to every note brings all twenty.
    func testRecoverSendsEachOfflineSetBeforeTheWritesMadeUnderIt() async throws {
        let fixture = try HostSyncFixture()
        let (first, url, port) = try await firstServer(fixture)
        let host = try fixture.host("hostA", url: url)
        _ = try await host.run(
            "alice",
            """
            ERRORS = {}
            local config = user:flexibleSyncConfiguration{
              initialSubscriptions = function(subs) subs:append(QuerySubscription("Note")) end,
              errorHandler = function(err) ERRORS[#ERRORS + 1] = err end,
            }
            R = Realm.asyncOpen(config, { timeout = 10000 })
            R:write(function() R:create("Note", { _id = "synced" }) end)
            R.syncSession:waitForUpload{ timeout = 10000 }
            """)
        await first.stop()
        _ = try await host.run(
            "alice",
            """
            for i = 1, 20 do
              R.subscriptions:update(function(s)
                s:removeAll()
                s:append(QuerySubscription("Note", { where = "_id == 'n" .. i .. "'" }))
              end)
              R:write(function() R:create("Note", { _id = "n" .. i }) end)
            end
            """)
        let second = try await startServer(fixture, store: "second.sqlite", port: port)
        let result = try await host.run(
            "alice",
            """
            \(Self.untilTheResetIsReported)
            s:waitForUpload{ timeout = 10000 }
            R.subscriptions:waitForSync{ timeout = 10000 }
            local kinds = {}
            for _, e in ipairs(ERRORS) do kinds[#kinds + 1] = e.kind == "clientReset" and e.kind or e.message end
            local inView = #R:objects("Note")
            R.subscriptions:update(function(subs) subs:removeAll(); subs:append(QuerySubscription("Note")) end)
            R.subscriptions:waitForSync{ timeout = 10000 }
            return table.concat(kinds, ","), inView, #R:objects("Note"), R:object("Note", "n20") ~= nil
            """)
        XCTAssertEqual(result, ["clientReset", "1", "20", "true"], "no write refused; one note in view, then all")
        await host.stopSync()
        await second.stop()
    }
}
