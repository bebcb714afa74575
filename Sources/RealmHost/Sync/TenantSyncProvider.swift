import Foundation
import RealmDatabase
import RealmLua
import RealmSync

/// Syncs a tenant's flexible-sync realms through the host's transport: one session per file
/// (a `SyncClient` in subscription mode, carried by the transport), and for each open a realm
/// instance of the script's own whose commits the client's recorder records and which flushes
/// uploads after each commit.
final class TenantSyncProvider: LuaSyncProvider {
    let user: String
    private let transport: any SyncSessionTransport
    /// By file path.
    private(set) var sessions: [String: TenantSyncSession] = [:]
    /// Each script instance's commit observer (uploads after its commits), while the instance lives.
    private var observers: [ObservedRealm] = []

    private struct ObservedRealm {
        weak var realm: Realm?
        let token: NotificationToken
    }

    init(user: String, transport: any SyncSessionTransport) {
        self.user = user
        self.transport = transport
    }

    deinit {
        for observer in observers { observer.token.invalidate() }
    }

    var serverURL: String { transport.url }
    var canSignIn: Bool { transport.canSign }

    func open(_ configuration: Realm.Configuration) throws -> LuaSyncedRealm {
        try open(configuration, clientResetMode: ClientResetMode.recoverUnsyncedChanges.rawValue)
    }

    func open(_ configuration: Realm.Configuration, clientResetMode: String) throws -> LuaSyncedRealm {
        guard let mode = ClientResetMode(rawValue: clientResetMode) else {
            let modes = ClientResetMode.allCases.map(\.rawValue).joined(separator: ", ")
            throw RealmError(.invalidValue, "Unknown clientResetMode '\(clientResetMode)' (one of: \(modes))")
        }
        guard let url = configuration.fileURL else {
            throw RealmError(.fileAccess, "A synced realm needs a file: an inMemoryIdentifier does not sync")
        }
        let (session, clientConfiguration) = try session(for: url.standardizedFileURL.path, configuration, mode)
        var local = clientConfiguration
        local.onOpenBlock = configuration.onOpenBlock
        let realm = try Realm(configuration: local)
        observers.removeAll { $0.realm == nil }
        let token = try realm.observe { [weak session] _, _ in session?.flush() }
        observers.append(ObservedRealm(realm: realm, token: token))
        return LuaSyncedRealm(realm: realm, session: session)
    }

    /// The file's session, started on first use; and the configuration of the client's realm (its
    /// recorder), which the script's instances share.
    private func session(for path: String, _ configuration: Realm.Configuration, _ mode: ClientResetMode) throws -> (
        TenantSyncSession, Realm.Configuration
    ) {
        if let session = sessions[path] {
            let shared = session.handle.withEndpoint { UncheckedConfiguration($0.client.realm.configuration) }
            return (session, shared.value)
        }
        var synced = configuration
        // The file was migrated when the tenant opened; a synced realm's own commits must all be recorded.
        synced.migrationBlock = nil
        synced.deleteRealmIfMigrationNeeded = false
        synced.onOpenBlock = nil
        guard synced.schema != nil else {
            throw RealmError(
                .schemaMismatch,
                "A flexible-sync realm needs a schema to sync (the plugins' or config.schema); \(path) has none")
        }
        let errors = SyncErrorEvents()
        let client = try SyncClient(
            configuration: synced, user: user, wallClock: SystemWallClock(), viewSource: .subscriptions,
            clientResetMode: mode,
            errorHandler: { error, writes in
                errors.append(
                    SyncErrorEvent(code: Int(error.code.rawValue), message: error.message, compensatingWrites: writes))
            })
        let clientConfiguration = client.realm.configuration
        let handle = transport.carry(TenantSyncEndpoint(client: client, errors: errors), user: user)
        let session = TenantSyncSession(handle: handle, transport: transport, errors: errors)
        sessions[path] = session
        return (session, clientConfiguration)
    }
}

/// A configuration read under the handle's lock. Its closures and recorder are shared on purpose
/// (the recorder records every instance's commits; the closures run on the thread that opens).
private struct UncheckedConfiguration: @unchecked Sendable {
    let value: Realm.Configuration
    init(_ value: Realm.Configuration) { self.value = value }
}
