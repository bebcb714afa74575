import Foundation
import RealmDatabase
import RealmSyncPostgres

@testable import RealmSync

/// Where a test keeps its sync stores: here databases of their own on the test PostgreSQL
/// (`TestPostgres`), dropped with the place. The store and engine tests this target links from
/// RealmSyncTests (Shared/) open their stores here, so they run unchanged on PostgreSQL.
final class TestStorePlace {
    private let server: PostgresStoreLocation
    private let prefix: String
    /// The databases created here, by store name.
    private var databases: [String: String] = [:]
    private var stores: [PostgresSyncStore] = []

    init(_ label: String) throws {
        server = try TestPostgres.location()
        let tag = UInt32.random(in: 0...UInt32.max)
        prefix = "realmhost_\(label.filter { $0.isASCII && ($0.isLetter || $0.isNumber) })_\(String(tag, radix: 16))"
    }

    deinit {
        // Closed first: dropping a database someone is connected to would wait for them.
        for store in stores { store.close() }
        guard !databases.isEmpty, let admin = try? BlockingPostgresConnection(server) else { return }
        for database in databases.values {
            _ = try? admin.query("DROP DATABASE IF EXISTS \(database) WITH (FORCE)", [], "dropping \(database)")
        }
        admin.close()
    }

    /// The store called `name` here, created on the first open (with `historySalt`), as it was left
    /// on the next (a restart).
    func open(_ name: String = "sync", historySalt: UInt64, schema: Schema?) throws -> any SyncStore {
        let database = try database(name)
        var location = server
        location.database = database
        let store = try PostgresSyncStore(location: location, historySalt: historySalt, schema: schema)
        stores.append(store)
        return store
    }

    /// The database of the store `name`, created when new. Names are made here of letters, digits and
    /// underscores only: CREATE DATABASE takes no parameter.
    private func database(_ name: String) throws -> String {
        if let database = databases[name] { return database }
        let database = "\(prefix)_\(name.filter { $0.isASCII && ($0.isLetter || $0.isNumber) })".lowercased()
        let admin = try BlockingPostgresConnection(server)
        defer { admin.close() }
        try admin.query("CREATE DATABASE \(database)", [], "creating the test database \(database)")
        databases[name] = database
        return database
    }
}
