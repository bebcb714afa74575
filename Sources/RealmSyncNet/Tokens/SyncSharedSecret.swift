import Foundation

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
    public static let fileMode: mode_t = 0o600

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
        try checkMode(of: path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SyncSecretError("the sync secret file \(path) cannot be read")
        }
        return try SyncSharedSecret(text: String(decoding: data, as: UTF8.self), origin: .file(path))
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

    /// Creates `path` with a random secret, readable by its owner only; nil when it exists already.
    /// The file is opened with mode 0600 and O_EXCL, so it is never readable by others, not even for
    /// a moment, and two servers starting together do not overwrite each other's.
    public static func create(file path: String) throws -> SyncSharedSecret? {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if fd < 0 && errno == EEXIST { return nil }
        guard fd >= 0 else { throw SyncSecretError("cannot create the sync secret file \(path): \(errorText())") }
        var generator = SystemRandomNumberGenerator()
        let hex = (0..<generatedBytes).map { _ in hexByte(generator.next()) }.joined()
        let written = writeAll(fd, hex + "\n") && fsync(fd) == 0
        let failure = errorText()
        close(fd)
        guard written else {
            unlink(path)
            throw SyncSecretError("cannot write the sync secret file \(path): \(failure)")
        }
        return try SyncSharedSecret(text: hex, origin: .created(path))
    }

    // MARK: Plumbing

    private static func describe(_ origin: Origin) -> String {
        switch origin {
        case .environment: "the sync secret in $\(environmentVariable)"
        case .file(let path): "the sync secret in \(path)"
        case .created(let path): "the sync secret created in \(path)"
        }
    }

    /// Throws unless `path` is a regular file whose permissions are within 0600.
    private static func checkMode(of path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw SyncSecretError("the sync secret file \(path) cannot be read: \(errorText())")
        }
        guard status.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) else {
            throw SyncSecretError("the sync secret file \(path) is not a regular file")
        }
        let permissions = status.st_mode & 0o7777
        guard permissions & ~fileMode == 0 else {
            throw SyncSecretError(
                "the sync secret file \(path) has mode \(octal(permissions)): it must be readable by its owner "
                    + "only (chmod 600 \(path))")
        }
    }

    private static func hexByte(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }

    /// Writes all of `text` to `fd`, retrying after interruptions; whether it all went.
    private static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }
}
