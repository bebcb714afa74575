import Foundation

/// How `realm-host serve` listens and bounds its work: `serve = { … }` in `host.lua`, overridden
/// by the command's flags (docs/SERVE.md "The process").
public struct HostServeOptions: Sendable, Equatable {
    /// The apps' listener, `HOST:PORT` (port 0: a free one).
    public var listen = "127.0.0.1:8080"
    /// The operators' listener (health, readiness, metrics, admin routes).
    public var adminListen = "127.0.0.1:8081"
    /// The largest request body accepted (413 past it).
    public var maxBodyBytes = 1 << 20
    /// The deepest nesting of arrays and objects a JSON body may have (400 past it).
    public var maxJSONDepth = 32
    /// Calls queued or running for one user before the next is refused (429).
    public var userQueue = 32
    /// Calls running at once over all users (the lanes' worker threads); more wait in their users'
    /// queues. Twice the cores, at least 4: a call is Lua and SQLite on a core or a commit's
    /// fsync, and past that more threads only switch (`serve_read_call` measured 1.81 with 4
    /// workers on 2 cores, 2.2 with 64; writes 0.98 and 0.88). A host whose functions wait on
    /// something slow raises it.
    public var maxConcurrentCalls = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    /// A new connection must have sent its first request head within this (slow headers).
    public var headerTimeout: Duration = .seconds(10)
    /// Bytes of watch messages one WebSocket may have queued, not yet written, before the server
    /// closes it (1008): a client that does not read cannot make the host buffer without end.
    public var watchQueueBytes = 8 << 20
    /// A console's open write is rolled back after this long without a line.
    public var consoleWriteTimeout: Duration = .seconds(30)

    public init() {}

    /// `maxBodyBytes`: 1 KiB to 1 GiB.
    static let bodyBytes: ClosedRange<Int> = 1024...(1 << 30)
    /// `maxJSONDepth`: 2 to 512 levels.
    static let jsonDepth: ClosedRange<Int> = 2...512
    /// `watchQueueBytes`: 4 KiB to 1 GiB.
    static let queueBytes: ClosedRange<Int> = 4096...(1 << 30)
    /// `userQueue` and `maxConcurrentCalls`: 1 to 100,000.
    static let queue: ClosedRange<Int> = 1...100_000
}

/// Who app users are: `auth = { … }` in `host.lua` (docs/SERVE.md "Who is calling").
///
/// Without `keys` or `jwksFile`, tokens are HS256 with the development secret in `secretFile`
/// (`DATA/auth-secret` by default, created on first use). With them, only the listed public keys
/// verify tokens, each by its `kid`.
public struct HostAuthOptions: Sendable, Equatable {
    /// A public key trusted for app tokens.
    public struct Key: Sendable, Equatable {
        public var kid: String
        /// `EdDSA`, `ES256` or `RS256`: the key's, never the token header's.
        public var algorithm: String
        public var publicKeyPEM: String

        public init(kid: String, algorithm: String, publicKeyPEM: String) {
            self.kid = kid
            self.algorithm = algorithm
            self.publicKeyPEM = publicKeyPEM
        }
    }

    public static let algorithms = ["EdDSA", "ES256", "RS256"]

    /// `iss` must equal it when set.
    public var issuer: String?
    /// `aud` must contain it when set.
    public var audience: String?
    /// The claim naming the user.
    public var userClaim = "sub"
    public var keys: [Key] = []
    /// A JWKS document of public keys (JSON, `{"keys": [...]}`).
    public var jwksFile: URL?
    /// The HS256 development secret; nil: `DATA/auth-secret`.
    public var secretFile: URL?

    public init() {}

    /// Only public keys: no development secret (and `realm-host token` refuses).
    public var usesPublicKeys: Bool { !keys.isEmpty || jwksFile != nil }
}
