import CSQLite
import Foundation

/// A realm: an object database in one file (or in memory), opened from a `Configuration`.
///
/// An instance is used by one thread at a time (it may be handed from one thread to another, never
/// used by two at once); open another instance for another thread. Debug builds refuse an entry
/// while another thread is inside one (`EntryGuard`): connections are opened `NOMUTEX`, so
/// concurrent use would otherwise corrupt memory. A live
/// instance always reads the latest committed state; a frozen one (`freeze()`) stays at its version.
public final class Realm {
    public let configuration: Configuration
    /// The classes visible through this instance.
    public private(set) var schema: Schema
    /// Every class stored in the file, including those `objectTypes` hides.
    var fileSchema: Schema
    let connection: SQLiteConnection
    /// The row engine: encoding, prepared inserts, create/update/delete with cascades.
    private(set) lazy var rows = RowStore(realm: self, schema: schema)
    public let isFrozen: Bool
    /// The version a frozen realm is pinned at.
    let frozenVersion: Int64?
    let coordinator: FileCoordinator
    /// The record of the open write, the staleness counters and the mailbox (see `ChangeTracker`).
    let changeTracker = ChangeTracker()
    var mailbox: ChangeMailbox { changeTracker.mailbox }

    /// The open write transaction's change log; nil outside a write. Writes record changes through
    /// `changeTracker`'s capture point, not through this.
    var transaction: ChangeSet? {
        get { changeTracker.openWrite }
        set { changeTracker.openWrite = newValue }
    }
    /// For a frozen realm, the live instance it came from (used by `thaw`).
    weak var liveOrigin: Realm?
    var frozenRealms: [Int64: WeakBox<Realm>] = [:]
    var notifiers = NotifierRegistry() {
        // Commits by other instances are kept in the mailbox only while someone observes.
        didSet { mailbox.setObserving(!notifiers.isEmpty) }
    }
    /// Set on the realm a migration block works in: it shares the opener's connection and its one
    /// transaction, which only the migration may end. Nil on every other realm.
    var migrationPhase: MigrationPhase?
    #if DEBUG
        /// Debug builds: refuses an entry while another thread is inside one (see `EntryGuard`).
        let entryGuard = EntryGuard()
    #endif

    /// Opens the realm of `Configuration.defaultConfiguration`.
    public convenience init() throws {
        try self.init(configuration: Configuration.defaultConfiguration)
    }

    /// Opens (creating or migrating as needed) the realm a configuration describes.
    public convenience init(configuration: Configuration) throws {
        let opened = try RealmOpener(configuration: configuration).open()
        self.init(
            configuration: configuration, connection: opened.connection, schema: opened.schema,
            fileSchema: opened.fileSchema, coordinator: FileCoordinator.checkOut(opened.location),
            frozenVersion: nil)
        if opened.isNew {
            // The creating transaction is still open: initial data joins it, so a new file is
            // created whole or not at all.
            transaction = ChangeSet()
            do {
                try configuration.initialDataBlock?(self)
                if let initial = configuration.initialSubscriptions { try subscriptions.update(initial) }
                try commitWrite()
            } catch {
                cancelWrite()
                // The rollback leaves an empty file behind: remove it, as a failed open of a new
                // file leaves nothing (RealmOpener does the same for failures before this point).
                if let url = configuration.fileURL {
                    connection.close()
                    let path = url.standardizedFileURL.path
                    for suffix in ["", "-wal", "-shm", "-journal"] {
                        try? FileManager.default.removeItem(atPath: path + suffix)
                    }
                }
                throw error
            }
        } else if configuration.rerunOnOpen, let initial = configuration.initialSubscriptions, !configuration.readOnly {
            try subscriptions.update(initial)
        }
        if let onOpen = configuration.onOpenBlock { try onOpen(self) }
    }

    /// False for the temporary instance a migration runs on: the opener keeps the connection.
    private let ownsConnection: Bool

