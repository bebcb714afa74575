import Foundation
import RealmDatabase
import RealmSyncPostgres
import Testing

@testable import RealmSync

/// The stores a conformance case runs on: SQLite always; PostgreSQL when the test server is there
/// (`TestPostgres`), and always under `CI=true`, where its absence fails the case instead of
/// dropping it.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    /// The arguments of every `@Test(arguments:)` in Cases/.
    static var available: [StoreKind] { TestPostgres.isRequiredOrAvailable ? [.sqlite, .postgres] : [.sqlite] }

    var testDescription: String { rawValue }
}

/// Where a test keeps its sync stores: SQLite files in a temporary folder, removed with it, or
/// databases of their own on the test PostgreSQL (`TestPostgresDatabase`), dropped with the place.
/// Every store a test of the sync engine opens comes from here, so one case runs on both stores.
final class TestStorePlace {
    let kind: StoreKind
    let folder: URL
    private let label: String
    /// False for the simulations' SQLite stores, which need not wait for the disk (their server
    /// crashes are process crashes): `SQLiteSyncStore(…, waitsForTheDisk:)`.
    private let waitsForTheDisk: Bool
    /// The databases created here, by store name; dropped after the stores below are closed.
    private var databases: [String: TestPostgresDatabase] = [:]
    /// The PostgreSQL stores opened here and still in use.
    private var stores: [WeakStore] = []

    private struct WeakStore { weak var store: PostgresSyncStore? }

    init(_ label: String, kind: StoreKind = .sqlite, waitsForTheDisk: Bool = true) throws {
        self.kind = kind
        self.label = label
        self.waitsForTheDisk = waitsForTheDisk
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(label)-\(UUID().uuidString)")
        switch kind {
        case .postgres: _ = try TestPostgres.location()  // Fails now, naming why, when there is none.
        case .sqlite: try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
        // Closed first: a connection left open would be cut by the drop.
        for entry in stores { entry.store?.close() }
    }

    /// The store called `name` here, created on the first open (with `historySalt`), as it was left
    /// on the next (a restart).
    func open(_ name: String = "sync", historySalt: UInt64, schema: Schema?) throws -> any SyncStore {
        guard kind == .postgres else {
            return try SQLiteSyncStore(
                path: folder.appendingPathComponent("\(name).sqlite").path, historySalt: historySalt, schema: schema,
                waitsForTheDisk: waitsForTheDisk)
        }
        let database = try databases[name] ?? TestPostgresDatabase("\(label)_\(name)")
        databases[name] = database
        let store = try PostgresSyncStore(location: database.location, historySalt: historySalt, schema: schema)
        stores.removeAll { $0.store == nil }
        stores.append(WeakStore(store: store))
        return store
    }
}
