import Foundation
import Synchronization

/// Where errors go that a non-throwing API cannot throw.
///
/// Realm's shape has non-throwing properties (`isInvalidated`, `count`, `version`, …). When one of
/// them fails (a closed or busy connection, an I/O error) it must not answer a plausible value in
/// silence: "deleted", "empty" and "version 0" are all wrong answers. It reports the error here,
/// then returns its neutral value. Inside the module, the throwing variants are used instead.
///
/// The default handler writes the error to standard error; a host can route it to its log, and a
/// test can collect it. Never traps.
public enum RealmDiagnostics {
    /// A failure a non-throwing call could not throw: what it was doing and the error.
    public struct Report: Sendable, CustomStringConvertible {
        public let operation: String
        public let error: String

        public var description: String { "RealmDatabase: error while \(operation): \(error)" }
    }

    public typealias Handler = @Sendable (Report) -> Void

    private static let handler = Mutex<Handler>(Self.writeToStandardError)

    /// Replaces the handler; returns the previous one (so a caller can restore it).
    @discardableResult
    public static func setHandler(_ newHandler: @escaping Handler) -> Handler {
        handler.withLock { current in
            let previous = current
            current = newHandler
            return previous
        }
    }

    /// Reports `error`, raised while doing `operation` in a call that cannot throw it.
    public static func report(_ error: Error, while operation: String) {
        let report = Report(operation: operation, error: String(describing: error))
        let current = handler.withLock { $0 }
        current(report)
    }

    @Sendable
    public static func writeToStandardError(_ report: Report) {
        FileHandle.standardError.write(Data((report.description + "\n").utf8))
    }
}

/// Runs a throwing read for a non-throwing API: its value, or `neutral` after reporting the error.
func reportingErrors<T>(_ operation: @autoclosure () -> String, neutral: T, _ body: () throws -> T) -> T {
    do {
        return try body()
    } catch {
        RealmDiagnostics.report(error, while: operation())
        return neutral
    }
}
