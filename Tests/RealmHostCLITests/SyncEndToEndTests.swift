import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 17 end to end, with processes only: a `realm-host sync-server` and hosts that are
/// `realm-host run` processes, each host its own data folder, all on 127.0.0.1, with the repository's
/// doggo plugin (Dog: read and write `household == $user`; Company: no rules, private per user).
final class SyncEndToEndTests: XCTestCase {
    func testAliceWritesOnHostAReadsOnHostBAndBobSeesNoneOfIt() throws {
        let cluster = try SyncCluster()
        try cluster.startServer()
        let written = try cluster.run(
            "hostA", user: "alice",
            """
            local r = Realm.asyncOpen(config, { timeout = 20000 })
            r:write(function()
              r:create("Dog", { name = "Rex", household = "alice" })
              r:create("Company", { companyName = "Alice Inc" })
            end)
            print("uploaded", r.syncSession:waitForUpload{ timeout = 20000 })
            """)
        XCTAssertTrue(written.contains("uploaded\ttrue"), written)

        let read = try cluster.run("hostB", user: "alice", asyncOpenAndList)
        XCTAssertTrue(read.contains("dogs\tRex\n"), read)
        XCTAssertTrue(read.contains("companies\tAlice Inc\n"), read)

        let bob = try cluster.run("hostB", user: "bob", asyncOpenAndList)
        XCTAssertTrue(bob.contains("dogs\t\n"), "bob got one of alice's dogs:\n\(bob)")
        XCTAssertTrue(bob.contains("companies\t\n"), "bob got alice's private company:\n\(bob)")
        cluster.stopServer()
    }

    /// `--sync-url` lists a stopped server first: the host fails over to the second, its write
    /// arrives there and reaches host B.
    func testAHostFailsOverToTheNextServerWhenTheFirstIsStopped() throws {
        let cluster = try SyncCluster()
        try cluster.startServer()
        let stopped = cluster.url
        cluster.stopServer()
        try cluster.startServer()
        XCTAssertNotEqual(stopped, cluster.url, "the second server took the first one's port")
        let written = try cluster.run(
            "hostA", user: "alice", syncURL: "\(stopped),\(cluster.url)",
            """
            local r = Realm.asyncOpen(config, { timeout = 20000 })
            r:write(function() r:create("Dog", { name = "Failover", household = "alice" }) end)
            print("uploaded", r.syncSession:waitForUpload{ timeout = 20000 })
            """)
        XCTAssertTrue(written.contains("uploaded\ttrue"), written)
        let read = try cluster.run("hostB", user: "alice", asyncOpenAndList)
        XCTAssertTrue(read.contains("dogs\tFailover\n"), read)
        cluster.stopServer()
    }

    /// The server goes away: `autoOpen` opens from disk within its timeout, `asyncOpen` raises after
    /// its own, writes made meanwhile are kept and reach host B once the server is back on its folder.
    func testOfflineWritesReachHostBAfterTheServerReturns() throws {
        let cluster = try SyncCluster()
        try cluster.startServer()
        let online = try cluster.run(
            "hostA", user: "alice",
            """
            local r = Realm.asyncOpen(config, { timeout = 20000 })
            r:write(function() r:create("Dog", { name = "Online", household = "alice" }) end)
            print("uploaded", r.syncSession:waitForUpload{ timeout = 20000 })
            """)
        XCTAssertTrue(online.contains("uploaded\ttrue"), online)
        cluster.stopServer()

        let offline = try cluster.run(
            "hostA", user: "alice",
            """
            local started = Date()
            local r = Realm.autoOpen(config, { timeout = 1000 })
            print("autoOpen within timeout + 100 ms", elapsedSince(started) < 1100)
            r:write(function() r:create("Dog", { name = "Offline", household = "alice" }) end)
            print("uploaded while down", r.syncSession:waitForUpload{ timeout = 200 })
            """)
        XCTAssertTrue(offline.contains("autoOpen within timeout + 100 ms\ttrue"), offline)
        XCTAssertTrue(offline.contains("uploaded while down\tfalse"), offline)

        let refused = try cluster.run(
            "hostB", user: "alice",
            """
            local started = Date()
            local ok, err = pcall(Realm.asyncOpen, config, { timeout = 300 })
            print("asyncOpen", ok, err)
            print("raised after its timeout", elapsedSince(started) >= 300)
            """)
        XCTAssertTrue(refused.contains("asyncOpen\tfalse\t"), refused)
        XCTAssertTrue(refused.contains("timed out after 300 ms"), refused)
        XCTAssertTrue(refused.contains("raised after its timeout\ttrue"), refused)

        try cluster.startServer()
        let uploaded = try cluster.run(
            "hostA", user: "alice", "print('uploaded', Realm(config).syncSession:waitForUpload{ timeout = 20000 })")
        XCTAssertTrue(uploaded.contains("uploaded\ttrue"), uploaded)
        let read = try cluster.run("hostB", user: "alice", asyncOpenAndList)
        XCTAssertTrue(read.contains("dogs\tOffline,Online\n"), read)
        cluster.stopServer()
    }

