import CSQLite
import Foundation

/// Opens a realm's storage: checks the file, creates it, or brings its schema to the configured one
/// (applying additive changes, running a migration, or refusing with every difference named).
///
/// Invariant: a failed open leaves the file exactly as it was. Checks that read happen before
/// anything writes, and every change happens in one SQLite transaction that a failure rolls back.
struct RealmOpener {
    let configuration: Realm.Configuration
    /// Run a migration and roll it back (see `Realm.performMigration(for:dryRun:)`).
    var dryRun = false

    init(configuration: Realm.Configuration) { self.configuration = configuration }

    struct Opened {
        let connection: SQLiteConnection
        let schema: Schema
        let fileSchema: Schema
        let location: String
        /// A new file: its creating transaction is still open, for `initialDataBlock`.
        let isNew: Bool
        /// What the migration did, when one ran.
        var report: MigrationReport? = nil
    }

    func open() throws -> Opened {
        let target = try configuration.visibleSchema()
        if let identifier = configuration.inMemoryIdentifier {
            guard !identifier.isEmpty else {
                throw RealmError(.fileAccess, "An in-memory identifier must not be empty.")
            }
            let name = identifier.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "x"
            let connection = try SQLiteConnection(
                path: "file:/realmhost-memory-\(name)?vfs=memdb",
                flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            try configure(connection, wal: false)
            return try openStorage(connection, target: target, location: "memory:\(identifier)", path: nil)
        }
        guard let url = configuration.fileURL else {
            throw RealmError(.fileAccess, "A configuration needs a fileURL or an inMemoryIdentifier.")
        }
        let path = url.standardizedFileURL.path
        let folder = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder) && !configuration.readOnly
            && folder == Realm.Configuration.defaultDataFolder.standardizedFileURL.path
        {
            // The default data folder is the app's documents folder: it is created on first use, so
            // the default realm (and per-user files beside it) open on a fresh install. Any other
            // missing folder is an error.
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RealmError(
                .fileAccess, "Unable to open a realm at path '\(path)': the folder '\(folder)' does not exist.")
        }
        let exists = FileManager.default.fileExists(atPath: path)
        if exists { try checkFileHeader(path) }
        if configuration.readOnly && !exists {
            throw RealmError(
                .fileNotFound,
                "Unable to open a realm at path '\(path)': the file does not exist, "
                    + "and a read-only realm cannot create it."
            )
        }
        // The open that makes the file is the only one that may remove it when it fails: two opens
        // of a new file at once deleted the file the other one was writing (found by ReliabilityTests).
        let createdHere = !exists && !configuration.readOnly && createExclusively(path)
        let flags = configuration.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, flags: flags)
        } catch let e as SQLiteError {
            throw RealmError(.fileAccess, "Unable to open a realm at path '\(path)': \(e.message).")
        }
        // Wait for other connections from the first read on: a file being created or recovered
        // elsewhere answered "database is locked" at once (found by ReliabilityTests). The wait
        // is bounded, said and stoppable (`LockWaitPolicy`).
        connection.waitForLocks(displayPath: configuration.displayPath)
        let location = "file:" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? path)
        do {
            return try openStorage(connection, target: target, location: location, path: path)
        } catch {
            connection.close()
            // Only a file this open created is removed: another connection may have made a realm
            // of it meanwhile, and deleting that lost its commits (found by ReliabilityTests).
            if createdHere && !Self.holdsRealm(path) { removeFiles(path) }
            throw error
        }
    }

    /// Refuses a file that is not an SQLite database, or one cut short, before SQLite touches it.
    private func checkFileHeader(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw RealmError(.fileAccess, "Unable to open a realm at path '\(path)': permission denied.")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        if header.isEmpty { return }  // an empty file: treated as a new realm, as SQLite does
        guard header.count == 100, header.prefix(16) == Data("SQLite format 3\0".utf8) else {
            throw RealmError(.notARealm, "Unable to open a realm at path '\(path)': the file is not a realm file.")
        }
        var pageSize = Int(header[16]) << 8 | Int(header[17])
        if pageSize == 1 { pageSize = 65536 }
        let pageCount = Int(header[28]) << 24 | Int(header[29]) << 16 | Int(header[30]) << 8 | Int(header[31])
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        // The page count in the header is only trustworthy when its "valid-for" number matches
        // the change counter, and when no write-ahead log holds pages still to be copied back (a
        // checkpoint interrupted by a crash writes page 1 before the rest; SQLite's recovery
        // replays the log). Only then is a shorter file a truncated one.
        let changeCounter = header[24..<28]
        let validFor = header[92..<96]
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        if pageCount > 0 && changeCounter.elementsEqual(validFor) && walSize == 0 && size < pageCount * pageSize {
            throw RealmError(
                .corruptFile,
                "Unable to open a realm at path '\(path)': the file is truncated "
                    + "(\(size) bytes, expected \(pageCount * pageSize))."
            )
        }
    }

    private func configure(_ connection: SQLiteConnection, wal: Bool) throws {
        connection.waitForLocks(displayPath: configuration.displayPath)
        QueryFunctions.register(on: connection)
        if wal && !configuration.readOnly {
            // Two connections turning a new file to WAL at once: SQLite answers one of them BUSY
            // without waiting (to avoid a deadlock), so it tries again (found by ReliabilityTests).
            var attempts = 0
            while true {
                do {
                    let synchronous = configuration.waitsForTheDisk ? "FULL" : "OFF"
                    try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=\(synchronous)")
                    break
                } catch let e as SQLiteError where e.primaryCode == .busy && attempts < 3_000 {
                    attempts += 1
                    usleep(10_000)
                }
            }
        }
        try connection.execute("PRAGMA temp_store=MEMORY")
    }

    private func removeFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// What the file holds when the open starts: its schema and schema version.
    private typealias StoredState = (schema: Schema, version: UInt64)

    /// The schemas an open works with: the one asked for, and the one the file will hold.
    private struct Plan {
        let configured: Schema
        let fileSchema: Schema
        let changes: [SchemaChange]
        let needsMigration: Bool
    }

    private func openStorage(
        _ connection: SQLiteConnection, target: Schema?, location: String,
        path: String?
    ) throws -> Opened {
        // Read what is stored, before any write.
        let stored = try readStoredState(connection, path: path)
        if path != nil { try configure(connection, wal: true) }
        guard let stored else {
            return try openNew(connection, target: target, location: location, path: path)
        }
        if !configuration.readOnly { try convertDecimals(connection, schema: stored.schema, path: path) }
        let plan = makePlan(target: target, stored: stored)
        if configuration.readOnly {
            return try openReadOnly(connection, target: target, stored: stored, plan: plan, location: location)
        }
        return try openWritable(connection, target: target, stored: stored, plan: plan, location: location)
    }

    /// Files from before decimal format 2 get their decimals converted (`DecimalStorageMigration`).
    private func convertDecimals(_ connection: SQLiteConnection, schema: Schema, path: String?) throws {
        do {
            try DecimalStorageMigration(connection: connection, schema: schema).runIfNeeded()
        } catch let e as SQLiteError {
            let describe = path.map { "at path '\($0)'" } ?? configuration.displayPath
            throw RealmError(
                .fileAccess,
                "Unable to open a realm \(describe): converting its decimal128 values failed: \(e.message).")
        }
    }

    /// The stored state, with SQLite's errors turned into Realm's file errors.
    private func readStoredState(_ connection: SQLiteConnection, path: String?) throws -> StoredState? {
        do {
            return try readStoredSchema(connection)
        } catch let e as SQLiteError {
            let describe = path.map { "at path '\($0)'" } ?? configuration.displayPath
            if e.primaryCode == .corrupt || e.primaryCode == .notADatabase {
                throw RealmError(
                    .corruptFile,
                    "Unable to open a realm \(describe): the file is corrupted (\(e.message)).")
            }
            throw RealmError(.fileAccess, "Unable to open a realm \(describe): \(e.message).")
        }
    }

    /// An empty file: creates the realm (its transaction stays open, see `Opened.isNew`).
    private func openNew(
        _ connection: SQLiteConnection, target: Schema?, location: String,
        path: String?
    ) throws -> Opened {
        if configuration.readOnly {
            let describe = path.map { "at path '\($0)'" } ?? configuration.displayPath
            throw RealmError(.notARealm, "Unable to open a realm \(describe): the file is not a realm file.")
        }
        let schema = target ?? Schema([])
        guard try create(connection, schema: schema) else {
            // Two opens of a new file at once: the other one created it first. Open it as it is.
            return try openStorage(connection, target: target, location: location, path: path)
        }
        return Opened(connection: connection, schema: schema, fileSchema: schema, location: location, isNew: true)
    }

    private func makePlan(target: Schema?, stored: StoredState) -> Plan {
        let configured = target ?? stored.schema
        let changes = stored.schema.changes(to: configured).filter {
            if case .removedClass = $0 { return false }
            return true
        }
        return Plan(
            configured: configured, fileSchema: merged(configured, with: stored.schema),
            changes: changes, needsMigration: changes.contains { $0.requiresMigration })
    }

    private func openReadOnly(
        _ connection: SQLiteConnection, target: Schema?, stored: StoredState, plan: Plan,
        location: String
    ) throws -> Opened {
        if target != nil && configuration.schemaVersion != stored.version {
            throw RealmError(
                .invalidSchemaVersion,
                "Provided schema version \(configuration.schemaVersion) does not "
                    + "equal last set version \(stored.version).")
        }
        if plan.needsMigration { throw mismatch(plan.changes) }
        // A class the file lacks reads as empty, as in Realm. The file must not be written, so
        // its tables are TEMP ones: in memory, private to this connection.
        for case .addedClass(let c) in plan.changes {
            guard let objectSchema = plan.configured[c] else { continue }
            for sql in StorageLayout.createClassSQL(objectSchema) where sql.hasPrefix("CREATE TABLE ") {
                try connection.execute("CREATE TEMP TABLE " + sql.dropFirst("CREATE TABLE ".count))
            }
        }
        return Opened(
            connection: connection, schema: plan.configured, fileSchema: stored.schema, location: location,
            isNew: false)
    }

    private func openWritable(
        _ connection: SQLiteConnection, target: Schema?, stored: StoredState, plan: Plan,
        location: String
    ) throws -> Opened {
        if target != nil && configuration.schemaVersion < stored.version {
            throw RealmError(
                .invalidSchemaVersion,
                "Provided schema version \(configuration.schemaVersion) is less "
                    + "than last set version \(stored.version).")
        }
        let versionRaised = target != nil && configuration.schemaVersion > stored.version
        if (versionRaised || plan.needsMigration) && configuration.deleteRealmIfMigrationNeeded {
            try recreate(connection, schema: plan.configured)
            return Opened(
                connection: connection, schema: plan.configured, fileSchema: plan.configured,
                location: location, isNew: false)
        }
        if versionRaised {
            return try migrate(connection, stored: stored, plan: plan, location: location)
        }
        if plan.needsMigration { throw mismatch(plan.changes) }
        if !plan.changes.isEmpty {
            try applyAdditiveChanges(
                connection, changes: plan.changes, configured: plan.configured,
                fileSchema: plan.fileSchema)
        }
        return Opened(
            connection: connection, schema: plan.configured, fileSchema: plan.fileSchema,
            location: location, isNew: false)
    }

    private func migrate(
        _ connection: SQLiteConnection, stored: StoredState, plan: Plan,
        location: String
    ) throws -> Opened {
        let report = try MigrationRunner(
            connection: connection, configuration: configuration, oldSchema: stored.schema,
            oldVersion: stored.version, newSchema: plan.configured,
            fileSchema: plan.fileSchema, location: location
        ).run(dryRun: dryRun)
        let after = try readStoredSchema(connection)?.schema ?? plan.fileSchema
        return Opened(
            connection: connection, schema: plan.configured, fileSchema: after, location: location,
            isNew: false, report: report)
    }

    private func mismatch(_ changes: [SchemaChange]) -> RealmError {
        let lines = changes.filter(\.requiresMigration).map { "\n- \($0)" }.joined()
        return RealmError(.schemaMismatch, "Migration is required due to the following errors:" + lines)
    }

    /// The stored schema and version, or nil for a new (empty) database. Throws for a database
    /// that has tables but is not a realm.
    private func readStoredSchema(_ connection: SQLiteConnection) throws -> StoredState? {
        let tables = try connection.scalarInt("SELECT count(*) FROM sqlite_master") ?? 0
        if tables == 0 { return nil }
        let meta = MetaTable(connection)
        let format = try meta.exists() ? try meta.format() : nil
        guard format == StorageLayout.formatMagic else {
            throw RealmError(
                .notARealm,
                "Unable to open a realm at '\(configuration.displayPath)': the file is not a "
                    + "realm file (it is an SQLite database of another kind).")
        }
        guard let json = try meta.schemaJSON(), let schema = try? Schema.fromJSON(Data(json.utf8)) else {
            throw RealmError(
                .corruptFile,
                "Unable to open a realm at '\(configuration.displayPath)': its stored "
                    + "schema is unreadable.")
        }
        return (schema, try meta.schemaVersion())
    }

    /// Creates a new realm's tables in a write transaction that stays open (see `Opened.isNew`).
    /// Returns false, having changed nothing, when another connection created the realm between
    /// this open's look at the file and its write lock.
    private func create(_ connection: SQLiteConnection, schema: Schema) throws -> Bool {
        try connection.begin(.immediate)
        do {
            let meta = MetaTable(connection)
            if try meta.exists() {
                connection.rollback()
                return false
            }
            try meta.create(
                schemaJSON: String(decoding: try schema.jsonData(), as: UTF8.self),
                schemaVersion: configuration.schemaVersion)
            for objectSchema in schema.objectSchemas {
                for sql in StorageLayout.createClassSQL(objectSchema) { try connection.execute(sql) }
            }
        } catch {
            connection.rollback()
            throw error
        }
        return true
    }

    /// Whether the file at `path` holds a realm's tables (committed by any connection).
    static func holdsRealm(_ path: String) -> Bool {
        guard let connection = try? SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY) else { return false }
        defer { connection.close() }
        connection.setBusyTimeout(milliseconds: 2_000)
        return (try? MetaTable(connection).exists()) ?? false
    }

    /// Deletes every table and starts again with `schema` (`deleteRealmIfMigrationNeeded`).
    private func recreate(_ connection: SQLiteConnection, schema: Schema) throws {
        try connection.inTransaction(.immediate) {
            var names = [String]()
            let tables = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            try connection.forEachRow(tables) {
                names.append($0.string(at: 0))
            }
            for name in names { try connection.execute("DROP TABLE \(StorageLayout.quote(name))") }
        }
        if try create(connection, schema: schema) { try connection.commit() }
    }

    /// Adds new classes and index changes: what needs no version bump.
    private func applyAdditiveChanges(
        _ connection: SQLiteConnection, changes: [SchemaChange], configured: Schema,
        fileSchema: Schema
    ) throws {
        try connection.inTransaction(.immediate) {
            for change in changes {
                switch change {
                case .addedClass(let c):
                    if let objectSchema = configured[c] {
                        for sql in StorageLayout.createClassSQL(objectSchema) { try connection.execute(sql) }
                    }
                case .addedIndex(let c, let p), .removedIndex(let c, let p):
                    try connection.execute("DROP INDEX IF EXISTS \(StorageLayout.quote(StorageLayout.indexName(c, p)))")
                    if let property = configured[c]?[p], let sql = StorageLayout.indexSQL(c, property) {
                        try connection.execute(sql)
                    }
                default: break
                }
            }
            try storeSchema(connection, fileSchema, version: nil)
        }
    }
}

/// Creates an empty file at `path` unless something is there already; true when this call made it.
private func createExclusively(_ path: String) -> Bool {
    let fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0o644)
    guard fd >= 0 else { return false }
    close(fd)
    return true
}

/// The configured classes, then the stored classes the configuration does not mention (kept in the file).
func merged(_ configured: Schema, with stored: Schema) -> Schema {
    Schema(configured.objectSchemas + stored.objectSchemas.filter { configured[$0.className] == nil })
}

func storeSchema(_ connection: SQLiteConnection, _ schema: Schema, version: UInt64?) throws {
    let meta = MetaTable(connection)
    try meta.setSchemaJSON(String(decoding: try schema.jsonData(), as: UTF8.self))
    if let version { try meta.setSchemaVersion(version) }
}
