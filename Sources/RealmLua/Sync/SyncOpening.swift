import Foundation
import LuaSandbox
import RealmDatabase

/// `Realm.asyncOpen(config, { timeout =, onState = })`, `Realm.autoOpen(config, { timeout = })` and
/// `subscriptions:waitForSync{ timeout = }`.
extension RealmLuaRuntime {
    func registerSyncOpening() throws {
        guard case .table(let realmTable) = state.global("Realm") else {
            throw luaError("the Realm global must exist before Realm.asyncOpen is installed")
        }
        let asyncOpener = try state.makeFunction { [unowned self] ctx in try push(ctx, try asyncOpen(ctx)) }
        let autoOpener = try state.makeFunction { [unowned self] ctx in try push(ctx, try autoOpen(ctx)) }
        try state.set(realmTable, "asyncOpen", .function(asyncOpener))
        try state.set(realmTable, "autoOpen", .function(autoOpener))
    }

    /// The configuration (argument 1) and the options table (argument 2) of an opener.
    private func openArguments(_ ctx: LuaCallContext, _ function: String) throws -> (
        ConfigurationBox, Duration, LuaFunctionRef?
    ) {
        let box = try ctx.userdata(1, as: ConfigurationBox.self)
        guard let options = try ctx.optionalTable(2) else { return (box, Self.defaultSyncTimeout, nil) }
        let timeout = try syncTimeout(try state.get(options, "timeout"), function)
        switch try state.get(options, "onState") {
        case .nil: return (box, timeout, nil)
        case .function(let f): return (box, timeout, f)
        case let other: throw luaError("\(function): onState must be a function(state, info), got \(other.typeName)")
        }
    }

    /// Downloads first: returns the realm once the server's data is in it (and its subscriptions
    /// are complete); raises after `timeout`, or at once when the server refuses, naming the URL.
    private func asyncOpen(_ ctx: LuaCallContext) throws -> Realm {
        let (box, timeout, onState) = try openArguments(ctx, "Realm.asyncOpen")
        func report(_ name: String, _ info: LuaValue = .nil) throws {
            if let onState { try state.call(onState, [.string(name), info]) }
        }
        guard box.isFlexibleSync, let provider = syncProvider else {
            // A local realm (or a host without a server) has everything already.
            let realm = try open(box)
            try report("open")
            return realm
        }
        func fail(_ what: String) throws -> Never {
            let message = "Realm.asyncOpen: \(provider.serverURL): \(what)"
            try report("error", .string(message))
            throw luaError(message)
        }
        try report("connecting")
        guard provider.canSignIn else {
            try report("waitingForUser")
            try fail(
                "unauthorized: the host has no secret to sign a token for user '\(userName)' with "
                    + "(REALMHOST_SYNC_SECRET or --sync-secret-file)")
        }
        let synced = try openSynced(box, try checkedConfiguration(box), provider)
        let session = synced.session
        let mark = session.requestDownloadMark()
        session.flush()
        var reported: Double?
        let outcome = try pollingSync(timeout: timeout) { () -> String?? in
            if let error = session.sessionError { return .some(error) }
            // 0 once connected, then each fraction of the bootstrap (1 is reported on opening).
            if session.connectionState == "connected" {
                let fraction = session.bootstrapProgress ?? 0
                if fraction < 1 && fraction > (reported ?? -1) {
                    reported = fraction
                    try report("progress", .number(fraction))
                }
            }
            guard session.isMarkAnswered(mark) else { return nil }
            let subscriptions = try synced.realm.subscriptions
            switch subscriptions.state {
            case .complete, .superseded: return .some(nil)
            case .error: return .some(subscriptions.errorMessage ?? "the server refused the subscriptions")
            case .pending, .bootstrapping: return subscriptions.isEmpty ? .some(nil) : nil
            }
        }
        switch outcome {
        case .none:
            let milliseconds = Int64((timeout / .milliseconds(1)).rounded())
            let waiting =
                session.connectionState == "connected"
                ? "waiting for the server's data"
                : "could not connect (\(session.lastConnectionError ?? session.connectionState))"
            try fail("timed out after \(milliseconds) ms, \(waiting)")
        case .some(.some(let error)): try fail("failed: \(error)")
        case .some(.none):
            try report("progress", .number(1))
            try report("open")
            return synced.realm
        }
    }

    /// Opens the file on disk when the server is unreachable or slower than `timeout`; the session
    /// keeps syncing in the background. Raises only what a local open would.
    private func autoOpen(_ ctx: LuaCallContext) throws -> Realm {
        let (box, timeout, _) = try openArguments(ctx, "Realm.autoOpen")
        guard box.isFlexibleSync, let provider = syncProvider else { return try open(box) }
        let synced = try openSynced(box, try checkedConfiguration(box), provider)
        guard provider.canSignIn else { return synced.realm }
        let session = synced.session
        let mark = session.requestDownloadMark()
        session.flush()
        _ = try pollingSync(timeout: timeout) { () -> Bool? in
            // A server that refused or cannot be reached: the file on disk is what there is.
            if session.sessionError != nil { return true }
            if session.connectionState != "connected" && session.lastConnectionError != nil { return true }
            return session.isMarkAnswered(mark) ? true : nil
        }
        return synced.realm
    }

    /// The Swift configuration of `box`, its file checked as `open` checks it.
    private func checkedConfiguration(_ box: ConfigurationBox) throws -> Realm.Configuration {
        let configuration = resolved(box)
        if let url = configuration.fileURL { try fileAccessPolicy(url) }
        return configuration
    }

    /// `subscriptions:waitForSync{ timeout = ms }`: returns once the set is complete (at once for a
    /// local realm's), raises the server's message when it refused the set, or after the timeout.
    func waitForSync(_ ctx: LuaCallContext, _ set: SubscriptionSet) throws -> Int {
        try waitForSubscriptions(set, "waitForSync", timeout: try syncTimeout(ctx, 2, "waitForSync"))
        return 0
    }

    /// Waits until `set` is complete (or superseded); raises the server's message when it refused
    /// the set (typed `SubscriptionFailed`, as Realm's), or after `timeout` naming `function`.
    func waitForSubscriptions(_ set: SubscriptionSet, _ function: String, timeout: Duration) throws {
        flushSyncSessions()
        let outcome = try pollingSync(timeout: timeout) { () -> SubscriptionState? in
            let state = set.state
            return state == .pending || state == .bootstrapping ? nil : state
        }
        switch outcome {
        case .error?:
            throw RealmError(.subscription, set.errorMessage ?? "the server refused subscription set \(set.version)")
        case nil:
            throw luaError(
                "\(function): subscription set \(set.version) is still \(set.state.rawValue) after the timeout")
        default: return
        }
    }
}
