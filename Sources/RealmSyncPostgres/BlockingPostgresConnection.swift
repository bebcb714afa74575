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
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(10)
        do {
            connection = try PostgresConnection.connect(
                on: group.next(), configuration: configuration, id: 1, logger: logger
            ).wait()
        } catch {
            throw SyncStoreError("cannot connect to the PostgreSQL store \(location): \(Self.describe(error))")
        }
    }

    /// Runs one statement with `values` bound to `$1`, `$2`, …; `operation` names it in errors.
    @discardableResult
    package func query(_ sql: String, _ values: [PostgresValue] = [], _ operation: @autoclosure () -> String)
        throws -> PostgresQueryResult
    {
        guard let connection else {
            throw SyncStoreError("\(operation()): the connection to the PostgreSQL store \(location) is closed")
        }
        do {
            let query = PostgresQuery(unsafeSQL: sql, binds: PostgresValue.bindings(values))
            return try connection.query(query, logger: logger).wait()
        } catch {
            // PostgreSQL refusing a statement leaves the connection usable; anything else (the server
            // gone, the socket cut) may not: the next transaction opens another.
            if (error as? PSQLError)?.serverInfo == nil { close(keepingLoop: true) }
            throw SyncStoreError("\(operation()) failed in the PostgreSQL store \(location): \(Self.describe(error))")
        }
    }

    /// The rows of one statement.
    package func rows(_ sql: String, _ values: [PostgresValue] = [], _ operation: @autoclosure () -> String)
        throws -> [StoreRow]
    {
        try query(sql, values, operation()).rows.map { StoreRow($0, operation()) }
    }

    /// Closes the connection; the next transaction opens another.
    package func close(keepingLoop: Bool = false) {
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
