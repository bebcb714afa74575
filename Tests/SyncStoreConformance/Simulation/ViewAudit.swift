import RealmDatabase
import RealmSync
import RealmTestSupport

/// What the audit tap (`AuditingServer`) learns, kept across server restarts: the permission
/// oracle, fed each integration's changesets with their writers as the tap recorded them; the
/// compensating writes the server sent; and every violation seen, each naming what and when.
final class ViewAudit {
    let schema: Schema
    let permissions: SyncPermissions
    private(set) var oracle: Oracle
    private(set) var violations: [String] = []
    /// The compensating writes the server sent, by the writer's client file.
    private(set) var sentCompensations: Set<OracleRefusal> = []
    private(set) var auditedObjects = 0

    init(schema: Schema, permissions: SyncPermissions) {
        self.schema = schema
        self.permissions = permissions
        oracle = Oracle(schema: schema, permissions: permissions)
    }

    func violation(_ what: String) { violations.append(what) }

    /// Per class, the union of `set`'s queries as the server compiles them (its queryable fields, no
    /// `$user`); nil when a query is outside the subset (the server refuses the set).
    func subscriptions(of set: QuerySet) -> [String: ViewPredicate]? {
        var queries: [String: [ViewPredicate]] = [:]
        for subscription in set.subscriptions {
            let name = subscription.className
            guard
                let predicate = try? ViewQueryCompiler.compile(
                    subscription.query, className: name, schema: schema,
                    queryable: permissions.queryable[name] ?? [], allowsUser: false)
            else { return nil }
            queries[name, default: []].append(predicate)
        }
        return queries.mapValues { $0.count == 1 ? $0[0] : .or($0) }
    }

    /// After an integration: the oracle integrates what the server did (each changeset with the
    /// writer recorded for its file), then the stored state must be the oracle's: no change a
    /// writer's rules refused is stored, none allowed is missing.
    func integrated(_ state: ServerState, writers: [UInt64: [UInt64: OracleWriter]]) {
        do {
            for entry in try state.integrationLog(after: oracle.serverVersion) {
                let file = entry.changeset.clientFileID
                guard let writer = writers[file]?[entry.changeset.clientVersion] else {
                    return violation("server version \(entry.serverVersion): client file \(file) had no upload pending")
                }
                try oracle.integrate(entry.changeset, at: entry.serverVersion, writer: writer)
            }
            let stored = try state.canonicalState(classes: SimulationSchema.syncedClasses.sorted())
            let expected = oracle.canonicalState
            if stored != expected {
                violation(
                    "after server version \(oracle.serverVersion) the store differs from the permission oracle:\n"
                        + stored.differences(from: expected).joined(separator: "\n"))
            }
        } catch {
            violation("the audit could not follow the integration at \(oracle.serverVersion): \(error)")
        }
    }

    /// A message the server sends `user` (client file `fileID`): every object it carries with data
    /// (tombstones, bare creates and erases, excepted) must exist readable by `user` now, unless
    /// it no longer exists (an erase the replica learns of); its compensating writes are recorded.
    func sent(_ message: SyncMessage, to user: String, fileID: UInt64?) {
        var carried: [ObjectRef] = []
        switch message {
        case .bootstrap(_, _, _, _, let objects, _, _, _, _):
            carried = objects.map(\.object)
        case .download(_, _, _, let changesets, let replacements, _, let compensating):
            carried = replacements.map(\.object)
            for changeset in changesets {
                for instruction in changeset.origin.instructions {
                    switch instruction {
                    case .erase: continue
                    case .create(_, let fields) where fields.isEmpty: continue
                    default: carried.append(instruction.object)
                    }
                }
            }
            for write in compensating {
                sentCompensations.insert(
                    OracleRefusal(clientFileID: fileID ?? 0, object: write.object, serverVersion: write.serverVersion))
            }
        default:
            return
        }
        for ref in Set(carried).sorted() where oracle.objects[ref] != nil {
            auditedObjects += 1
            if !oracle.isReadable(ref, by: user) {
                violation(
                    "at server version \(oracle.serverVersion) \(ref) was sent to \(user), whose read rule refuses it")
            }
        }
    }
}
