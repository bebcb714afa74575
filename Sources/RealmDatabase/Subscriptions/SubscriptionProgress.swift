/// What a sync client learned from its server about the versions of a realm's subscription set,
/// stored in the file (`_realm_meta`) so that every instance and every later session reads it.
/// Only realms whose commit recorder says `subscriptionsAwaitServer` consult it; a local realm's
/// committed set is complete at once.
package struct SubscriptionProgress: Equatable, Sendable {
    /// The last version the server completed (0: the empty set every file starts with).
    package var complete: Int64
    /// The version whose bootstrap is arriving, if any.
    package var bootstrapping: Int64?
    /// The version the server refused, and its message.
    package var errorVersion: Int64?
    package var errorMessage: String?

    package init(
        complete: Int64 = 0, bootstrapping: Int64? = nil, errorVersion: Int64? = nil, errorMessage: String? = nil
    ) {
        self.complete = complete
        self.bootstrapping = bootstrapping
        self.errorVersion = errorVersion
        self.errorMessage = errorMessage
    }

    /// The state of set `version` when `latest` is the newest committed one. As realm-core's
    /// store (`supercede_prior_to` when a set completes): a set is `superseded` once a newer one
    /// *completes*, not when it is committed; until then the active set stays `complete` and a
    /// refused one `error`. A set older than a refused one that never completed is superseded too:
    /// the client asks for the latest set only, so no server will decide it. A local realm's sets
    /// complete when committed, so the older ones are superseded at once.
    func state(of version: Int64, latest: Int64, awaitsServer: Bool) -> SubscriptionState {
        guard awaitsServer else { return version < latest ? .superseded : .complete }
        if version < complete { return .superseded }
        if version == complete { return .complete }
        if version == errorVersion { return .error }
        if version < latest, let refused = errorVersion, refused > version { return .superseded }
        return version == bootstrapping ? .bootstrapping : .pending
    }
}

extension Realm {
    /// Whether a sync server decides this realm's subscription states (`CommitRecorder`).
    var subscriptionsAwaitServer: Bool { configuration.commitRecorder?.subscriptionsAwaitServer ?? false }

    /// What the sync client recorded of the subscription set's versions.
    package func subscriptionProgress() throws -> SubscriptionProgress {
        try MetaTable(connection).subscriptionProgress()
    }

    /// The server is sending the bootstrap of set `version` (inside the open write transaction).
    /// `nil`: no set is bootstrapping (an interrupted bootstrap's batches were dropped: its set is
    /// pending again).
    package func markSubscriptionsBootstrapping(_ version: Int64?) throws {
        try updateSubscriptionProgress { $0.bootstrapping = version }
    }

    /// The server completed set `version`: its view is the replica's (older versions are superseded).
    package func markSubscriptionsComplete(_ version: Int64) throws {
        try updateSubscriptionProgress { progress in
            progress.complete = max(progress.complete, version)
            if let bootstrapping = progress.bootstrapping, bootstrapping <= version { progress.bootstrapping = nil }
            if let refused = progress.errorVersion, refused <= version {
                progress.errorVersion = nil
                progress.errorMessage = nil
            }
        }
    }

    /// The server refused set `version` with `message`; the replica keeps its previous view.
    package func markSubscriptionsError(_ version: Int64, message: String) throws {
        try updateSubscriptionProgress { progress in
            // The newest refusal is kept: an older set refused later (the rules changed) is
            // superseded by the newer one anyway.
            guard (progress.errorVersion ?? .min) <= version else { return }
            progress.errorVersion = version
            progress.errorMessage = message
            if progress.bootstrapping == version { progress.bootstrapping = nil }
        }
    }

    private func updateSubscriptionProgress(_ change: (inout SubscriptionProgress) -> Void) throws {
        try checkWritable()
        let meta = MetaTable(connection)
        var progress = try meta.subscriptionProgress()
        change(&progress)
        try meta.setSubscriptionProgress(progress)
    }
}