    /// Alice gives her dog to bob's household: the server refuses (the dog would leave what she may
    /// write), her `errorHandler` gets code 231 naming the dog, and her realm shows the server's value.
    func testACompensatingWriteReachesTheErrorHandlerAndTheServersValueTheRealm() throws {
        let cluster = try SyncCluster()
        try cluster.startServer()
        let result = try cluster.run(
            "hostA", user: "alice",
            """
            local r = Realm.asyncOpen(config, { timeout = 20000 })
            local dog = r:write(function() return r:create("Dog", { name = "Buddy", household = "alice" }) end)
            print("first upload", r.syncSession:waitForUpload{ timeout = 20000 })
            r:write(function() dog.household = "bob" end)
            r.syncSession:waitForUpload{ timeout = 20000 }
            for _ = 1, 200 do
              if #errors > 0 then break end
              r.syncSession:waitForDownload{ timeout = 100 }
            end
            local e = errors[1]
            local w = e and e.compensatingWrites[1]
            print("error", e and e.code, w and w.class, w and tostring(w.primaryKey) == tostring(dog._id))
            print("household", r:objects("Dog"):where("name == 'Buddy'")[1].household)
            """)
        XCTAssertTrue(result.contains("first upload\ttrue"), result)
        XCTAssertTrue(result.contains("error\t231\tDog\ttrue"), result)
        XCTAssertTrue(result.contains("household\talice"), result)
        let elsewhere = try cluster.run("hostB", user: "alice", asyncOpenAndList)
        XCTAssertTrue(elsewhere.contains("dogs\tBuddy\n"), elsewhere)
        cluster.stopServer()
    }

    /// Opens the realm after downloading and prints its dogs' and companies' names, sorted.
    private let asyncOpenAndList = """
        local r = Realm.asyncOpen(config, { timeout = 20000 })
        local function names(results, field)
          local out = {}
          for _, o in ipairs(results:sorted(field)) do out[#out + 1] = o[field] end
          return table.concat(out, ",")
        end
        print("dogs", names(r:objects("Dog"), "name"))
        print("companies", names(r:objects("Company"), "companyName"))
        """
}

/// A sync server process on a data folder that outlives it, and hosts run as `realm-host run`
/// processes (one data folder each) that sync with whichever server runs now. The secret comes from
/// the environment, for the server and the hosts alike.
final class SyncCluster {
    let workspace: Workspace
    private(set) var server: SyncServerProcess?
    private(set) var url = ""
    let environment = [
        "REALMHOST_SYNC_SECRET": "a secret of at least thirty-two bytes, shared by the cluster"
    ]

    init() throws { workspace = try Workspace() }

    deinit { stopServer() }

    /// Starts the server on a free port (the same data folder every time).
    func startServer(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try SyncServerProcess(
            ["--listen", "127.0.0.1:0", "--data", "server", "--plugins", "plugins"], in: workspace.root,
            environment: environment)
        let port = try XCTUnwrap(server.listeningPort(file: file, line: line), file: file, line: line)
        self.server = server
        url = "ws://127.0.0.1:\(port)/sync"
    }

    /// Stops the server with SIGTERM (it integrates what arrived first).
    func stopServer(file: StaticString = #filePath, line: UInt = #line) {
        guard let server else { return }
        let status = server.stop(with: SIGTERM)
        XCTAssertEqual(status, 0, "the server's exit status; its standard error:\n\(server.standardError)")
        self.server = nil
    }

    /// Runs `body` after the common prelude (`config`, `errors`, `elapsedSince`) as `user` on the host
    /// whose data folder is `host`; its standard output. A failing script fails the test.
    /// `syncURL`: the `--sync-url` given (the running server's by default).
    func run(
        _ host: String, user: String, syncURL: String? = nil, _ body: String, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> String {
        let script = try workspace.write("script-\(UUID().uuidString).lua", Self.prelude + body)
        let result = try workspace.run(
            ["run", "--data", host, "--user", user, "--sync-url", syncURL ?? url, script], environment: environment)
        XCTAssertEqual(
            result.status, 0, "\(host) as \(user): \(result.stderr)\nserver:\n\(server?.standardError ?? "down")",
            file: file, line: line)
        // The host shuts its sync connection down in order: no SwiftNIO complaint on the way out
        // ("Cannot schedule tasks on an EventLoop that has already shut down").
        XCTAssertFalse(
            result.stderr.contains("EventLoop"), "\(host) as \(user): \(result.stderr)", file: file, line: line)
        return result.stdout
    }

    /// Every script's start: the dogs and companies subscribed, errors collected, a wall clock.
    static let prelude = """
        local errors = {}
        local config = user:flexibleSyncConfiguration{
          initialSubscriptions = function(subs)
            subs:append(QuerySubscription("Dog", { name = "dogs" }))
            subs:append(QuerySubscription("Company", { name = "companies" }))
          end,
          errorHandler = function(err) errors[#errors + 1] = err end,
        }
        local function elapsedSince(start)
          local now = Date()
          return (now.seconds - start.seconds) * 1000 + (now.nanoseconds - start.nanoseconds) / 1e6
        end

        """
}
