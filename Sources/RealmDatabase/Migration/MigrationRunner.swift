import Foundation
import RealmValues

/// Brings a file from its stored schema to a configured one at a higher version, in ONE write
/// transaction: new storage is added, the migration block runs, old storage is dropped, indexes
/// and primary keys are rebuilt and checked, classes made embedded get one parent per object, and
/// the new schema and version are stored. Any
/// failure rolls all of it back, leaving the file at its old version with its old data.
struct MigrationRunner {
    let connection: SQLiteConnection
    let configuration: Realm.Configuration
    let oldSchema: Schema
    let oldVersion: UInt64
    let newSchema: Schema
    let fileSchema: Schema
    let location: String

    /// Runs the migration and commits it (or, in a dry run, rolls it back), reporting what it did.
    func run(dryRun: Bool = false) throws -> MigrationReport {
        try connection.inTransaction(.immediate) { () throws -> (SQLiteTransactionEnd, MigrationReport) in
            var report = try migrate()
            report.dryRun = dryRun
            return (dryRun ? .rollback : .commit, report)
        }
    }

    /// The phases, in the one transaction `run` holds.
    private func migrate() throws -> MigrationReport {
        let realm = makeMigrationRealm()
        defer {
            realm.transaction = nil
            realm.migrationPhase = .ended
        }
        try addNewStorage(realm)
        let migration = try Migration(oldSchema: oldSchema, newSchema: newSchema, realm: realm)
        try configuration.migrationBlock?(migration, oldVersion)
        try migration.checkRenameChainsFinished()
        try reconcileStorage(realm, migration: migration)
        try rebuildIndexes(realm, migration: migration)
        try convertToEmbedded(realm, migration: migration)
        try storeNewSchema(migration)
        return makeReport(realm, migration: migration)
    }

    /// A realm in the new schema sharing this connection and its open transaction.
    private func makeMigrationRealm() -> Realm {
        let realm = Realm(
            configuration: configuration, connection: connection, schema: newSchema,
            fileSchema: fileSchema, coordinator: FileCoordinator(location: location + "#migration"),
            frozenVersion: nil, ownsConnection: false)
        realm.transaction = ChangeSet()
        realm.transaction?.countsModificationsOnly = true
        realm.rows.isMigrating = true
        realm.migrationPhase = .running
        return realm
    }

    /// Phase 1: tables of new classes, columns of new properties, and a temporary place for the
    /// new values of each property whose type changed (filled by the block).
    private func addNewStorage(_ realm: Realm) throws {
        for newClass in newSchema.objectSchemas {
            guard let oldClass = oldSchema[newClass.className] else {
                for sql in StorageLayout.createClassSQL(newClass) { try connection.execute(sql) }
                continue
            }
            let info = try realm.classInfo(newClass.className)
            try dropIndexes(of: info.table)
            for p in newClass.persistedProperties {
                if let old = oldClass[p.name], old.isPersisted {
                    if needsNewStorage(old, p) {
                        // Changed type: the new values go to a temporary place until the block has run.
                        let temporary =
                            (p.isCollection ? StorageLayout.collectionTable(newClass.className, p) : p.name)
                            + "__new"
                        info.storage[p.name] = temporary
                        try addStorage(p, realm: realm, info: info)
                    }
                } else {
                    try addStorage(p, realm: realm, info: info)
                }
            }
            info.storageChanged()
        }
    }

    /// Whether a property kept by the new schema gets new storage, its old values dropped after the
    /// block: a changed type, and (as realm-core's `make_property_required` drops and re-adds the
    /// column) optional made required, so every object reads the default until the block sets it.
    private func needsNewStorage(_ old: Property, _ p: Property) -> Bool {
        old.type != p.type || old.collection != p.collection || old.objectClassName != p.objectClassName
            || (old.isOptional && !p.isOptional)
    }

    /// Phase 3: old storage the new schema lacks is dropped, and temporary places take their final
    /// names.
    private func reconcileStorage(_ realm: Realm, migration: Migration) throws {
        for newClass in newSchema.objectSchemas {
            guard let oldClass = oldSchema[newClass.className],
                !migration.droppedClasses.contains(newClass.className)
            else { continue }
            let info = try realm.classInfo(newClass.className)
            let renamedAway = Set(migration.renamed[newClass.className]?.keys.map { $0 } ?? [])
            for old in oldClass.persistedProperties where !renamedAway.contains(old.name) {
                try reconcile(old, oldInfo: ClassInfo(oldClass), newClass: newClass, info: info)
            }
            info.storageChanged()
        }
    }

