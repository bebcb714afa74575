import RealmDatabase

/// The changesets one client file uploaded, in client-version order.
public struct Upload: Hashable, Sendable {
    public var clientFileID: UInt64
    public var changesets: [Changeset]
    /// The session's user and view: required when the integrator checks permissions.
    public var writer: UploadWriter?

    public init(clientFileID: UInt64, changesets: [Changeset], writer: UploadWriter? = nil) {
        self.clientFileID = clientFileID
        self.changesets = changesets
        self.writer = writer
    }
}

/// What became of one upload: the highest client version of its file now integrated and the objects
/// the permissions refused (their compensating writes), or why the whole upload was refused (nothing
/// of it integrated).
public enum UploadOutcome: Hashable, Sendable {
    case acknowledged(clientVersion: UInt64, compensating: [CompensatingWrite] = [])
    case refused(SyncError)
}

/// What one integration did: an outcome per upload (in the order given) and the history it added.
public struct IntegrationResult: Hashable, Sendable {
    public var outcomes: [UploadOutcome]
    /// The server versions this integration appended, with the kept instructions.
    public var integrated: [HistoryEntry]
    public var latestServerVersion: UInt64
}

/// The server's integrator (docs/SYNC.md, "How the server decides"): puts uploaded changesets into
/// the one serialized history and decides every instruction once, keep or drop, against the store.
public final class Integrator {
    public let store: any SyncStore
    let rules: SyncSchemaRules
    let wallClock: any WallClock
    /// How far (milliseconds) a changeset's clock may be ahead of the server's wall clock.
    public let clockSkewTolerance: UInt64
    /// Who may read and write what (docs/SYNC.md "Permissions"); nil: no checks, every write stands.
    public let permissions: SyncPermissions?
    /// The last dropped instructions, for operators: merge-rule drops and permission refusals.
    public private(set) var conflictLog: ConflictLog

    public init(
        store: any SyncStore, schema: Schema, wallClock: any WallClock, clockSkewTolerance: UInt64 = 300_000,
        permissions: SyncPermissions? = nil, conflictLogCapacity: Int = 1000
    ) {
        self.store = store
        self.rules = SyncSchemaRules(schema: schema)
        self.wallClock = wallClock
        self.clockSkewTolerance = clockSkewTolerance
        self.permissions = permissions
        self.conflictLog = ConflictLog(capacity: conflictLogCapacity)
    }

    /// Integrates every upload in ONE store transaction (group commit). Each upload runs in a
    /// savepoint, so a refused one leaves nothing and does not fail the others. Throws only when the
    /// store fails, and then nothing at all was integrated.
    /// `recording` runs last in the same transaction, with the result: what it writes commits or
    /// rolls back with the integration (a shared store's inbox records the outcomes there).
    @discardableResult
    public func integrate(
        _ uploads: [Upload], recording: (any SyncStoreTransaction, IntegrationResult) throws -> Void = { _, _ in }
    ) throws -> IntegrationResult {
        let now = wallClock.nowMilliseconds()
        let (result, conflicts) = try store.write { transaction in
            var outcomes: [UploadOutcome] = []
            var integrated: [HistoryEntry] = []
            var conflicts: [ConflictRecord] = []
            try transaction.prefetch(uploads.flatMap { $0.changesets.flatMap { $0.instructions.map(\.object) } })
            for upload in uploads {
                do {
                    let done = try transaction.savepoint { try integrate(upload, into: transaction, now: now) }
                    outcomes.append(.acknowledged(clientVersion: done.acknowledged, compensating: done.compensating))
                    integrated += done.entries
                    conflicts += done.conflicts
                } catch let refusal as SyncError {
                    outcomes.append(.refused(refusal))
                }
            }
            let latest = try transaction.latestServerVersion()
            let result = IntegrationResult(outcomes: outcomes, integrated: integrated, latestServerVersion: latest)
            try recording(transaction, result)
            return (result, conflicts)
        }
        // Logged once committed: a failed transaction integrated nothing, so it dropped nothing.
        conflictLog.append(contentsOf: conflicts)
        return result
    }

    /// What integrating one upload did.
    private struct UploadIntegration {
        var acknowledged: UInt64
        var entries: [HistoryEntry] = []
        var compensating: [CompensatingWrite] = []
        var conflicts: [ConflictRecord] = []
    }

