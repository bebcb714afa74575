import Foundation
import RealmDatabase

@testable import RealmSync

/// The schema of the permission tests: Dog { _id: int (pk), owner: string, shared: bool,
/// name: string? } with rules, Toy { _id, name? } open to everyone, Note { _id, text } without
/// rules (private per user).
var permissionTestSchema: Schema {
    Schema([
        ObjectSchema(
            className: "Dog",
            properties: [
                Property(name: "_id", type: .int), Property(name: "owner", type: .string),
                Property(name: "shared", type: .bool), Property(name: "name", type: .string, isOptional: true),
            ], primaryKey: "_id"),
        ObjectSchema(
            className: "Toy",
            properties: [Property(name: "_id", type: .int), Property(name: "name", type: .string, isOptional: true)],
            primaryKey: "_id"),
        ObjectSchema(
            className: "Note",
            properties: [Property(name: "_id", type: .int), Property(name: "text", type: .string)],
            primaryKey: "_id"),
    ])
}

/// `field == $user`, the predicate of a rule like `owner == $user`.
func isUser(_ field: String) -> ViewPredicate {
    .compare(field: field, .equal, .user, caseInsensitive: false)
}

func equals(_ field: String, _ value: SyncValue) -> ViewPredicate {
    .compare(field: field, .equal, .value(value), caseInsensitive: false)
}

/// Dog: read `owner == $user OR shared == true`, write `owner == $user`; Toy: read and write true;
/// Note: no rules.
let permissionTestRules = SyncPermissions(
    queryable: ["Dog": ["_id", "owner", "shared"], "Toy": ["_id"], "Note": ["_id"]],
    read: ["Dog": .or([isUser("owner"), equals("shared", .bool(true))]), "Toy": .constant(true)],
    write: ["Dog": isUser("owner"), "Toy": .constant(true)])

func dog(_ key: Int64) -> ObjectRef { ObjectRef("Dog", .int(key)) }
func toy(_ key: Int64) -> ObjectRef { ObjectRef("Toy", .int(key)) }
func note(_ key: Int64) -> ObjectRef { ObjectRef("Note", .int(key)) }

/// A writer subscribed to every object of every class.
func subscribedToAll(_ user: String) -> UploadWriter {
    UploadWriter(user: user, view: ["Dog": .constant(true), "Toy": .constant(true), "Note": .constant(true)])
}

/// A store with two client files (1: alice, 2: bob), an integrator checking permissions and one
/// without (to set the stage as each user would have written it).
final class PermissionFixture {
    let place: TestStorePlace
    let store: any SyncStore
    let integrator: Integrator
    let unchecked: Integrator
    let state: ServerState

    init(on kind: StoreKind = .sqlite, conflictLogCapacity: Int = 1000) throws {
        place = try TestStorePlace("perms", kind: kind)
        store = try place.open(historySalt: 42, schema: nil)
        let clock = ManualWallClock(serverTestNow)
        integrator = Integrator(
            store: store, schema: permissionTestSchema, wallClock: clock, permissions: permissionTestRules,
            conflictLogCapacity: conflictLogCapacity)
        unchecked = Integrator(store: store, schema: permissionTestSchema, wallClock: clock)
        state = ServerState(store: store, schema: permissionTestSchema)
        _ = try state.allocateClient(salt: 100, user: "alice")
        _ = try state.allocateClient(salt: 101, user: "bob")
    }

    /// Integrates `changeset` without permission checks (the stage of a test).
    func stage(_ changeset: Changeset) throws {
        let result = try unchecked.integrate([Upload(clientFileID: changeset.clientFileID, changesets: [changeset])])
        guard case .acknowledged = result.outcomes.first else { throw SyncError(.otherError, "stage: \(result)") }
    }

    /// Integrates `changeset` as written by `writer`, checked; returns its compensating writes.
    func upload(_ changeset: Changeset, by writer: UploadWriter) throws -> [CompensatingWrite] {
        let upload = Upload(clientFileID: changeset.clientFileID, changesets: [changeset], writer: writer)
        let result = try integrator.integrate([upload])
        guard case .acknowledged(_, let compensating) = result.outcomes.first else {
            throw SyncError(.otherError, "the upload was refused: \(result.outcomes)")
        }
        return compensating
    }

    func fields(_ ref: ObjectRef) throws -> [String: SyncValue]? {
        guard let fields = try state.canonicalState(classes: ["Dog", "Toy", "Note"]).objects[ref] else { return nil }
        return Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) })
    }

    /// The kept instructions of the changeset integrated at `serverVersion`.
    func kept(at serverVersion: UInt64) throws -> [Instruction] {
        try state.history(after: serverVersion - 1, limit: 1).first?.kept.instructions ?? []
    }
}

/// A create of a dog with its owner and name (shared false).
func createDog(_ key: Int64, owner: String, name: String = "rex", shared: Bool = false) -> Instruction {
    .create(
        dog(key),
        fields: [
            SyncField("owner", .string(owner)), SyncField("name", .string(name)), SyncField("shared", .bool(shared)),
        ])
}

func setName(_ ref: ObjectRef, _ name: String) -> Instruction {
    .set(ref, path: ["name"], value: .string(name))
}
