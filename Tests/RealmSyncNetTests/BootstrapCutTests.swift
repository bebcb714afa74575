import Foundation
import RealmDatabase
import RealmSync
import XCTest

@testable import RealmSyncNet

/// A new subscription's bootstrap flows through a proxy that cuts the connection at random byte
/// offsets (inside frames, between batches): after every cut the replica holds the subscription's
/// objects all or none, and once the cuts stop it holds them all.
final class BootstrapCutTests: XCTestCase {
    static let objects = 300

    func testANewSubscriptionsObjectsArriveAllOrNoneWhereverTheConnectionIsCut() async throws {
        let fixture = try NetFixture()
        // Ten objects per bootstrap message: a cut can fall between batches as well as inside one.
        let engine = try SyncServer(
            store: try SQLiteSyncStore(path: fixture.storePath, schema: NetFixture.schema), schema: NetFixture.schema,
            wallClock: SystemWallClock(), options: SyncServerOptions(bootstrapBatchSize: 10),
            salts: { UInt64.random(in: 1...UInt64.max) })
        let server = try SyncNetServer(
            configuration: SyncNetServerConfiguration(host: "127.0.0.1", port: 0), engine: engine,
            secret: fixture.secret)
        let port = try await server.start()
        let writer = try fixture.replica("writer", user: "alice")
        let writerHost = try fixture.client(url: try await fixture.url(of: server))
        try await writerHost.register(writer, session: 1, user: "alice")
        await writerHost.start()
        try writer.withEndpoint { client in
            try client.realm.write {
                for i in 0..<Self.objects {
                    let text = (0..<4).map { _ in UUID().uuidString }.joined()
                    _ = try client.realm.create("Item", value: ["_id": .string("item\(i)"), "text": .string(text)])
                }
            }
        }
        await writerHost.flush()
        let stored = await eventually { (try? fixture.serverState().objects.count) == Self.objects }
        XCTAssertTrue(stored, "the server did not store the writer's items")

        let proxy = try CuttingProxy(upstreamPort: port)
        let reader = SharedSyncEndpoint(
            try SyncClient(
                configuration: Realm.Configuration(
                    fileURL: fixture.folder.appendingPathComponent("reader.realm"), schema: NetFixture.schema),
                user: "alice", wallClock: SystemWallClock(), viewSource: .subscriptions))
        let readerHost = try fixture.client(url: proxy.url)
        try await readerHost.register(reader, session: 1, user: "alice")
        await readerHost.start()
        let connected = await eventually { await readerHost.state == .connected }
        XCTAssertTrue(connected, "the reader did not connect through the proxy")

        proxy.cut(after: 1...30_000)
        proxy.dropAll()
        try reader.withEndpoint { client in
            try client.realm.subscriptions.update { try $0.append(QuerySubscription(className: "Item")) }
        }
        await readerHost.flush()
        var seen: Set<Int> = []
        let deadline = ContinuousClock.now + .seconds(60)
        var complete = false
        while !complete && ContinuousClock.now < deadline {
            let (count, state) = try reader.withEndpoint { client in
                (try client.realm.objects("Item").count, try client.realm.subscriptions.state)
            }
            seen.insert(count)
            complete = count == Self.objects && state == .complete
            if proxy.cuts >= 8 { proxy.cut(after: nil) }
            try? await Task.sleep(for: .milliseconds(1))
        }
        XCTAssertTrue(complete, "the subscription did not complete; counts seen: \(seen.sorted())")
        XCTAssertTrue(seen.isSubset(of: [0, Self.objects]), "a bootstrap seen in part: \(seen.sorted())")
        XCTAssertGreaterThan(proxy.cuts, 0, "no connection was cut")
        print("BootstrapCutTests: \(proxy.cuts) connections cut; counts seen: \(seen.sorted())")

        proxy.stop()
        await readerHost.stop()
        await writerHost.stop()
        await server.stop()
    }
}
