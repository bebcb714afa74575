import RealmDatabase

/// The changesets one client file uploaded, in client-version order.
public struct Upload: Hashable, Sendable {
    public var clientFileID: UInt64
    public var changesets: [Changeset]

    public init(clientFileID: UInt64, changesets: [Changeset]) {
        self.clientFileID = clientFileID
        self.changesets = changesets
    }
}

/// What became of one upload: the highest client version of its file now integrated, or why the
/// whole upload was refused (nothing of it integrated).
public enum UploadOutcome: Hashable, Sendable {
    case acknowledged(clientVersion: UInt64)
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
    private let wallClock: any WallClock
    /// How far (milliseconds) a changeset's clock may be ahead of the server's wall clock.
    public let clockSkewTolerance: UInt64

    public init(store: any SyncStore, schema: Schema, wallClock: any WallClock, clockSkewTolerance: UInt64 = 300_000) {
        self.store = store
        self.rules = SyncSchemaRules(schema: schema)
        self.wallClock = wallClock
        self.clockSkewTolerance = clockSkewTolerance
    }

    /// Integrates every upload in ONE store transaction (group commit). Each upload runs in a
    /// savepoint, so a refused one leaves nothing and does not fail the others. Throws only when the
    /// store fails, and then nothing at all was integrated.
    @discardableResult
    public func integrate(_ uploads: [Upload]) throws -> IntegrationResult {
        let now = wallClock.nowMilliseconds()
        return try store.write { transaction in
            var outcomes: [UploadOutcome] = []
            var integrated: [HistoryEntry] = []
            for upload in uploads {
                do {
                    let (acknowledged, entries) = try transaction.savepoint {
                        try integrate(upload, into: transaction, now: now)
                    }
                    outcomes.append(.acknowledged(clientVersion: acknowledged))
                    integrated += entries
                } catch let refusal as SyncError {
                    outcomes.append(.refused(refusal))
                }
            }
            let latest = try transaction.latestServerVersion()
            return IntegrationResult(outcomes: outcomes, integrated: integrated, latestServerVersion: latest)
        }
    }

    /// Integrates one upload: rule 0 (idempotence, order, clock skew) per changeset, then each
    /// instruction. Returns the client version acknowledged and the history added.
    private func integrate(_ upload: Upload, into transaction: any SyncStoreTransaction, now: UInt64) throws
        -> (UInt64, [HistoryEntry])
    {
        guard var client = try transaction.client(upload.clientFileID) else {
            throw SyncError(.badClientFileIdentifier, "client file \(upload.clientFileID) is unknown to this server")
        }
        var entries: [HistoryEntry] = []
        for changeset in upload.changesets {
            let next = client.lastIntegratedClientVersion + 1
            if changeset.clientVersion < next { continue }  // Already integrated: acknowledged again.
            try checkOrder(of: changeset, from: upload.clientFileID, expected: next, now: now, transaction)
            let serverVersion = try transaction.latestServerVersion() + 1
            let decider = InstructionDecider(
                transaction: transaction, rules: rules, changeset: changeset, serverVersion: serverVersion,
                user: client.user)
            var kept = changeset
            kept.instructions = try changeset.instructions.compactMap { try decider.decide($0) }
            try transaction.appendHistory(HistoryRecord(serverVersion: serverVersion, original: changeset, kept: kept))
            client.lastIntegratedClientVersion = changeset.clientVersion
            entries.append(HistoryEntry(serverVersion: serverVersion, kept: kept))
        }
        try transaction.writeClient(client)
        return (client.lastIntegratedClientVersion, entries)
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
