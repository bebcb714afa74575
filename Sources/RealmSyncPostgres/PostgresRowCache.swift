import RealmSync

/// What one PostgreSQL store transaction has read or written, so it asks the database once: object
/// records and ids, fields, holders and client files. Each map keeps a journal per open savepoint
/// (`JournaledMap`), so undoing a savepoint undoes what it cached.
struct PostgresRowCache {
    /// Object ids: an object's row is never deleted, so an id stays valid once read.
    var ids = JournaledMap<ObjectRef, Int64>()
    /// Object records; nil: the store has no record of the object.
    var objects = JournaledMap<ObjectRef, StoredObject?>()
    /// Per object id, the fields known.
    var fields = JournaledMap<Int64, ObjectFields>()
    /// Per object id, every file that holds it (an entry is the whole set).
    var holders = JournaledMap<Int64, Set<UInt64>>()
    /// Client files; nil: no such file.
    var clients = JournaledMap<UInt64, ClientRecord?>()

    mutating func begin() {
        ids.begin()
        objects.begin()
        fields.begin()
        holders.begin()
        clients.begin()
    }

    mutating func keep() {
        ids.keep()
        objects.keep()
        fields.keep()
        holders.keep()
        clients.keep()
    }

    mutating func undo() {
        ids.undo()
        objects.undo()
        fields.undo()
        holders.undo()
        clients.undo()
    }
}

/// The fields of one object known to a transaction, by path key; a nil row is known absent.
struct ObjectFields {
    /// Every row of the object is here (read whole, or created in the transaction).
    var isComplete = false
    var rows: [[UInt8]: StoredField?] = [:]
}
