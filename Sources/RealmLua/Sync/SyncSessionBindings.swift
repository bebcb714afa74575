import Foundation
import LuaSandbox
import RealmDatabase

/// A synced realm instance a script opened, its file's session and the `errorHandler` of the
/// configuration it was opened with.
struct SyncSessionEntry {
    weak var realm: Realm?
    let session: any LuaSyncSession
    let errorHandler: LuaFunctionRef?
}

/// `realm.syncSession` as a userdata.
final class SyncSessionBox {
    let session: any LuaSyncSession
    init(_ session: any LuaSyncSession) { self.session = session }
}

/// `realm.syncSession` (`state`, `connectionState`, `waitForUpload`, `waitForDownload`, `pause`,
/// `resume`) and opening flexible-sync configurations through the host's `LuaSyncProvider`.
extension RealmLuaRuntime {
    func registerSyncSession() throws {
        unowned let runtime = self
        func session(_ ctx: LuaCallContext) throws -> any LuaSyncSession {
            try ctx.userdata(1, as: SyncSessionBox.self).session
        }
        var t = BindingTable()
        t.field("state") { ctx in try ctx.returning(.string(try session(ctx).state)) }
        t.field("connectionState") { ctx in try ctx.returning(.string(try session(ctx).connectionState)) }
        t.method("waitForUpload") { ctx in
            let s = try session(ctx)
            let timeout = try runtime.syncTimeout(ctx, 2, "waitForUpload")
            s.flush()
            let done = try runtime.pollingSync(timeout: timeout) { s.isUploaded ? true : nil }
            return try ctx.returning(.boolean(done ?? false))
        }
        t.method("waitForDownload") { ctx in
            let s = try session(ctx)
            let timeout = try runtime.syncTimeout(ctx, 2, "waitForDownload")
            let mark = s.requestDownloadMark()
            s.flush()
            let done = try runtime.pollingSync(timeout: timeout) { s.isMarkAnswered(mark) ? true : nil }
            return try ctx.returning(.boolean(done ?? false))
        }
        t.method("pause") { ctx in
            try session(ctx).pause()
            return 0
        }
        t.method("resume") { ctx in
            try session(ctx).resume()
            return 0
        }
        try register(
            SyncSessionBox.self, name: "SyncSession", t,
            metamethods: [
                "__tostring": { ctx in
                    let s = try session(ctx)
                    return try ctx.returning(.string("SyncSession(\(s.state), \(s.connectionState))"))
                }
            ])
    }

    /// The session syncing `realm`'s file, nil for a local realm.
    func syncSession(of realm: Realm) -> (any LuaSyncSession)? {
        syncSessions.first { $0.realm === realm }?.session
    }

    /// Opens a flexible-sync configuration's realm through the provider and keeps its session.
    func openSynced(_ box: ConfigurationBox, _ configuration: Realm.Configuration, _ provider: any LuaSyncProvider)
        throws -> LuaSyncedRealm
    {
        let synced = try provider.open(configuration, clientResetMode: box.clientResetMode)
        syncSessions.removeAll { $0.realm == nil }
        syncSessions.append(
            SyncSessionEntry(realm: synced.realm, session: synced.session, errorHandler: box.errorHandler))
        track(synced.realm)
        return synced
    }
}
