import Foundation
import LuaSandbox
import RealmHost
import RealmSyncNet
import Synchronization
import XCTest

/// Hosts that sync (issue 17): tenants' flexible-sync realms on a real server on 127.0.0.1, through
/// the Lua API of docs/LUA-API.md "Sync".
final class HostSyncTests: XCTestCase {
    func testAliceWritesThroughOneHostAndReadsThroughAnother() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let a = try fixture.host("hostA", url: url)
        let b = try fixture.host("hostB", url: url)
        let written = try await a.run(
            "alice",
            openSynced + """
                r:write(function() r:create("Note", { _id = "n1", text = "from host A" }) end)
                return r.syncSession:waitForUpload{ timeout = 10000 }, r.syncSession.state
                """)
        XCTAssertEqual(written, ["true", "active"])
        let read = try await b.run(
            "alice",
            openSynced + """
                local downloaded = r.syncSession:waitForDownload{ timeout = 10000 }
                local note = r:object("Note", "n1")
                return downloaded, note and note.text, r.syncSession.connectionState
                """)
        XCTAssertEqual(read, ["true", "from host A", "connected"])
        // And back: a write on B reaches A's open realm.
        _ = try await b.run(
            "alice",
            """
            local r = Realm(user:flexibleSyncConfiguration{})
            r:write(function() r:object("Note", "n1").text = "edited on B" end)
            return r.syncSession:waitForUpload{ timeout = 10000 }
            """)
        let reread = try await a.run(
            "alice",
            """
            local r = Realm(user:flexibleSyncConfiguration{})
            return r.syncSession:waitForDownload{ timeout = 10000 }, r:object("Note", "n1").text
            """)
        XCTAssertEqual(reread, ["true", "edited on B"])
        await a.stopSync()
        await b.stopSync()
        await server.stop()
    }

    func testBobSeesNoneOfAlicesPrivateObjects() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let a = try fixture.host("hostA", url: url)
        let b = try fixture.host("hostB", url: url)
        let uploaded = try await a.run(
            "alice",
            openSynced + """
                r:write(function()
                  r:create("Note", { _id = "secret", text = "alice's" })
                  r:create("Dog", { _id = "rex", owner = "alice", name = "Rex", shared = false })
                  r:create("Dog", { _id = "fido", owner = "alice", name = "Fido", shared = true })
                end)
                return r.syncSession:waitForUpload{ timeout = 10000 }
                """)
        XCTAssertEqual(uploaded, ["true"])
        let seen = try await b.run(
            "bob",
            openSynced + """
                r.syncSession:waitForDownload{ timeout = 10000 }
                local names = {}
                for _, d in ipairs(r:objects("Dog")) do names[#names + 1] = d.name end
                return #r:objects("Note"), table.concat(names, ",")
                """)
        XCTAssertEqual(seen, ["0", "Fido"], "bob gets only the shared dog")
        await a.stopSync()
        await b.stopSync()
        await server.stop()
    }

    func testAsyncOpenWithNoServerRaisesAfterItsTimeoutNamingTheURL() async throws {
        let fixture = try HostSyncFixture()
        let url = try await fixture.deadURL()
        let host = try fixture.host("hostA", url: url)
        let result = try await host.run(
            "alice",
            """
            local states = {}
            local ok, err = pcall(Realm.asyncOpen, user:flexibleSyncConfiguration{}, {
              timeout = 300, onState = function(state, info) states[#states + 1] = state end })
            return ok, tostring(err), table.concat(states, ",")
            """)
        XCTAssertEqual(result.first, "false")
        XCTAssertTrue(result[1].contains(url), result[1])
        XCTAssertTrue(result[1].contains("timed out after 300 ms"), result[1])
        XCTAssertEqual(result[2], "connecting,error")
        await host.stopSync()
    }

    func testAsyncOpenWithoutASecretReportsWaitingForUserAndRaises() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let host = try fixture.host("hostA", url: try await fixture.url(of: server), signs: false)
        let result = try await host.run(
            "alice",
            """
            local states = {}
            local ok, err = pcall(Realm.asyncOpen, user:flexibleSyncConfiguration{}, {
              timeout = 5000, onState = function(state) states[#states + 1] = state end })
            return ok, tostring(err), table.concat(states, ",")
            """)
        XCTAssertEqual(result.first, "false")
        XCTAssertTrue(result[1].contains("unauthorized"), result[1])
        XCTAssertEqual(result[2], "connecting,waitingForUser,error")
        await host.stopSync()
        await server.stop()
    }

    func testAutoOpenWithNoServerOpensTheFileOnDisk() async throws {
        let fixture = try HostSyncFixture()
        let host = try fixture.host("hostA", url: try await fixture.deadURL())
        let result = try await host.run(
            "alice",
            """
            local config = user:flexibleSyncConfiguration{
              initialSubscriptions = function(subs) subs:append(QuerySubscription("Note")) end }
            local r = Realm.autoOpen(config, { timeout = 5000 })
            r:write(function() r:create("Note", { _id = "offline", text = "kept" }) end)
            return r:object("Note", "offline").text, r.syncSession ~= nil, r.syncSession.connectionState
            """)
        XCTAssertEqual(result[0], "kept")
        XCTAssertEqual(result[1], "true")
        XCTAssertNotEqual(result[2], "connected")
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent("hostA/alice.sync.realm").path))
        await host.stopSync()
    }

    func testOfflineWritesReachTheServerOnceItAnswers() async throws {
        let fixture = try HostSyncFixture()
        let url = try await fixture.deadURL()
        let a = try fixture.host("hostA", url: url)
        _ = try await a.run(
            "alice",
            """
            local config = user:flexibleSyncConfiguration{
              initialSubscriptions = function(subs) subs:append(QuerySubscription("Note")) end }
            local r = Realm.autoOpen(config, { timeout = 200 })
            r:write(function() r:create("Note", { _id = "later", text = "written offline" }) end)
            """)
        // The server comes up on the same port: host A's session connects and uploads.
        let port = try XCTUnwrap(Int(try XCTUnwrap(url.split(separator: ":").last?.split(separator: "/").first)))
        let registry = try PluginRegistry(folders: fixture.pluginFolders)
        let server = try SyncNetServer(
            configuration: SyncNetServerConfiguration(host: "127.0.0.1", port: port),
            storePath: fixture.root.appendingPathComponent("sync.sqlite").path, schema: registry.schema,
            secret: fixture.secret)
        try await server.start()
        let uploaded = try await a.run(
            "alice", "return Realm(user:flexibleSyncConfiguration{}).syncSession:waitForUpload{ timeout = 10000 }")
        XCTAssertEqual(uploaded, ["true"])
        let b = try fixture.host("hostB", url: url)
        let read = try await b.run(
            "alice",
            """
            local config = user:flexibleSyncConfiguration{
              initialSubscriptions = function(subs) subs:append(QuerySubscription("Note")) end }
            local r = Realm.asyncOpen(config, { timeout = 10000 })
            return r:object("Note", "later").text
            """)
        XCTAssertEqual(read, ["written offline"])
        await a.stopSync()
        await b.stopSync()
        await server.stop()
    }

    func testErrorHandlerGetsACompensatingWriteAndTheRealmShowsTheServersState() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let host = try fixture.host("hostA", url: try await fixture.url(of: server))
        let result = try await host.run(
            "alice",
            """
            local errors = {}
            local config = user:flexibleSyncConfiguration{
              initialSubscriptions = function(subs) subs:append(QuerySubscription("Dog", { name = "dogs" })) end,
              errorHandler = function(err) errors[#errors + 1] = err end,
            }
            local r = Realm.asyncOpen(config, { timeout = 10000 })
            r:write(function() r:create("Dog", { _id = "notmine", owner = "bob", name = "Stolen" }) end)
            local s = r.syncSession
            s:waitForUpload{ timeout = 10000 }
            for _ = 1, 100 do
              if #errors > 0 then break end
              s:waitForDownload{ timeout = 100 }
            end
            local e = errors[1]
            local w = e and e.compensatingWrites[1]
            return #errors, e and e.code, w and w.class, w and w.primaryKey, r:object("Dog", "notmine") == nil
            """)
        XCTAssertEqual(result, ["1", "231", "Dog", "notmine", "true"])
        await host.stopSync()
        await server.stop()
    }

    /// Without an `errorHandler` a compensating write is printed where the person works (the REPL's
    /// or the script's output), and `.sync` lists the latest ones (the status), handler or not.
    func testWithoutAnErrorHandlerACompensatingWriteIsPrintedAndListed() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let host = try fixture.host("hostA", url: try await fixture.url(of: server))
        let printed = Printed()
        let recent = try await onThread {
            try host.withTenant("alice") { tenant in
                tenant.runtime.output = { printed.append($0) }
                _ = try tenant.runtime.execute(
                    """
                    local config = user:flexibleSyncConfiguration{
                      initialSubscriptions = function(subs) subs:append(QuerySubscription("Dog", { name = "dogs" })) end,
                    }
                    local r = Realm.asyncOpen(config, { timeout = 10000 })
                    r:write(function() r:create("Dog", { _id = "notmine", owner = "bob", name = "Stolen" }) end)
                    r.syncSession:waitForUpload{ timeout = 10000 }
                    for _ = 1, 100 do
                      if r:object("Dog", "notmine") == nil then break end
                      r.syncSession:waitForDownload{ timeout = 100 }
                    end
                    """, chunkName: "=test")
                tenant.runtime.deliverSyncErrors()
                return tenant.syncStatus.first?.recentErrors ?? []
            }
        }
        let lines = printed.lines.filter { $0.contains("undid") }
        XCTAssertEqual(lines.count, 1, "\(printed.lines)")
        XCTAssertTrue(lines.first?.hasPrefix("sync: the server undid a write to Dog 'notmine': ") ?? false, "\(lines)")
        XCTAssertEqual(recent, lines, "the status lists what was printed")
        await host.stopSync()
        await server.stop()
    }

    /// A write that takes an object out of the writer's subscriptions (but keeps its write rule)
    /// stands, as in Atlas: no compensating write, the object leaves the writer's realm, and
    /// another device of the user subscribed to it sees the change.
    func testAWriteThatMovesAnObjectOutOfTheViewStandsAndTheObjectLeaves() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let a = try fixture.host("hostA", url: url)
        let result = try await a.run(
            "alice",
            """
            local errors = {}
            local config = user:flexibleSyncConfiguration{
              initialSubscriptions = function(subs)
                subs:append(QuerySubscription("Dog", { name = "shared", where = "shared == true" }))
              end,
              errorHandler = function(err) errors[#errors + 1] = err end,
            }
            local r = Realm.asyncOpen(config, { timeout = 10000 })
            r:write(function() r:create("Dog", { _id = "d1", owner = "alice", name = "Rex", shared = true }) end)
            r.syncSession:waitForUpload{ timeout = 10000 }
            r:write(function() r:object("Dog", "d1").shared = false end)
            r.syncSession:waitForUpload{ timeout = 10000 }
            for _ = 1, 100 do
              if r:object("Dog", "d1") == nil then break end
              r.syncSession:waitForDownload{ timeout = 100 }
            end
            return #errors, r:object("Dog", "d1") == nil
            """)
        XCTAssertEqual(result, ["0", "true"])
        let b = try fixture.host("hostB", url: url)
        let seen = try await b.run(
            "alice", openSynced + "return tostring(r:object('Dog', 'd1') and r:object('Dog', 'd1').shared)")
        XCTAssertEqual(seen, ["false"])
        await a.stopSync()
        await b.stopSync()
        await server.stop()
    }

    /// Two hosts append to one list while paused (offline): each host's run stays together once
    /// both have synced, in the same order on both (realm-core's merge; the earlier commit first).
    func testConcurrentAppendsKeepEachHostsRunTogether() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let a = try fixture.host("hostA", url: url)
        let b = try fixture.host("hostB", url: url)
        _ = try await a.run(
            "alice",
            openSynced + """
                r:write(function() r:create("Note", { _id = "n" }) end)
                r.syncSession:waitForUpload{ timeout = 10000 }
                """)
        let reader = untilNote("n")
        for (host, values) in [(a, #""1", "2""#), (b, #""3", "4""#)] {
            _ = try await host.run(
                "alice",
                openSynced + reader + """
                    r.syncSession:pause()
                    r:write(function() for _, v in ipairs({ \(values) }) do r:object("Note", "n").tags:append(v) end end)
                    """)
        }
        let sync = """
            local r = Realm(user:flexibleSyncConfiguration{})
            r.syncSession:resume()
            r.syncSession:waitForUpload{ timeout = 10000 }
            """
        _ = try await a.run("alice", sync)
        _ = try await b.run("alice", sync)
        let read = """
            local r = Realm(user:flexibleSyncConfiguration{})
            r.syncSession:waitForDownload{ timeout = 10000 }
            local out = {}
            for _, v in ipairs(r:object("Note", "n").tags) do out[#out + 1] = v end
            return table.concat(out, ",")
            """
        let onA = try await a.run("alice", read)
        let onB = try await b.run("alice", read)
        XCTAssertEqual(onA, ["1,2,3,4"])
        XCTAssertEqual(onB, ["1,2,3,4"])
        await a.stopSync()
        await b.stopSync()
        await server.stop()
    }

    /// Two hosts write different fields of one step (an element of a list of embedded objects), B
    /// while paused: both writes stay on both hosts, as Realm addresses each by its path through
    /// the element (before, the element travelled whole and the later host's copy won).
    func testTwoHostsWritingDifferentFieldsOfOneListElementKeepBoth() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let a = try fixture.host("hostA", url: url)
        let b = try fixture.host("hostB", url: url)
        _ = try await a.run(
            "alice",
            openSynced + """
                r:write(function() r:create("Note", { _id = "n", steps = { { what = "buy", done = false } } }) end)
                r.syncSession:waitForUpload{ timeout = 10000 }
                """)
        _ = try await b.run(
            "alice",
            openSynced + untilNote("n") + "r.syncSession:pause()")
        _ = try await a.run(
            "alice",
            """
            local r = Realm(user:flexibleSyncConfiguration{})
            r:write(function() r:object("Note", "n").steps[1].what = "buy milk" end)
            r.syncSession:waitForUpload{ timeout = 10000 }
            """)
        _ = try await b.run(
            "alice",
            """
            local r = Realm(user:flexibleSyncConfiguration{})
            r:write(function() r:object("Note", "n").steps[1].done = true end)
            r.syncSession:resume()
            r.syncSession:waitForUpload{ timeout = 10000 }
            """)
        let read = """
            local r = Realm(user:flexibleSyncConfiguration{})
            r.syncSession:waitForDownload{ timeout = 10000 }
            local step = r:object("Note", "n").steps[1]
            return step.what, step.done
            """
        for host in [a, b] {
            let shown = try await host.run("alice", read)
            XCTAssertEqual(shown, ["buy milk", "true"])
        }
        await a.stopSync()
        await b.stopSync()
        await server.stop()
    }

    /// Host B, offline, links a note that host A deletes meanwhile: the server keeps B's link, and
    /// both hosts keep it unresolved (out of the list) until the note is created again, when it
    /// shows on both, as Realm restores an unresolved link.
    func testALinkToADeletedNoteComesBackOnEveryHostWhenTheNoteIsCreatedAgain() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let a = try fixture.host("hostA", url: url)
        let b = try fixture.host("hostB", url: url)
        _ = try await a.run(
            "alice",
            openSynced + """
                r:write(function() r:create("Note", { _id = "n" }); r:create("Note", { _id = "m" }) end)
                r.syncSession:waitForUpload{ timeout = 10000 }
                """)
        _ = try await b.run(
            "alice",
            openSynced + untilNote("m") + "r.syncSession:pause()")
        _ = try await a.run(
            "alice",
            openSynced + """
                r:write(function() r:delete(r:object("Note", "m")) end)
                r.syncSession:waitForUpload{ timeout = 10000 }
                """)
        _ = try await b.run(
            "alice",
            """
            local r = Realm(user:flexibleSyncConfiguration{})
            r:write(function() r:object("Note", "n").related:append(r:object("Note", "m")) end)
            r.syncSession:resume()
            r.syncSession:waitForUpload{ timeout = 10000 }
            """)
        let read = """
            local r = Realm(user:flexibleSyncConfiguration{})
            r.syncSession:waitForDownload{ timeout = 10000 }
            local out = {}
            for _, note in ipairs(r:object("Note", "n").related) do out[#out + 1] = note._id end
            return #out, table.concat(out, ","), r:object("Note", "m") ~= nil
            """
        for host in [a, b] {
            let shown = try await host.run("alice", read)
            XCTAssertEqual(shown, ["0", "", "false"])
        }
        _ = try await a.run(
            "alice",
            """
            local r = Realm(user:flexibleSyncConfiguration{})
            r:write(function() r:create("Note", { _id = "m", text = "again" }) end)
            r.syncSession:waitForUpload{ timeout = 10000 }
            """)
        for host in [a, b] {
            let shown = try await host.run("alice", read)
            XCTAssertEqual(shown, ["1", "m", "true"])
        }
        await a.stopSync()
        await b.stopSync()
        await server.stop()
    }

    func testWaitingIsNotChargedToTheScriptsTimeLimit() async throws {
        let fixture = try HostSyncFixture()
        let host = try fixture.host(
            "hostA", url: try await fixture.deadURL(), limits: LuaLimits(time: .milliseconds(300)))
        let result = try await host.run(
            "alice",
            """
            local r = Realm(user:flexibleSyncConfiguration{})
            return r.syncSession:waitForDownload{ timeout = 600 }, r.syncSession:waitForDownload{ timeout = 10 }
            """)
        XCTAssertEqual(result, ["false", "false"], "0.6 s of waiting under a 0.3 s time limit")
        await host.stopSync()
    }

    /// Only a wait's sleeps are off the budget: Lua it runs meanwhile counts. Here five
    /// `errorHandler` calls of 0.4 s each, made inside `waitForDownload`, pass a 1.5 s time limit,
    /// which no single one does.
    func testLuaAWaitRunsCountsAgainstTheScriptsTimeLimit() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let host = try fixture.host(
            "hostA", url: try await fixture.url(of: server), limits: LuaLimits(time: .milliseconds(1500)))
        var outcome = ""
        do {
            outcome = try await host.run(
                "alice",
                """
                local handled = 0
                local config = user:flexibleSyncConfiguration{
                  initialSubscriptions = function(subs) subs:append(QuerySubscription("Dog", { name = "dogs" })) end,
                  errorHandler = function(err)
                    handled = handled + 1
                    local t = os.clock() while os.clock() - t < 0.4 do end
                  end,
                }
                local r = Realm.asyncOpen(config, { timeout = 1000 })
                for i = 1, 5 do
                  r:write(function() r:create("Dog", { _id = "notmine" .. i, owner = "bob", name = "Stolen" }) end)
                  r.syncSession:waitForUpload{ timeout = 1000 }
                end
                for _ = 1, 50 do
                  if handled >= 5 then break end
                  r.syncSession:waitForDownload{ timeout = 100 }
                end
                return "ran past the limit with " .. handled .. " handler calls"
                """
            ).joined()
        } catch {
            outcome = "\(error)"
        }
        XCTAssertTrue(outcome.contains("time limit"), outcome)
        await host.stopSync()
        await server.stop()
    }

    func testPauseAndResume() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let host = try fixture.host("hostA", url: try await fixture.url(of: server))
        let result = try await host.run(
            "alice",
            openSynced + """
                local s = r.syncSession
                s:pause()
                local paused = s.state .. "/" .. s.connectionState
                r:write(function() r:create("Note", { _id = "p", text = "while paused" }) end)
                local uploadedWhilePaused = s:waitForUpload{ timeout = 200 }
                s:resume()
                return paused, tostring(uploadedWhilePaused), s.state, tostring(s:waitForUpload{ timeout = 10000 })
                """)
        XCTAssertEqual(result, ["inactive/disconnected", "false", "active", "true"])
        await host.stopSync()
        await server.stop()
    }

    func testWaitForSyncReturnsOnceTheNewSetIsCompleteAndRaisesARefusedOne() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let host = try fixture.host("hostA", url: try await fixture.url(of: server))
        let result = try await host.run(
            "alice",
            openSynced + """
                local subs = r.subscriptions
                subs:update(function(s) s:append(QuerySubscription("Dog", { name = "mine", where = "owner == 'alice'" })) end)
                subs:waitForSync{ timeout = 10000 }
                local complete = subs.state
                subs:update(function(s) s:append(QuerySubscription("Dog", { name = "bad", where = "name == 'x'" })) end)
                local ok, err = pcall(function() subs:waitForSync{ timeout = 10000 } end)
                return complete, ok, subs.state, tostring(err):find("name", 1, true) ~= nil, err.code
                """)
        // Typed as Realm's (`SubscriptionFailed`), so a script can tell it from other errors.
        XCTAssertEqual(result, ["complete", "false", "error", "true", "SubscriptionFailed"])
        await host.stopSync()
        await server.stop()
    }

    func testWithoutASyncURLFlexibleSyncRealmsOpenLocalOnly() async throws {
        let fixture = try HostSyncFixture()
        let host = try fixture.host("hostA", url: nil)
        XCTAssertNil(host.syncTransport)
        let result = try await host.run(
            "alice",
            """
            local states = {}
            local config = user:flexibleSyncConfiguration{}
            local r = Realm.asyncOpen(config, { onState = function(s) states[#states + 1] = s end })
            local auto = Realm.autoOpen(config)
            return r.syncSession == nil, auto.syncSession == nil, table.concat(states, ","), r.configuration.fileURL
            """)
        XCTAssertEqual(result, ["true", "true", "open", "alice.sync.realm"])
    }
}

