import Foundation
import RealmDatabase
import RealmLua

/// A sync provider with no server behind it, so that the binding target reaches `realm.syncSession`
/// and the sync openers without a network: flexible-sync realms open as local files, and every wait
/// is over at once (everything is "uploaded" and "downloaded": there is nowhere else to go).
final class OfflineSyncProvider: LuaSyncProvider {
    let serverURL = "ws://127.0.0.1:1/sync"
    let canSignIn = true

    func open(_ configuration: Realm.Configuration) throws -> LuaSyncedRealm {
        LuaSyncedRealm(realm: try Realm(configuration: configuration), session: OfflineSyncSession())
    }
}

final class OfflineSyncSession: LuaSyncSession {
    private var paused = false
    var state: String { paused ? "inactive" : "active" }
    let connectionState = "disconnected"
    let lastConnectionError: String? = "no server: the fuzzer's sessions stay offline"
    let sessionError: String? = nil
    let isUploaded = true
    func flush() {}
    func requestDownloadMark() -> UInt64 { 1 }
    func isMarkAnswered(_ mark: UInt64) -> Bool { true }
    func takeErrorReports() -> [LuaSyncErrorReport] { [] }
    func pause() { paused = true }
    func resume() { paused = false }
}
