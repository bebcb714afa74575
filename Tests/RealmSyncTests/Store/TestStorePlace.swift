import Foundation
import RealmDatabase

@testable import RealmSync

/// Where a test keeps its sync stores: here SQLite files in a temporary folder, removed with it.
/// RealmSyncPostgresTests runs the same store and engine tests (the files it links to) with its own
/// `TestStorePlace`, whose stores are PostgreSQL databases: one definition, both stores.
final class TestStorePlace {
    let folder: URL
    /// False for the simulations' stores, which need not wait for the disk (their server crashes
    /// are process crashes): `SQLiteSyncStore(…, waitsForTheDisk:)`.
    private let waitsForTheDisk: Bool

    init(_ label: String, waitsForTheDisk: Bool = true) throws {
        self.waitsForTheDisk = waitsForTheDisk
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The store called `name` here, created on the first open (with `historySalt`), as it was left
    /// on the next (a restart).
    func open(_ name: String = "sync", historySalt: UInt64, schema: Schema?) throws -> any SyncStore {
        try SQLiteSyncStore(
            path: folder.appendingPathComponent("\(name).sqlite").path, historySalt: historySalt, schema: schema,
            waitsForTheDisk: waitsForTheDisk)
    }
}
