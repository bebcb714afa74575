import Foundation
import Synchronization

/// A migration block: the migration and the schema version stored in the file before it.
public typealias MigrationBlock = (Migration, UInt64) throws -> Void

extension Realm {
    /// How to open a realm, as RealmSwift's `Realm.Configuration`: a value, copied and changed freely.
    public struct Configuration {
        private var storedFileURL: URL?
        private var storedInMemoryIdentifier: String?

        /// The realm file. Setting it clears `inMemoryIdentifier`.
        public var fileURL: URL? {
            get { storedFileURL }
            set {
                storedFileURL = newValue
                if newValue != nil { storedInMemoryIdentifier = nil }
            }
        }

        /// Names a realm that lives in memory while an instance of it is open. Setting it clears `fileURL`.
        public var inMemoryIdentifier: String? {
            get { storedInMemoryIdentifier }
            set {
                storedInMemoryIdentifier = newValue
                if newValue != nil { storedFileURL = nil }
            }
        }

        /// The version the configured schema corresponds to.
        public var schemaVersion: UInt64 = 0
        /// Runs, once, when the stored version is lower than `schemaVersion`.
        public var migrationBlock: MigrationBlock?
        /// Instead of migrating (or failing), delete the file and start empty.
        public var deleteRealmIfMigrationNeeded = false
        /// Open without writing: the file must exist and match; every write fails.
        public var readOnly = false
        /// The classes of this realm. Nil opens with the schema stored in the file.
        public var schema: Schema?
        /// Restricts the realm to these classes of `schema` (and the classes they link to).
        public var objectTypes: [String]?
        /// The most versions that may be pinned at once (the live one and every frozen one).
        public var maximumNumberOfActiveVersions: UInt?
        /// Called on open with the file's total and used bytes; true compacts (VACUUM) the file first.
        public var shouldCompactOnLaunch: ((Int, Int) -> Bool)?
        /// Runs in the write transaction that creates a new file: a new realm is created with
        /// its initial data whole, or not at all.
        public var initialDataBlock: ((Realm) throws -> Void)?
        /// Fills the subscription set when the file is created (and on every open with `rerunOnOpen`).
        public var initialSubscriptions: ((MutableSubscriptionSet) throws -> Void)?
        /// Runs `initialSubscriptions` on every open, not only the first. The block must then be
        /// idempotent: check `first(named:)` before appending.
        public var rerunOnOpen = false
        /// Told how far `enumerateObjects` has come, during a migration.
        public var migrationProgress: ((MigrationProgress) -> Void)?
        /// Runs after every successful open (used by `rerunOnOpen` subscriptions and plugins' `onOpen`).
        public var onOpenBlock: ((Realm) throws -> Void)?
        /// Records every commit of every instance opened from this configuration, inside the
        /// commit's transaction (`CommitRecorder`; sync sets one). Nil for a local realm.
        public var commitRecorder: (any CommitRecorder)?
        /// Whether each commit waits until it is on the disk (SQLite's `synchronous=FULL`, always
        /// for users). False (`synchronous=OFF`) leaves it with the operating system: a process
        /// that dies loses nothing, a power cut may lose the last commits. For the sync
        /// simulation's thousands of throwaway files, whose crashes are process crashes; no
        /// public API sets it.
        package var waitsForTheDisk = true

        public init(
            fileURL: URL? = nil, inMemoryIdentifier: String? = nil, schemaVersion: UInt64 = 0,
            migrationBlock: MigrationBlock? = nil, deleteRealmIfMigrationNeeded: Bool = false,
            readOnly: Bool = false, schema: Schema? = nil, objectTypes: [String]? = nil,
            maximumNumberOfActiveVersions: UInt? = nil
        ) {
            self.storedFileURL = inMemoryIdentifier == nil ? (fileURL ?? Configuration.defaultFileURL) : nil
            self.storedInMemoryIdentifier = inMemoryIdentifier
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.readOnly = readOnly
            self.schema = schema
            self.objectTypes = objectTypes
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
        }

        /// The folder of the default realm: `$REALM_HOST_DATA`, else `./data`.
        public static var defaultDataFolder: URL {
            if let env = ProcessInfo.processInfo.environment["REALM_HOST_DATA"], !env.isEmpty {
                return URL(fileURLWithPath: env, isDirectory: true)
            }
            return URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
                .appendingPathComponent("data", isDirectory: true)
        }

        static var defaultFileURL: URL { defaultDataFolder.appendingPathComponent("default.realm") }

        private static let defaultStorage = Mutex<ConfigurationBox>(ConfigurationBox(nil))

        /// What `Realm()` opens. Setting it changes later opens, not realms already open.
        public static var defaultConfiguration: Configuration {
            get { defaultStorage.withLock { $0.configuration } ?? Configuration() }
            set { defaultStorage.withLock { $0 = ConfigurationBox(newValue) } }
        }

        /// The schema visible through this configuration (after `objectTypes`), if one is configured.
        func visibleSchema() throws -> Schema? {
            guard let schema else { return nil }
            try schema.validate()
            if let objectTypes { return try schema.restricted(to: objectTypes) }
            return schema
        }

        /// A printable name for messages: the path, or the in-memory identifier.
        var displayPath: String {
            if let inMemoryIdentifier { return "in-memory realm '\(inMemoryIdentifier)'" }
            return fileURL?.path ?? "(no file)"
        }
    }
}

/// Lets a configuration (which holds closures) sit behind a lock; access is serialized by the lock.
struct ConfigurationBox: @unchecked Sendable {
    var configuration: Realm.Configuration?
    init(_ configuration: Realm.Configuration?) { self.configuration = configuration }
}