extension HostSyncTests {
    func testWaitingInsideAWriteIsRefused() async throws {
        let fixture = try HostSyncFixture()
        let host = try fixture.host("hostA", url: try await fixture.deadURL())
        let result = try await host.run(
            "alice",
            """
            local r = Realm(user:flexibleSyncConfiguration{})
            r:beginWrite()
            local ok, err = pcall(function() return r.syncSession:waitForUpload{ timeout = 100 } end)
            r:cancelWrite()
            return ok, tostring(err)
            """)
        XCTAssertEqual(result.first, "false")
        XCTAssertTrue(result.last?.contains("inside a write transaction") == true, "\(result)")
        await host.stopSync()
    }
}

extension HostSyncTests {
    func testTheTenantsSyncStatusNamesTheFileServerAndSubscriptions() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let host = try fixture.host("hostA", url: url)
        let none = try host.withTenant("alice") { $0.syncStatus.count }
        XCTAssertEqual(none, 0, "no session before a script opens a flexible-sync realm")
        _ = try await host.run("alice", openSynced + "return r.syncSession:waitForUpload{ timeout = 10000 }")
        let status = try XCTUnwrap(try host.withTenant("alice") { $0.syncStatus }.first)
        XCTAssertEqual(status.file, "alice.sync.realm")
        XCTAssertEqual(status.server, url)
        XCTAssertEqual(status.state, "active")
        XCTAssertEqual(status.connection, "connected")
        XCTAssertFalse(status.waitingForUpload)
        XCTAssertEqual(status.subscriptionState, "complete")
        XCTAssertEqual(status.subscriptions, ["notes: Note where TRUEPREDICATE", "dogs: Dog where TRUEPREDICATE"])
        await host.stopSync()
        await server.stop()
    }
}

