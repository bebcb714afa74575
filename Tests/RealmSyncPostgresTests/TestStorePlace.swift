import Foundation
import RealmDatabase
import RealmSyncPostgres

@testable import RealmSync

/// Where a test keeps its sync stores: here databases of their own on the test PostgreSQL
/// (`TestPostgresDatabase`), dropped with the place. The store and engine tests this target links
/// from RealmSyncTests (Shared/) open their stores here, so they run unchanged on PostgreSQL. A place
/// of kind `.sqlite` keeps SQLite files instead, for the tests that compare the two stores.
final class TestStorePlace {
    enum Kind { case postgres, sqlite }

    private let kind: Kind
    private let label: String
    private let folder: URL
    /// The databases created here, by store name; dropped after the stores below are closed.
    private var databases: [String: TestPostgresDatabase] = [:]
    /// The stores opened here and still in use.
    private var stores: [WeakStore] = []

    private struct WeakStore { weak var store: PostgresSyncStore? }

    init(_ label: String, kind: Kind = .postgres) throws {
        self.kind = kind
        self.label = label
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(label)-\(UUID().uuidString)")
        switch kind {
        case .postgres: _ = try TestPostgres.location()  // Skips (or fails, in CI) now when there is none.
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
                path: folder.appendingPathComponent("\(name).sqlite").path, historySalt: historySalt, schema: schema)
        }
        let database = try databases[name] ?? TestPostgresDatabase("\(label)_\(name)")
        databases[name] = database
        let store = try PostgresSyncStore(location: database.location, historySalt: historySalt, schema: schema)
        stores.removeAll { $0.store == nil }
        stores.append(WeakStore(store: store))
        return store
    }
}