    /// One old property: dropped when the new schema lacks it, moved into place when its type changed.
    private func reconcile(_ old: Property, oldInfo: ClassInfo, newClass: ObjectSchema, info: ClassInfo) throws {
        let q = StorageLayout.quote
        let new = newClass[old.name]
        guard let new, new.isPersisted else {
            try dropStorage(old, info: oldInfo)
            return
        }
        let final = new.isCollection ? StorageLayout.collectionTable(newClass.className, new) : new.name
        let collectionTable = StorageLayout.collectionTable(newClass.className, new)
        guard info.storage[new.name] != new.name && info.storage[new.name] != collectionTable else { return }
        try dropStorage(old, info: oldInfo)
        let temporary = info.storage[new.name] ?? new.name
        if new.isCollection {
            try renameCollectionTable(
                connection, from: temporary, to: final, className: newClass.className,
                property: new)
        } else {
            try connection.execute("ALTER TABLE \(info.quotedTable) RENAME COLUMN \(q(temporary)) TO \(q(final))")
            if new.type == .mixed {
                let from = q(StorageLayout.typeTagColumn(temporary))
                let to = q(StorageLayout.typeTagColumn(final))
                try connection.execute("ALTER TABLE \(info.quotedTable) RENAME COLUMN \(from) TO \(to)")
            }
        }
        info.storage[new.name] = final
    }

    /// Phase 5a: indexes and primary keys, checked for duplicates now that the block has run.
    private func rebuildIndexes(_ realm: Realm, migration: Migration) throws {
        let q = StorageLayout.quote
        for newClass in newSchema.objectSchemas where !migration.droppedClasses.contains(newClass.className) {
            guard oldSchema[newClass.className] != nil else { continue }
            let info = try realm.classInfo(newClass.className)
            for p in newClass.persistedProperties where !p.isCollection {
                if p.isPrimaryKey {
                    let sql =
                        "SELECT count(*) FROM (SELECT 1 FROM \(info.quotedTable) GROUP BY \(q(p.name)) "
                        + "HAVING count(*) > 1)"
                    if try connection.scalarInt(sql) ?? 0 > 0 {
                        throw RealmError(
                            .migration,
                            "Primary key property '\(newClass.className).\(p.name)' has "
                                + "duplicate values after migration.")
                    }
                }
                if let sql = StorageLayout.indexSQL(newClass.className, p) { try connection.execute(sql) }
            }
        }
    }

    /// Phase 5b: classes made embedded get one parent per object (see `EmbeddedConversion`).
    private func convertToEmbedded(_ realm: Realm, migration: Migration) throws {
        for newClass in newSchema.objectSchemas where newClass.isEmbedded {
            guard let oldClass = oldSchema[newClass.className], !oldClass.isEmbedded,
                !migration.droppedClasses.contains(newClass.className)
            else { continue }
            try EmbeddedConversion(realm: realm, info: try realm.classInfo(newClass.className)).run()
        }
    }

    /// Phase 5c: the new schema and version, and a commit on the counter.
    private func storeNewSchema(_ migration: Migration) throws {
        var stored = fileSchema
        stored.objectSchemas.removeAll { migration.droppedClasses.contains($0.className) }
        try storeSchema(connection, stored, version: configuration.schemaVersion)
        try MetaTable(connection).incrementVersion()
    }

    private func makeReport(_ realm: Realm, migration: Migration) -> MigrationReport {
        var report = MigrationReport(
            fromVersion: oldVersion, toVersion: configuration.schemaVersion, migrated: true,
            dryRun: false)
        for (className, count) in migration.enumeratedCounts {
            report.classes[className, default: .init()].enumerated = count
        }
        for (className, changes) in realm.transaction?.classes ?? [:] {
            report.classes[className, default: .init()].created = changes.insertions.count
            report.classes[className, default: .init()].deleted = changes.deletions.count
        }
        for (className, count) in realm.transaction?.modificationCounts ?? [:] {
            report.classes[className, default: .init()].changed = count
        }
        return report
    }

    private func dropIndexes(of table: String) throws {
        var names = [String]()
        try connection.forEachRow(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", [.text(table)],
            cache: false
        ) {
            names.append($0.string(at: 0))
        }
        for name in names { try connection.execute("DROP INDEX \(StorageLayout.quote(name))") }
    }

