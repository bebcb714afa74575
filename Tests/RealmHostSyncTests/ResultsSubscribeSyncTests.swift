import Foundation
import RealmHost
import RealmSyncNet
import XCTest

/// `results:subscribe{…}` against a real server on 127.0.0.1: the subscription's objects are in the
/// realm when it returns; `waitForSync` says when it waits, bounded by `timeout`.
final class ResultsSubscribeSyncTests: XCTestCase {
    func testSubscribeReturnsOnceTheServersObjectsAreInTheRealm() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let a = try fixture.host("hostA", url: url)
        let b = try fixture.host("hostB", url: url)
        let uploaded = try await a.run(
            "alice",
            openSynced + """
                r:write(function()
                  r:create("Dog", { _id = "d1", owner = "alice", name = "Rex", shared = false })
                  r:create("Dog", { _id = "d2", owner = "alice", name = "Fido", shared = true })
                end)
                return r.syncSession:waitForUpload{ timeout = 10000 }
                """)
        XCTAssertEqual(uploaded, ["true"])
        let read = try await b.run(
            "alice",
            """
            local r = Realm.asyncOpen(user:flexibleSyncConfiguration{}, { timeout = 10000 })
            local before = #r:objects("Dog")
            local shared = r:objects("Dog"):where("shared == true"):subscribe{ name = "shared", timeout = 10000 }
            local sharedCount, state = #shared, r.subscriptions.state
            local mine = r:objects("Dog"):where("owner == 'alice'"):subscribe{ timeout = 10000 }
            return before, sharedCount, shared[1].name, state, #mine, #r.subscriptions
            """)
        XCTAssertEqual(read, ["0", "1", "Fido", "complete", "2", "2"])
        await a.stopSync()
        await b.stopSync()
        await server.stop()
    }

    /// `always` writes the subscription again and waits for that set's bootstrap (RLMResults), so
    /// what another device wrote meanwhile is in the realm when it returns, with no download wait.
    func testAlwaysWaitsForTheServersCurrentData() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let url = try await fixture.url(of: server)
        let a = try fixture.host("hostA", url: url)
        let b = try fixture.host("hostB", url: url)
        _ = try await a.run(
            "alice",
            """
            R = Realm.asyncOpen(user:flexibleSyncConfiguration{}, { timeout = 10000 })
            R:objects("Dog"):where("owner == 'alice'"):subscribe{ name = "mine", timeout = 10000 }
            R.syncSession:pause()   -- nothing arrives in the background meanwhile
            """)
        _ = try await b.run(
            "alice",
            openSynced + """
                r:write(function() r:create("Dog", { _id = "late", owner = "alice", name = "Late", shared = false }) end)
                r.syncSession:waitForUpload{ timeout = 10000 }
                """)
        let seen = try await a.run(
            "alice",
            """
            R.syncSession:resume()
            local before = #R:objects("Dog")
            local mine = R:objects("Dog"):where("owner == 'alice'")
              :subscribe{ name = "mine", waitForSync = "always", timeout = 10000 }
            return before, #mine
            """)
        // (`before` is 0 in practice: the download comes with the new set's bootstrap.)
        XCTAssertEqual(seen.last, "1", "\(seen)")
        await a.stopSync()
        await b.stopSync()
        await server.stop()
    }

    func testWaitForSyncSaysWhenSubscribeWaitsAndTheTimeoutBoundsIt() async throws {
        let fixture = try HostSyncFixture()
        let host = try fixture.host("hostA", url: try await fixture.deadURL())
        let result = try await host.run(
            "alice",
            """
            local r = Realm(user:flexibleSyncConfiguration{})
            local dogs = r:objects("Dog"):subscribe{ name = "dogs", waitForSync = "never" }
            local pending = r.subscriptions.state
            local existing = r:objects("Dog"):subscribe{ name = "dogs", timeout = 50 }
            local okAlways, errAlways = pcall(function()
              r:objects("Dog"):subscribe{ name = "dogs", waitForSync = "always", timeout = 50 }
            end)
            local okNew, errNew = pcall(function()
              r:objects("Dog"):where("shared == true"):subscribe{ timeout = 50 }
            end)
            return dogs.className, pending, existing.className, okAlways, tostring(errAlways), okNew,
              tostring(errNew), #r.subscriptions
            """)
        XCTAssertEqual(result.count, 8, "\(result)")
        XCTAssertEqual(result[0], "Dog")
        XCTAssertEqual(result[1], "pending", "no server answered: the set waits")
        XCTAssertEqual(result[2], "Dog", "onCreation does not wait for a subscription that exists")
        XCTAssertEqual(result[3], "false", "always waits, and times out with no server")
        XCTAssertTrue(result[4].contains("results:subscribe: subscription set"), result[4])
        XCTAssertTrue(result[4].contains("after the timeout"), result[4])
        XCTAssertEqual(result[5], "false", "a new subscription waits on creation")
        XCTAssertEqual(result[7], "2", "the new subscription stays, as Realm's does after a timeout")
        await host.stopSync()
    }

    func testUnsubscribeLetsTheServerTakeTheObjectsOutOfTheRealm() async throws {
        let fixture = try HostSyncFixture()
        let server = try await fixture.startServer()
        let host = try fixture.host("hostA", url: try await fixture.url(of: server))
        let result = try await host.run(
            "alice",
            """
            local r = Realm.asyncOpen(user:flexibleSyncConfiguration{}, { timeout = 10000 })
            local mine = r:objects("Dog"):where("owner == 'alice'"):subscribe{ timeout = 10000 }
            r:write(function() r:create("Dog", { _id = "d1", owner = "alice", name = "Rex", shared = false }) end)
            r.syncSession:waitForUpload{ timeout = 10000 }
            local before = #mine
            r:objects("Dog"):where("owner == 'alice'"):unsubscribe()
            r.subscriptions:waitForSync{ timeout = 10000 }
            return before, #r.subscriptions, #r:objects("Dog")
            """)
        XCTAssertEqual(result, ["1", "0", "0"])
        await host.stopSync()
        await server.stop()
    }
}
