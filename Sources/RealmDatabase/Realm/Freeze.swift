import CSQLite
import Foundation

extension Realm {
    /// A frozen snapshot of the realm at its current version: it never changes, sends no
    /// notifications, and refuses writes. Freezing again at the same version gives the same instance.
    ///
    /// A frozen file realm is a read transaction held open on a connection of its own (WAL keeps
    /// that version readable); a frozen in-memory realm is a private copy of the database.
    public func freeze() throws -> Realm {
        try enterEntry("freeze")
        defer { leaveEntry() }
        if isFrozen { return self }
        if changeTracker.isInWrite {
            throw RealmError(
                .wrongTransactionState,
                "Cannot freeze a Realm while it is in a write transaction: commit or cancel the write first.")
        }
        let current = try fetchVersion()
        if let cached = frozenRealms[current]?.value { return cached }
        let frozenConnection: SQLiteConnection
        let pinned: Int64
        if configuration.inMemoryIdentifier != nil {
            frozenConnection = try copyOfMemoryDatabase()
            pinned = current
        } else {
            frozenConnection = try SQLiteConnection(path: connection.path, flags: SQLITE_OPEN_READONLY)
            QueryFunctions.register(on: frozenConnection)
            // A read transaction held open for the frozen realm's life: it pins this snapshot.
            try frozenConnection.begin(.deferred)
            pinned = try MetaTable(frozenConnection).version()
        }
        coordinator.pin(pinned)
        coordinator.retainInstance()
        let frozen = Realm(
            configuration: configuration, connection: frozenConnection, schema: schema,
            fileSchema: fileSchema, coordinator: coordinator, frozenVersion: pinned)
        frozen.liveOrigin = self
        frozenRealms = frozenRealms.filter { $0.value.value != nil }
        frozenRealms[pinned] = WeakBox(frozen)
        return frozen
    }

    /// The live realm of a frozen one (the instance it was frozen from while that is alive).
    public func thaw() throws -> Realm {
        guard isFrozen else { return self }
        if let liveOrigin { return liveOrigin }
        let live = try Realm(configuration: configuration)
        liveOrigin = live
        return live
    }

    /// A private read-only copy of an in-memory database (SQLite's serialize/deserialize).
    private func copyOfMemoryDatabase() throws -> SQLiteConnection {
        guard let db = connection.handle else { throw RealmError(.internalError, "The realm is closed.") }
        var size: sqlite3_int64 = 0
        guard let bytes = sqlite3_serialize(db, "main", &size, 0) else {
            throw RealmError(.internalError, "Could not snapshot the in-memory realm.")
        }
        let copy = try SQLiteConnection(path: ":memory:", flags: SQLITE_OPEN_READWRITE)
        let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY)
        let rc = sqlite3_deserialize(copy.handle, "main", bytes, size, size, flags)
        guard rc == SQLITE_OK else { throw copy.error(rc, sql: nil) }
        QueryFunctions.register(on: copy)
        return copy
    }
}