    /// Integrates one upload: rule 0 (idempotence, order, clock skew) per changeset, then each
    /// instruction, under the permissions when there are.
    private func integrate(_ upload: Upload, into transaction: any SyncStoreTransaction, now: UInt64) throws
        -> UploadIntegration
    {
        guard var client = try transaction.client(upload.clientFileID) else {
            throw SyncError(.badClientFileIdentifier, "client file \(upload.clientFileID) is unknown to this server")
        }
        let permissionGuard = try self.permissionGuard(for: upload, of: client, transaction)
        var done = UploadIntegration(acknowledged: client.lastIntegratedClientVersion)
        for changeset in upload.changesets {
            let next = client.lastIntegratedClientVersion + 1
            if changeset.clientVersion < next { continue }  // Already integrated: acknowledged again.
            try checkOrder(of: changeset, from: upload.clientFileID, expected: next, now: now, transaction)
            let serverVersion = try transaction.latestServerVersion() + 1
            let unheld = try existingUnheldObjects(createdBy: changeset, transaction)
            let decider = InstructionDecider(
                transaction: transaction, rules: rules, changeset: changeset, serverVersion: serverVersion,
                user: client.user)
            let decision = try ChangesetDecider(decider: decider, user: client.user, permissionGuard: permissionGuard)
                .decide()
            var kept = changeset
            kept.instructions = decision.kept
            try transaction.appendHistory(HistoryRecord(serverVersion: serverVersion, original: changeset, kept: kept))
            // The replica has what it created, kept or dropped: it must hear of what becomes of it.
            // Except an object that existed outside what it holds: its create merged into the
            // server's object, whose other writes the replica never got; left unheld, the next
            // download sends it whole (or its removal, when it is outside the view).
            for case .create(let ref, _) in changeset.instructions where !unheld.contains(ref) {
                try transaction.markHeld(upload.clientFileID, ref)
            }
            client.lastIntegratedClientVersion = changeset.clientVersion
            done.entries.append(HistoryEntry(serverVersion: serverVersion, kept: kept))
            done.compensating += decision.compensating
            done.conflicts += decision.conflicts
        }
        try transaction.writeClient(client)
        done.acknowledged = client.lastIntegratedClientVersion
        return done
    }

    /// The objects `changeset` creates that exist already and that its file does not hold.
    private func existingUnheldObjects(createdBy changeset: Changeset, _ transaction: any SyncStoreTransaction)
        throws -> Set<ObjectRef>
    {
        var result: Set<ObjectRef> = []
        for case .create(let ref, _) in changeset.instructions where !result.contains(ref) {
            if try transaction.object(ref)?.exists == true, try !transaction.holds(changeset.clientFileID, ref) {
                result.insert(ref)
            }
        }
        return result
    }

    /// The permission checks of `upload`'s writer; nil without permissions. With them the upload must
    /// name its writer, the user its client file belongs to.
    private func permissionGuard(
        for upload: Upload, of client: ClientRecord, _ transaction: any SyncStoreTransaction
    ) throws -> PermissionGuard? {
        guard let permissions else { return nil }
        guard let writer = upload.writer else {
            throw SyncError(
                .otherError,
                "the upload of client file \(client.fileID) names no writer (user and view), "
                    + "which the server's permission checks require")
        }
        guard writer.user == client.user else {
            throw SyncError(
                .userMismatch,
                "client file \(client.fileID) belongs to user '\(client.user)', "
                    + "but its upload was written by '\(writer.user)'")
        }
        return PermissionGuard(permissions: permissions, writer: writer, rules: rules, transaction: transaction)
    }

    /// Refuses a changeset that is not the next of its file, claims another file, comes from too far
    /// in the future, claims to have seen server versions that do not exist, or breaks the schema.
    private func checkOrder(
        of changeset: Changeset, from clientFileID: UInt64, expected: UInt64, now: UInt64,
        _ transaction: any SyncStoreTransaction
    ) throws {
        guard changeset.clientFileID == clientFileID else {
            throw SyncError(
                .badChangeset,
                "client version \(changeset.clientVersion) names client file \(changeset.clientFileID), "
                    + "but was uploaded by client file \(clientFileID)")
        }
        guard changeset.clientVersion == expected else {
            throw SyncError(
                .badClientVersion,
                "client file \(clientFileID) uploaded client version \(changeset.clientVersion) "
                    + "where \(expected) was expected")
        }
        let (limit, overflow) = now.addingReportingOverflow(clockSkewTolerance)
        guard overflow || changeset.clock.milliseconds <= limit else {
            throw SyncError(
                .clockTooFarAhead,
                "client version \(changeset.clientVersion) of client file \(clientFileID) has clock "
                    + "\(changeset.clock), more than \(clockSkewTolerance) ms ahead of the server's \(now)")
        }
        let latest = try transaction.latestServerVersion()
        guard changeset.basedOnServerVersion <= latest else {
            throw SyncError(
                .badServerVersion,
                "client version \(changeset.clientVersion) of client file \(clientFileID) is based on server "
                    + "version \(changeset.basedOnServerVersion), past the latest, \(latest)")
        }
        try rules.validate(changeset)
    }
}
