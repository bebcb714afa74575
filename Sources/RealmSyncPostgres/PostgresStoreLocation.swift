import Foundation
import PostgresNIO
import RealmSync

/// Where a `PostgresSyncStore` lives: `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` (`postgresql://`
/// too; the port defaults to 5432). Connections are plain TCP: the store is meant for a server on the
/// same machine or a private network (TLS is not configured yet).
public struct PostgresStoreLocation: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String

    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// Parses `url`; the error names what is missing or wrong (never the password).
    public init(parsing url: String) throws {
        let shown = Self.redacted(url)
        let lowered = url.lowercased()
        guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://"),
            let components = URLComponents(string: url)
        else { throw SyncStoreError("'\(shown)' is not a postgres://USER@HOST:PORT/DB address") }
        guard let host = components.host, !host.isEmpty else {
            throw SyncStoreError("'\(shown)': the PostgreSQL host is missing (postgres://USER@HOST:PORT/DB)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw SyncStoreError("'\(shown)': the PostgreSQL user is missing (postgres://USER@HOST:PORT/DB)")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw SyncStoreError("'\(shown)': the database name is missing (postgres://USER@HOST:PORT/DB)")
        }
        guard components.query == nil, components.fragment == nil else {
            throw SyncStoreError("'\(shown)': options after '?' or '#' are not supported")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw SyncStoreError("'\(shown)': port \(port) is out of range") }
        self.init(host: host, port: port, user: user, password: components.password, database: database)
    }

    /// How every connection to the store is made: plain TCP (see above), giving up after 10 s.
    var connectionConfiguration: PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    /// The address without the password, for messages.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// `text` without the password a URL may carry (`postgres://user:secret@host`).
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") else {
            return text
        }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return text.replacingCharacters(in: colon..<at, with: ":***")
    }
}
