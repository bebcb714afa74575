import Foundation
import RealmDatabase

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The secret the sync server and its hosts share: hosts sign their users' tokens with it
/// (`signToken(user:)`), the server verifies them. It is text (the file's or the variable's, without
/// surrounding white space) used as the key's bytes, so the same value works wherever it is read.
///
/// Where it comes from (docs/SYNC.md "On the network"): `REALMHOST_SYNC_SECRET` in the environment,
/// else a file readable by its owner only: the server's `DIR/sync-secret` (created on the first start
/// when neither exists), a host's `--sync-secret-file FILE`.
///
/// Its description names where it came from, never the secret.
public struct SyncSharedSecret: Sendable, CustomStringConvertible {
    public static let environmentVariable = "REALMHOST_SYNC_SECRET"
    /// The file in the server's data folder.
    public static let fileName = "sync-secret"
    /// Random bytes in a created secret (written as twice as many hex digits).
    public static let generatedBytes = 32
    /// Read and write for the owner only: a secret file allowing more is refused.
    public static let fileMode: mode_t = OwnerOnlyFile.mode

    public enum Origin: Hashable, Sendable {
        case environment
        /// Read from this file.
        case file(String)
        /// Created in this file just now.
        case created(String)
    }

    public let origin: Origin
    /// The key: the text's UTF-8 bytes (what `SyncNetServer` and `SyncNetClient` take as `secret`).
    public let bytes: [UInt8]
    private let signer: SyncToken

    /// `text` trimmed of white space; throws when what is left is shorter than
    /// `SyncToken.minimumSecretBytes`.
    public init(text: String, origin: Origin) throws {
        bytes = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        do {
            signer = try SyncToken(secret: bytes)
        } catch let error as SyncTokenError {
            throw SyncSecretError("\(Self.describe(origin)): \(error.message)")
        }
        self.origin = origin
    }

    public var description: String { Self.describe(origin) }

    /// The signer and verifier of user tokens with this secret.
    public var tokens: SyncToken { signer }

    /// A token for `user`, as a host sends it when it binds the user's session.
    public func signToken(user: String, lifetime: Duration = SyncToken.defaultLifetime) async throws -> String {
        try await signer.sign(user: user, lifetime: lifetime)
    }

    // MARK: Finding it

    /// The secret in `REALMHOST_SYNC_SECRET`; nil when the variable is not set.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> SyncSharedSecret?
    {
        guard let text = environment[environmentVariable] else { return nil }
        return try SyncSharedSecret(text: text, origin: .environment)
    }

    /// The secret in `path` (a host's `--sync-secret-file`). Refuses a file that its group or others
    /// may read or write, and a missing, unreadable or too short one, naming the file.
    public static func read(file path: String) throws -> SyncSharedSecret {
        let text = try secretFile { try OwnerOnlyFile.read(path, what: fileDescription) }
        return try SyncSharedSecret(text: text, origin: .file(path))
    }

    /// The server's secret: from the environment, else `dataFolder/sync-secret`, created (mode 0600,
    /// random) when missing.
    public static func forServer(
        dataFolder: URL, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> SyncSharedSecret {
        if let secret = try fromEnvironment(environment) { return secret }
        let path = dataFolder.appendingPathComponent(fileName).path
        return try create(file: path) ?? read(file: path)
    }

    /// Creates `path` with a random secret, readable by its owner only; nil when it exists already
    /// (`OwnerOnlyFile.create`: never readable by others, never overwriting another's).
    public static func create(file path: String) throws -> SyncSharedSecret? {
        let created = try secretFile {
            try OwnerOnlyFile.create(path, what: fileDescription, randomBytes: generatedBytes)
        }
        return try created.map { try SyncSharedSecret(text: $0, origin: .created(path)) }
    }

    private static let fileDescription = "the sync secret file"

    /// `OwnerOnlyFile`'s failures as this type's error.
    private static func secretFile<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as OwnerOnlyFile.Failure {
            throw SyncSecretError(failure.message)
        }
    }

    // MARK: Plumbing

    private static func describe(_ origin: Origin) -> String {
        switch origin {
        case .environment: "the sync secret in $\(environmentVariable)"
        case .file(let path): "the sync secret in \(path)"
        case .created(let path): "the sync secret created in \(path)"
        }
    }
}
