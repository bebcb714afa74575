import Foundation
import RealmDatabase

extension SyncClient {
    /// How many local commits of an open realm wait for a server's acknowledgement; nil when no
    /// sync client ever opened its file (it has no sync history: a local realm). `realm-host users`
    /// reads it from files no session holds.
    public static func pendingCommitCount(in realm: Realm) throws -> Int? {
        let tables = try realm.querySQL("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sync_history'")
        guard !tables.isEmpty else { return nil }
        return try ClientStore(realm: realm).historyCount()
    }
}
