import Foundation
import LuaSandbox
import RealmDatabase
import RealmLua
import XCTest

/// `Realm.asyncOpen`'s `progress` state follows the bootstrap's fraction, read from the session at
/// each poll: here a session that tells a scripted sequence of fractions, one per poll.
final class LuaAsyncOpenProgressTests: LuaTestCase {
    func testProgressReportsEachNewFractionOfTheBootstrapThenOne() throws {
        let session = ScriptedBootstrapSession(fractions: [nil, 0.25, 0.25, 0.5, 0.4, .nan, 0.75, 1])
        runtime.syncProvider = ScriptedSyncProvider(session: session)
        let states = try run(
            """
            local states = {}
            local r = Realm.asyncOpen(user:flexibleSyncConfiguration{}, { timeout = 10000,
              onState = function(state, info) states[#states + 1] = info and (state .. " " .. info) or state end })
            return table.concat(states, ",")
            """
        ).first?.stringValue
        // Repeated, smaller or unreadable figures are not reported again; 1 comes with opening.
        XCTAssertEqual(states, "connecting,progress 0.0,progress 0.25,progress 0.5,progress 0.75,progress 1.0,open")
    }
}

/// Opens local files; its one session is "connected" and answers the download mark once it told
/// every fraction.
private final class ScriptedSyncProvider: LuaSyncProvider {
    let serverURL = "ws://127.0.0.1:1/sync"
    let canSignIn = true
    let session: ScriptedBootstrapSession
    init(session: ScriptedBootstrapSession) { self.session = session }

    func open(_ configuration: Realm.Configuration) throws -> LuaSyncedRealm {
        LuaSyncedRealm(realm: try Realm(configuration: configuration), session: session)
    }
}

private final class ScriptedBootstrapSession: LuaSyncSession {
    private var fractions: [Double?]
    init(fractions: [Double?]) { self.fractions = fractions }

    let state = "active"
    let connectionState = "connected"
    let lastConnectionError: String? = nil
    let sessionError: String? = nil
    let isUploaded = true
    /// The next fraction at each read: a poll reads it once.
    var bootstrapProgress: Double? {
        guard !fractions.isEmpty else { return 1 }
        let next = fractions.removeFirst()
        return next.map { $0.isNaN ? -1 : $0 }
    }
    func flush() {}
    func requestDownloadMark() -> UInt64 { 1 }
    func isMarkAnswered(_ mark: UInt64) -> Bool { fractions.isEmpty }
    func takeErrorReports() -> [LuaSyncErrorReport] { [] }
    func pause() {}
    func resume() {}
}
