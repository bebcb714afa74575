import Foundation
import RealmDatabase
import RealmSyncPostgres

@testable import RealmSync

/// Where a test keeps its sync stores: here databases of their own on the test PostgreSQL
/// (`TestPostgres`), dropped with the place. The store and engine tests this target links from
/// RealmSyncTests (Shared/) open their stores here, so they run unchanged on PostgreSQL. A place of
/// kind `.sqlite` keeps SQLite files instead, for the tests that compare the two stores.
final class TestStorePlace {
    enum Kind { case postgres, sqlite }

    private let kind: Kind
    private let server: PostgresStoreLocation?
    private let prefix: String
    private let folder: URL
    /// The databases created here, by store name.
    private var databases: [String: String] = [:]
    /// The stores opened here and still in use, closed before their databases are dropped.
    private var stores: [WeakStore] = []

    private struct WeakStore { weak var store: PostgresSyncStore? }

    init(_ label: String, kind: Kind = .postgres) throws {
        self.kind = kind
        server = kind == .postgres ? try TestPostgres.location() : nil
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        prefix = "realmhost_\(label.filter { $0.isASCII && ($0.isLetter || $0.isNumber) })_\(tag)"
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(label)-\(UUID().uuidString)")
        if kind == .sqlite { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
        // Closed first: dropping a database someone is connected to would wait for them.
        for entry in stores { entry.store?.close() }
        guard let server, !databases.isEmpty, let admin = try? BlockingPostgresConnection(server) else { return }
        for database in databases.values {
            _ = try? admin.query("DROP DATABASE IF EXISTS \(database) WITH (FORCE)", [], "dropping \(database)")
        }
        admin.close()
    }

    /// The store called `name` here, created on the first open (with `historySalt`), as it was left
    /// on the next (a restart).
    func open(_ name: String = "sync", historySalt: UInt64, schema: Schema?) throws -> any SyncStore {
        guard var location = server else {
            return try SQLiteSyncStore(
                path: folder.appendingPathComponent("\(name).sqlite").path, historySalt: historySalt, schema: schema)
        }
        location.database = try database(name, on: location)
        let store = try PostgresSyncStore(location: location, historySalt: historySalt, schema: schema)
        stores.removeAll { $0.store == nil }
        stores.append(WeakStore(store: store))
        return store
    }

    /// The database of the store `name`, created when new. Names are made here of letters, digits and
    /// underscores only: CREATE DATABASE takes no parameter.
    private func database(_ name: String, on server: PostgresStoreLocation) throws -> String {
        if let database = databases[name] { return database }
        let database = "\(prefix)_\(name.filter { $0.isASCII && ($0.isLetter || $0.isNumber) })".lowercased()
        let admin = try BlockingPostgresConnection(server)
        defer { admin.close() }
        try admin.query("CREATE DATABASE \(database)", [], "creating the test database \(database)")
        databases[name] = database
        return database
    }
}