    /// Adds a property's storage under `info.storage[p.name]`, filled with its default.
    private func addStorage(_ p: Property, realm: Realm, info: ClassInfo) throws {
        let name = info.storage[p.name] ?? p.name
        if p.isCollection {
            let renamed = Property(
                name: p.name, type: p.type, objectClassName: p.objectClassName, isOptional: p.isOptional,
                collection: p.collection)
            for sql in StorageLayout.createCollectionSQL(info.className, renamed) {
                // Unquoted prefix: the index names are `idx_<table>` and `idx_<table>_value`.
                try connection.execute(
                    sql.replacingOccurrences(
                        of: StorageLayout.quote(StorageLayout.collectionTable(info.className, p)),
                        with: StorageLayout.quote(name)
                    )
                    .replacingOccurrences(
                        of: "idx_" + StorageLayout.collectionTable(info.className, p), with: "idx_" + name))
            }
            return
        }
        let q = StorageLayout.quote
        let fresh = p.defaultValue == nil && !p.isOptional && (p.type == .objectId || p.type == .uuid)
        let defaultValue = fresh ? .null : realm.rows.defaultValue(p)
        var (stored, tag) = (SQLiteValue.null, SQLiteValue.null)
        // A fresh objectId/uuid has no column default: the column starts NULL and is filled below.
        if p.type != .object && !fresh {
            (stored, tag) = try realm.rows.encodeForStorage(
                defaultValue, property: p, info: info, policy: .error, mode: .copy)
        }
        let declaredType = StorageLayout.declaredType(p.type)
        try connection.execute(
            "ALTER TABLE \(info.quotedTable) ADD COLUMN \(q(name)) \(declaredType) DEFAULT \(sqlLiteral(stored))"
        )
        if p.type == .mixed {
            let tagColumn = q(StorageLayout.typeTagColumn(name))
            try connection.execute(
                "ALTER TABLE \(info.quotedTable) ADD COLUMN \(tagColumn) INTEGER DEFAULT \(sqlLiteral(tag))"
            )
        }
        if fresh {
            // Each object gets a value of its own, as a new object would.
            var keys = [Int64]()
            try connection.forEachRow("SELECT \"_key\" FROM \(info.quotedTable)", cache: false) {
                keys.append($0.int64(at: 0))
            }
            for key in keys {
                let (v, _) = try realm.rows.encodeForStorage(
                    realm.rows.defaultValue(p), property: p, info: info, policy: .error, mode: .copy)
                try connection.run(
                    "UPDATE \(info.quotedTable) SET \(q(name)) = ? WHERE \"_key\" = ?", [v, .integer(key)])
            }
        }
    }

    private func dropStorage(_ p: Property, info: ClassInfo) throws {
        let q = StorageLayout.quote
        let name = info.storage[p.name] ?? p.name
        if p.isCollection {
            try connection.execute("DROP TABLE IF EXISTS \(q(name))")
        } else {
            try connection.execute("ALTER TABLE \(info.quotedTable) DROP COLUMN \(q(name))")
            if p.type == .mixed {
                try connection.execute(
                    "ALTER TABLE \(info.quotedTable) DROP COLUMN \(q(StorageLayout.typeTagColumn(name)))")
            }
        }
    }
}

/// Renames a collection's side table to `to`, the storage of `property`. SQLite keeps index names
/// through a table rename, and index names are global: the old ones would collide with a table
/// created under the old name by a later migration. So the indexes are rebuilt under `to`'s names.
func renameCollectionTable(
    _ connection: SQLiteConnection, from: String, to: String, className: String, property: Property
) throws {
    let q = StorageLayout.quote
    var indexes = [String]()
    try connection.forEachRow(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", [.text(from)],
        cache: false
    ) {
        indexes.append($0.string(at: 0))
    }
    for name in indexes { try connection.execute("DROP INDEX \(q(name))") }
    try connection.execute("ALTER TABLE \(q(from)) RENAME TO \(q(to))")
    let final = StorageLayout.collectionTable(className, property)
    for sql in StorageLayout.createCollectionSQL(className, property).dropFirst() {
        try connection.execute(
            sql.replacingOccurrences(of: q(final), with: q(to)).replacingOccurrences(
                of: "idx_" + final, with: "idx_" + to))
    }
}

/// A stored value as an SQL literal, for DDL defaults (which cannot be bound parameters).
func sqlLiteral(_ value: SQLiteValue) -> String {
    switch value {
    case .null: return "NULL"
    case .integer(let i): return String(i)
    case .real(let d):
        if d.isNaN { return "NULL" }
        if d.isInfinite { return d > 0 ? "9e999" : "-9e999" }
        return String(d)
    case .text(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let b): return "X'" + b.map { String(format: "%02x", $0) }.joined() + "'"
    }
}
