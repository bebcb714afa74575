import Foundation
import LuaSandbox
import RealmDatabase

/// The waits of the sync API (`waitForUpload`, `waitForDownload`, `waitForSync`, `asyncOpen`): each a
/// loop polling the session, bounded by its timeout, off the script's budget
/// (`LuaState.waitingOffBudget`), delivering sync errors to the scripts' `errorHandler`s between
/// polls, and ending early when the call is cancelled (Ctrl-C: the hook then stops the script).
extension RealmLuaRuntime {
    /// How long a wait sleeps between two polls.
    static let syncPollInterval: Duration = .milliseconds(10)
    /// What a wait without `timeout` waits at most.
    static let defaultSyncTimeout: Duration = .seconds(10)
    /// The longest timeout a script may ask for: one hour.
    static let maximumSyncTimeoutMilliseconds: Int64 = 3_600_000

    /// Polls `done` until it gives a value (returned) or `timeout` passes (nil); raises `interrupted`
    /// when the call is cancelled.
    /// Refused inside a write transaction: the network applies downloads in write transactions of
    /// its own, which would wait for this one while this one waits for them.
    func pollingSync<T>(timeout: Duration, _ done: () throws -> T?) throws -> T? {
        if hasOpenWrite {
            throw luaError("cannot wait for sync inside a write transaction: commit or cancel it first")
        }
        return try state.waitingOffBudget { wait in
            let deadline = ContinuousClock.now + timeout
            while true {
                deliverSyncErrors()
                if let value = try done() { return value }
                // Cancelled (Ctrl-C): the script stops here. Returning would let a chunk that ends
                // with the wait finish before the hook sees the cancel, as if the wait timed out.
                if wait.isCancelled { throw LuaError(.interrupted, "interrupted") }
                if ContinuousClock.now >= deadline { return nil }
                wait.sleep(Self.syncPollInterval)
            }
        }
    }

    /// `{ timeout = ms }` at argument `index` (absent: `defaultSyncTimeout`).
    func syncTimeout(_ ctx: LuaCallContext, _ index: Int, _ function: String) throws -> Duration {
        guard let options = try ctx.optionalTable(index) else { return Self.defaultSyncTimeout }
        return try syncTimeout(try state.get(options, "timeout"), function)
    }

    func syncTimeout(_ value: LuaValue, _ function: String) throws -> Duration {
        if value.isNil { return Self.defaultSyncTimeout }
        guard let number = value.doubleValue, number.isFinite, number >= 0,
            number <= Double(Self.maximumSyncTimeoutMilliseconds)
        else {
            throw luaError(
                "\(function): timeout must be a number of milliseconds from 0 to "
                    + "\(Self.maximumSyncTimeoutMilliseconds), got \(value)")
        }
        return .milliseconds(Int64(number.rounded()))
    }

    /// Calls each session's `errorHandler` with the errors it reported since the last call. A handler
    /// that fails is reported through `print`, as a notification callback's failure is: the sync
    /// error has already happened, and the script goes on. Without a handler each error is printed
    /// (what the server undid and why), as Realm's default handler logs it: never dropped unseen.
    public func deliverSyncErrors() {
        var seen = Set<ObjectIdentifier>()
        for entry in syncSessions where seen.insert(ObjectIdentifier(entry.session)).inserted {
            let reports = entry.session.takeErrorReports()
            guard !reports.isEmpty else { continue }
            // The handler of the latest configuration opened on this file.
            guard
                let handler = syncSessions.last(where: { $0.session === entry.session && $0.errorHandler != nil })?
                    .errorHandler
            else {
                for line in reports.flatMap(\.lines) { state.outputHandler?(line) }
                continue
            }
            for report in reports {
                do {
                    try state.call(handler, [try errorReportTable(report)])
                } catch {
                    state.outputHandler?("sync errorHandler failed: \(error)")
                }
            }
        }
    }

    /// `{ code =, message =, kind =, compensatingWrites = { { class =, primaryKey =, reason = } } }`.
    private func errorReportTable(_ report: LuaSyncErrorReport) throws -> LuaValue {
        let writes = try report.compensatingWrites.map { write -> LuaValue in
            .plainTable(
                LuaTable(fields: [
                    "class": .string(write.className), "primaryKey": try toLua(write.primaryKey),
                    "reason": .string(write.reason),
                ]))
        }
        return .plainTable(
            LuaTable(fields: [
                "code": .integer(Int64(report.code)), "message": .string(report.message), "kind": .string(report.kind),
                "compensatingWrites": .plainTable(LuaTable(array: writes)),
            ]))
    }

    /// Sends every session's local commits (a wait on subscriptions does, for the new set).
    func flushSyncSessions() {
        for entry in syncSessions { entry.session.flush() }
    }
}