extension HostSyncTests {
    /// A tenant evicted from the cache closes its session; opened again, it syncs on a new one, and
    /// what it wrote offline in between (in the file) goes up.
    func testATenantEvictedAndOpenedAgainSyncsOnANewSession() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let a = try fixture.host("hostA", url: url, cacheSize: 1)
        _ = try await a.run(
            "alice",
            openSynced + """
                r:write(function() r:create("Note", { _id = "before", text = "1" }) end)
                return r.syncSession:waitForUpload{ timeout = 10000 }
                """)
        _ = try await a.run("bob", "return 1")
        XCTAssertEqual(a.openTenants, ["bob"], "alice's tenant (and its session) is closed")
        let again = try await a.run(
            "alice",
            """
            local r = Realm(user:flexibleSyncConfiguration{})
            r:write(function() r:create("Note", { _id = "after", text = "2" }) end)
            return r.syncSession:waitForUpload{ timeout = 10000 }, r.syncSession:waitForDownload{ timeout = 10000 }
            """)
        XCTAssertEqual(again, ["true", "true"])
        let b = try fixture.host("hostB", url: url)
        let read = try await b.run(
            "alice", openSynced + "return r:object('Note', 'before').text, r:object('Note', 'after').text")
        XCTAssertEqual(read, ["1", "2"])
        await a.stopSync()
        await b.stopSync()
        await server.stop()
    }
}

/// Lines a runtime printed, from whichever thread.
private final class Printed: Sendable {
    private let list = Mutex<[String]>([])
    func append(_ line: String) { list.withLock { $0.append(line) } }
    var lines: [String] { list.withLock { $0 } }
}
