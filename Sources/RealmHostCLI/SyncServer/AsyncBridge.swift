import Dispatch
import Synchronization

/// Runs async work from a synchronous command (the commands are `ParsableCommand`s; the sync server's
/// network side is async) and returns its result. The calling thread blocks while the work runs on
/// the concurrency pool, which it is no part of.
enum AsyncBridge {
    static func wait<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
        let outcome = Outcome<Value>()
        Task {
            do {
                outcome.finish(.success(try await body()))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        return try outcome.wait().get()
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
            return result.withLock { $0 } ?? .failure(CLIError.failed("an asynchronous step ended without a result"))
        }
    }
}
