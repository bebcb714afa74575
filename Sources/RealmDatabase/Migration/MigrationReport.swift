import CSQLite
import Foundation

/// What a migration did (or, in a dry run, would do), per class.
public struct MigrationReport: Equatable, Sendable {
    public struct ClassCounts: Equatable, Sendable {
        public var enumerated = 0
        public var created = 0
        public var deleted = 0
        public var changed = 0
        public init() {}
    }
    public var fromVersion: UInt64
    public var toVersion: UInt64
    /// True when a migration ran (false: the file was already at the configured version).
    public var migrated: Bool
    /// True when everything was rolled back afterwards.
    public var dryRun: Bool
    public var classes: [String: ClassCounts] = [:]

    public init(
        fromVersion: UInt64, toVersion: UInt64, migrated: Bool, dryRun: Bool, classes: [String: ClassCounts] = [:]
    ) {
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.migrated = migrated
        self.dryRun = dryRun
        self.classes = classes
    }
}

/// Progress of `enumerateObjects`: reported every 1,000 objects and at the end of each class.
public struct MigrationProgress: Sendable {
    public let className: String
    public let done: Int
    public let total: Int
}

extension Realm {
    /// Brings the file of `configuration` to its schema version without keeping a realm open
    /// (RealmSwift's `performMigration(for:)`). With `dryRun`, the migration runs and is then
    /// rolled back: the report says what it would do, and the file is left as it was.
    @discardableResult
    public static func performMigration(for configuration: Configuration, dryRun: Bool = false) throws
        -> MigrationReport
    {
        var opener = RealmOpener(configuration: configuration)
        opener.dryRun = dryRun
        let opened = try opener.open()
        defer { opened.connection.close() }
        if opened.isNew {
            if dryRun { opened.connection.rollback() } else { try opened.connection.commit() }
        }
        let version = try MetaTable(opened.connection).schemaVersion()
        return opened.report
            ?? MigrationReport(fromVersion: version, toVersion: version, migrated: false, dryRun: dryRun)
    }
}

extension Realm {
    /// The schema version stored in a realm file, read without opening the realm (nil when the
    /// file is not a realm). RealmSwift's `schemaVersionAtURL`.
    public static func storedSchemaVersion(at url: URL) throws -> UInt64? {
        let connection = try SQLiteConnection(path: url.path, flags: SQLITE_OPEN_READONLY)
        defer { connection.close() }
        // Not a realm (no table, or not an SQLite file at all): nil, as documented.
        let meta = MetaTable(connection)
        guard (try? meta.exists()) == true else { return nil }
        return try meta.schemaVersion()
    }

    /// The schema stored in a realm file and its version, read without opening the realm (nil
    /// when the file is not a realm, or its stored schema cannot be read).
    public static func storedSchema(at url: URL) throws -> (schema: Schema, version: UInt64)? {
        let connection = try SQLiteConnection(path: url.path, flags: SQLITE_OPEN_READONLY)
        defer { connection.close() }
        let meta = MetaTable(connection)
        guard (try? meta.exists()) == true, let json = try meta.schemaJSON(),
            let schema = try? Schema.fromJSON(Data(json.utf8))
        else { return nil }
        return (schema, try meta.schemaVersion())
    }
}
