import Foundation
import RealmDatabase

@testable import RealmSync

/// A wall clock that reads what the test sets.
final class ManualWallClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var now: UInt64

    init(_ now: UInt64) { self.now = now }

    func nowMilliseconds() -> UInt64 { lock.withLock { now } }
    func set(_ value: UInt64) { lock.withLock { now = value } }
}

/// The schema the server tests use: Item { _id: int (pk), name: string?, count: int, tags: string[],
/// labels: string<>, attrs: {string: int?}, spec: Spec? (embedded {color: string?, size: int}),
/// owner: Item? } and an unsynced class without a primary key.
var serverTestSchema: Schema {
    Schema([
        ObjectSchema(
            className: "Item",
            properties: [
                Property(name: "_id", type: .int),
                Property(name: "name", type: .string, isOptional: true),
                Property(name: "count", type: .int),
                Property(name: "tags", type: .string, collection: .list),
                Property(name: "labels", type: .string, collection: .set),
                Property(name: "attrs", type: .int, isOptional: true, collection: .map),
                Property(name: "spec", type: .object, objectClassName: "Spec"),
                Property(name: "owner", type: .object, objectClassName: "Item"),
            ], primaryKey: "_id"),
        ObjectSchema(
            className: "Spec",
            properties: [Property(name: "color", type: .string, isOptional: true), Property(name: "size", type: .int)],
            isEmbedded: true),
        ObjectSchema(className: "Note", properties: [Property(name: "text", type: .string)]),
    ])
}

/// The server's wall clock in the tests; changeset clocks are a little before it.
let serverTestNow: UInt64 = 10_000_000

func item(_ key: Int64) -> ObjectRef { ObjectRef("Item", .int(key)) }

func hlc(_ milliseconds: UInt64) -> HLCTimestamp { HLCTimestamp(milliseconds: milliseconds, counter: 0) }

func changeset(
    _ client: UInt64, _ version: UInt64, basedOn: UInt64 = 0, clock: UInt64, _ instructions: [Instruction]
) -> Changeset {
    Changeset(
        clientVersion: version, basedOnServerVersion: basedOn, clock: hlc(clock), clientFileID: client,
        instructions: instructions)
}

func element(clock: UInt64, client: UInt64, index: UInt32 = 0) -> ElementID {
    ElementID(clock: hlc(clock), clientFileID: client, index: index)
}

/// A fresh store (`TestStorePlace`, of `kind`) with an integrator over it.
final class ServerFixture {
    let place: TestStorePlace
    let wallClock = ManualWallClock(serverTestNow)
    let schema: Schema
    private(set) var store: any SyncStore
    private(set) var integrator: Integrator
    private(set) var state: ServerState

    init(on kind: StoreKind = .sqlite, schema: Schema = serverTestSchema) throws {
        self.schema = schema
        place = try TestStorePlace("server", kind: kind)
        store = try place.open(historySalt: 42, schema: schema)
        integrator = Integrator(store: store, schema: schema, wallClock: wallClock)
        state = ServerState(store: store, schema: schema)
    }

    /// Closes the store and opens it again (a server restart).
    func reopen() throws {
        store = try place.open(historySalt: 7, schema: schema)
        integrator = Integrator(store: store, schema: schema, wallClock: wallClock)
        state = ServerState(store: store, schema: schema)
    }

    /// Allocates client files 1…count.
    func clients(_ count: Int) throws {
        for index in 0..<count { _ = try state.allocateClient(salt: UInt64(100 + index), user: "u") }
    }

    /// Integrates each changeset as its own upload, in order, in one transaction.
    @discardableResult
    func integrate(_ changesets: Changeset...) throws -> IntegrationResult {
        try integrator.integrate(changesets.map { Upload(clientFileID: $0.clientFileID, changesets: [$0]) })
    }

    func canonical() throws -> CanonicalState { try state.canonicalState(classes: ["Item"]) }

    /// The canonical fields of an object, nil when it does not exist.
    func fields(_ ref: ObjectRef) throws -> [String: SyncValue]? {
        guard let fields = try canonical().objects[ref] else { return nil }
        return Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) })
    }

    func field(_ ref: ObjectRef, _ name: String) throws -> SyncValue? { try fields(ref)?[name] }
}
