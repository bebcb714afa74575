import Foundation
import RealmDatabase

@testable import RealmSync

extension ManualWallClock {
    /// The clock the client tests start from.
    static func clientStart() -> ManualWallClock { ManualWallClock(1_000_000) }

    func advance(_ milliseconds: UInt64) { set(nowMilliseconds() + milliseconds) }
}

/// A folder of its own per test, removed when the test ends.
final class ClientTestFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("client-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func configuration(_ name: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: url.appendingPathComponent(name + ".realm"), schema: ClientTestSchema.schema)
    }
}

enum ClientTestSchema {
    /// Person (synced: a primary key) with every kind of field; Address embedded; Note local (no key).
    static var schema: Schema {
        Schema([
            ObjectSchema(
                className: "Person",
                properties: [
                    Property(name: "id", type: .string, isPrimaryKey: true),
                    Property(name: "name", type: .string),
                    Property(name: "age", type: .int),
                    Property(name: "friend", type: .object, objectClassName: "Person", isOptional: true),
                    Property(name: "tags", type: .string, collection: .list),
                    Property(name: "scores", type: .int, collection: .set),
                    Property(name: "attrs", type: .string, collection: .map),
                    Property(name: "address", type: .object, objectClassName: "Address", isOptional: true),
                    Property(name: "addresses", type: .object, objectClassName: "Address", collection: .list),
                ], primaryKey: "id"),
            ObjectSchema(
                className: "Address",
                properties: [Property(name: "city", type: .string), Property(name: "zip", type: .string)],
                isEmbedded: true),
            ObjectSchema(className: "Note", properties: [Property(name: "text", type: .string)]),
        ])
    }
}

extension SyncClient {
    /// The local changesets not yet acknowledged, as stored.
    func storedHistory() throws -> [Changeset] { try ClientStore(realm: realm).history() }

    /// The instructions of the last stored changeset.
    func lastInstructions() throws -> [Instruction] { try storedHistory().last?.instructions ?? [] }

    /// The person with primary key `id`, failing the test (by throwing) when there is none.
    func person(_ id: String) throws -> DynamicObject {
        guard let found = try realm.object(ofType: "Person", forPrimaryKey: .string(id)) else {
            throw TestFailure("no person \(id)")
        }
        return found
    }

    /// Gives the file its id as a server's `ident` would, then the download an empty server sends
    /// after `identify`.
    func identify(as clientFileID: UInt64, session: UInt32 = 1) throws {
        _ = try connect(session: session)
        _ = try receive(.ident(session: session, clientFileID: clientFileID, salt: 7))
        _ = try receiveFirstDownload(session: session)
    }

    /// The download a server with no history sends after `identify`.
    func receiveFirstDownload(session: UInt32) throws -> [SyncMessage] {
        try receive(.download(session: session, downloadCursor: 0, uploadAcknowledged: 0, changesets: []))
    }
}

func ref(_ id: String) -> ObjectRef { ObjectRef("Person", .string(id)) }

/// Every replica's canonical state is the server's (of the Person class); else fails the test (by
/// throwing), each difference of each replica named.
func assertReplicasEqualTheServer(_ server: SyncServer, _ clients: [SyncClient]) throws {
    let expected = try server.state.canonicalState(classes: ["Person"])
    var differences: [String] = []
    for (i, client) in clients.enumerated() {
        let state = try client.canonicalState()
        if state != expected {
            differences.append("replica \(i):\n" + state.differences(from: expected).joined(separator: "\n"))
        }
    }
    if !differences.isEmpty { throw TestFailure(differences.joined(separator: "\n")) }
}

extension InMemoryTransport {
    /// Delivers what is queued, both ways, integrating between, until nothing moves (bounded).
    /// Never reconnects: a client that failed stays off.
    func settle(_ clients: [Int]) throws {
        for _ in 0..<200 {
            var moved = false
            for c in clients {
                flushUploads(c)
                while try deliverToServer(from: c) { moved = true }
            }
            integrate()
            for c in clients {
                while try deliverToClient(c) { moved = true }
            }
            if !moved && isQuiescent { return }
        }
        throw TestFailure("the transport did not settle in 200 rounds")
    }
}

/// A failed check in a helper shared by XCTest cases and Swift Testing cases: thrown, because each
/// framework ignores the other's assertions (an `XCTAssert` in a `@Test` passes silently).
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
