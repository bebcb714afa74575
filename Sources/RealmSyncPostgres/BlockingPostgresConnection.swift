import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import RealmSync

/// One PostgreSQL connection used synchronously, as the `SyncStore` protocol is: each query runs on
/// the connection's own event loop and the calling thread waits for its result. The caller must not
/// be on that event loop, which is private to this object, so it never is.
///
/// A connection found closed (PostgreSQL restarted) is opened again at the next transaction; the
/// transaction it cut failed and PostgreSQL rolled it back.
package final class BlockingPostgresConnection {
    package let location: PostgresStoreLocation
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var connection: PostgresConnection?
    /// Set by `close()`: the event loop is gone, nothing can be run on it again.
    private var isShutDown = false
    /// Statements sent by `send` whose results nobody waited for yet, with the operation each does.
    private var pending: [(result: EventLoopFuture<PostgresQueryResult>, operation: String)] = []
    /// postgres-nio logs at debug level only; the server's standard output is its contract.
    private let logger = Logger(label: "realm-sync-postgres") { _ in SwiftLogNoOpLogHandler() }

    package init(_ location: PostgresStoreLocation) throws {
        self.location = location
        do {
            try connectIfClosed()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    package func connectIfClosed() throws {
        if let connection, !connection.isClosed { return }
        guard !isShutDown else { throw SyncStoreError("the PostgreSQL store \(location) was closed") }
        close(keepingLoop: true)
        do {
            connection = try PostgresConnection.connect(
                on: group.next(), configuration: location.connectionConfiguration, id: 1, logger: logger
            ).wait()
        } catch {
            throw SyncStoreError("cannot connect to the PostgreSQL store \(location): \(Self.describe(error))")
        }
    }

    /// Runs one statement with `values` bound to `$1`, `$2`, …; `operation` names it in errors.
    /// Statements `send` queued before it are waited for first, so their errors come before it runs.
    @discardableResult
    package func query(_ sql: String, _ values: [PostgresValue] = [], _ operation: @autoclosure () -> String)
        throws -> PostgresQueryResult
    {
        try flush()
        let result = try start(sql, values, operation())
        do {
            return try result.wait()
        } catch {
            throw failure(error, operation())
        }
    }

    /// Sends one statement whose result is not needed without waiting for it: the connection runs
    /// it after those sent before, and the caller goes on meanwhile (one round trip saved per write).
    /// Its error, if any, is thrown by the next `query` or `flush`, naming `operation`; so a
    /// transaction or savepoint must `flush` before it ends for a failed write to fail it.
    package func send(_ sql: String, _ values: [PostgresValue] = [], _ operation: @autoclosure () -> String) throws {
        let name = operation()
        pending.append((try start(sql, values, name), name))
    }

    /// Waits for every statement `send` queued; throws the first one's error (those after it failed
    /// too: PostgreSQL refuses every statement of an aborted transaction).
    package func flush() throws {
        guard !pending.isEmpty else { return }
        let waiting = pending
        pending = []
        var first: SyncStoreError?
        for statement in waiting {
            do {
                _ = try statement.result.wait()
            } catch {
                let failed = failure(error, statement.operation)
                if first == nil { first = failed }
            }
        }
        if let first { throw first }
    }

    /// Waits for the statements `send` queued, ignoring their errors: for the rollback of the
    /// transaction or savepoint they belong to, which undoes them anyway.
    package func discardPending() {
        _ = try? flush()
    }

    private func start(_ sql: String, _ values: [PostgresValue], _ operation: @autoclosure () -> String)
        throws -> EventLoopFuture<PostgresQueryResult>
    {
        guard let connection else {
            throw SyncStoreError("\(operation()): the connection to the PostgreSQL store \(location) is closed")
        }
        return connection.query(PostgresQuery(unsafeSQL: sql, binds: PostgresValue.bindings(values)), logger: logger)
    }

    /// The error of a statement that failed. PostgreSQL refusing a statement leaves the connection
    /// usable; anything else (the server gone, the socket cut) may not: the next transaction opens another.
    private func failure(_ error: any Error, _ operation: String) -> SyncStoreError {
        if (error as? PSQLError)?.serverInfo == nil { close(keepingLoop: true) }
        return SyncStoreError("\(operation) failed in the PostgreSQL store \(location): \(Self.describe(error))")
    }

    /// The rows of one statement.
    package func rows(_ sql: String, _ values: [PostgresValue] = [], _ operation: @autoclosure () -> String)
        throws -> [StoreRow]
    {
        try query(sql, values, operation()).rows.map { StoreRow($0, operation()) }
    }

    /// Closes the connection; the next transaction opens another.
    package func close(keepingLoop: Bool = false) {
        // Abandoned: closing the connection fails them, and the transaction they belonged to.
        pending = []
        if let connection { try? connection.close().wait() }
        connection = nil
        if !keepingLoop && !isShutDown {
            isShutDown = true
            try? group.syncShutdownGracefully()
        }
    }

    /// What PostgreSQL said (message, SQLSTATE, detail): postgres-nio's own description hides it.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let info = error.serverInfo, let message = info[.message] {
            let state = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            let detail = info[.detail].map { ": \($0)" } ?? ""
            return message + state + detail
        }
        return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
    }
}