    init(
        configuration: Configuration, connection: SQLiteConnection, schema: Schema, fileSchema: Schema,
        coordinator: FileCoordinator, frozenVersion: Int64?, ownsConnection: Bool = true
    ) {
        self.ownsConnection = ownsConnection
        self.configuration = configuration
        self.connection = connection
        self.schema = schema
        self.fileSchema = fileSchema
        self.coordinator = coordinator
        self.isFrozen = frozenVersion != nil
        self.frozenVersion = frozenVersion
        if frozenVersion == nil {
            coordinator.register(ObjectIdentifier(self), mailbox)
            // The state at open is the baseline: only commits after it are news for `refresh()`.
            changeTracker.setBaseline(dataVersion: (try? connection.scalarInt("PRAGMA data_version")) ?? -1)
        }
    }

    deinit {
        if let frozenVersion {
            coordinator.unpin(frozenVersion)
        } else {
            coordinator.unregister(ObjectIdentifier(self))
        }
        coordinator.writeEnded(by: ObjectIdentifier(self))
        coordinator.releaseInstance()
        guard ownsConnection else { return }
        if changeTracker.isInWrite { connection.rollback() }
        connection.close()
    }

    func classInfo(_ className: String) throws -> ClassInfo { try rows.classInfo(className) }

    /// Whether a write transaction is open on this instance.
    public var isInWriteTransaction: Bool {
        changeTracker.isInWrite
    }

    /// Whether `self` and `other` use the same file (or in-memory identifier).
    func isSameFile(as other: Realm) -> Bool { coordinator === other.coordinator }

    /// The commit counter stored in the file: bumped by every write transaction. On error (a
    /// closed connection) reports it through `RealmDiagnostics` and answers 0; `fetchVersion()` throws.
    public var version: Int64 {
        reportingErrors("reading the version of \(configuration.displayPath)", neutral: 0) { try fetchVersion() }
    }

    /// The commit counter stored in the file, or the error reading it.
    public func fetchVersion() throws -> Int64 {
        if let frozenVersion { return frozenVersion }
        return try MetaTable(connection).version()
    }

    /// The schema version stored in the file. On error reports it through `RealmDiagnostics` and
    /// answers 0; `fetchSchemaVersion()` throws.
    public var schemaVersion: UInt64 {
        reportingErrors("reading the schema version of \(configuration.displayPath)", neutral: 0) {
            try fetchSchemaVersion()
        }
    }

    /// The schema version stored in the file, or the error reading it.
    public func fetchSchemaVersion() throws -> UInt64 {
        try MetaTable(connection).schemaVersion()
    }

    /// A token that changes whenever what this instance reads may have changed: a change made
    /// here, or a commit by another connection. Caches compare it before reusing what they hold.
    ///
    /// Commits by other instances in this process are seen at once (the file's shared commit
    /// counter). Commits by other connections (other processes) are seen through SQLite's
    /// `data_version`, which costs a statement: Results read it every time (`force`), so a query
    /// is always exact; an object's cached row reads it at most once a millisecond, since without
    /// the throttle reading a million objects would run a million extra statements.
    func readStamp(force: Bool = false) -> Int {
        if isFrozen { return 0 }
        // While `Results.forEach` steps a statement, its read transaction pins the snapshot: no
        // commit from elsewhere can become visible, so only local changes (localStamp) matter.
        guard !changeTracker.isInWrite, streamingReads == 0 else { return changeTracker.localStamp }
        return changeTracker.readStamp(force: force, commits: coordinator.commitCount) {
            try connection.scalarInt("PRAGMA data_version")
        }
    }

    func noteLocalChange() { changeTracker.noteLocalChange() }

    /// How many `Results.forEach` loops are stepping a statement on this connection right now.
    var streamingReads = 0

    /// Releases the connection early; the instance can't be used afterwards.
    public func invalidate() {
        guard enterOrReport("invalidate") else { return }
        defer { leaveEntry() }
        if changeTracker.isInWrite { cancelWrite() }
        frozenRealms.removeAll()
    }
}

/// A weak reference, for caches that must not keep their values alive.
struct WeakBox<T: AnyObject> {
    weak var value: T?
    init(_ value: T) { self.value = value }
}

/// Where the realm of a migration block is in its life.
enum MigrationPhase {
    /// The migration is running: the realm is inside the migration's transaction.
    case running
    /// The migration has returned: a handle a script kept must not write on the shared connection.
    case ended
}
