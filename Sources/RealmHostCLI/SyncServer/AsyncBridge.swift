import Dispatch
import Synchronization

/// Runs async work from a synchronous command (the commands are `ParsableCommand`s; the sync server's
/// network side is async) and returns its result. The calling thread blocks while the work runs on
/// the concurrency pool, which it is no part of.
enum AsyncBridge {
    static func wait<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
        try start(body).wait().get()
    }

    /// The same, giving up after `timeout` (nil): the work goes on, nobody waits for it.
    static func wait<Value: Sendable>(
        timeout: Duration, _ body: @escaping @Sendable () async throws -> Value
    ) throws -> Value? {
        try start(body).wait(timeout: timeout)?.get()
    }

    private static func start<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) -> Outcome<Value> {
        let outcome = Outcome<Value>()
        Task {
            do {
                outcome.finish(.success(try await body()))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        return outcome
    }

    /// The result, handed from the task to the waiting thread.
    private final class Outcome<Value: Sendable>: Sendable {
        private let result = Mutex<Result<Value, any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func finish(_ value: Result<Value, any Error>) {
            result.withLock { $0 = value }
            done.signal()
        }

        func wait() -> Result<Value, any Error> {
            done.wait()
            return taken()
        }

        func wait(timeout: Duration) -> Result<Value, any Error>? {
            let (seconds, attoseconds) = timeout.components
            let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
            guard done.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, 1e15)))) == .success else { return nil }
            return taken()
        }

        private func taken() -> Result<Value, any Error> {
            result.withLock { $0 } ?? .failure(CLIError.failed("an asynchronous step ended without a result"))
        }
    }
}
