import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A secret kept in a file only its owner may read (mode 0600): the sync secret, the app tokens'
/// development secret (`DATA/auth-secret`), the admin token (`DATA/admin-token`).
///
/// `create` makes one with random text, opened with 0600 and O_EXCL so that it is never readable
/// by others, not even for a moment, and two processes starting together do not overwrite each
/// other's; `read` refuses a file its group or others may read or write. Errors name the file as
/// `what` (for instance "the sync secret file") and say what to do.
public enum OwnerOnlyFile {
    public static let mode: mode_t = 0o600

    /// Why a secret file cannot be used; the message names it.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let message: String
        public var description: String { message }
    }

    /// The text of `path` trimmed of white space, created with `randomBytes` random bytes (as hex)
    /// when missing.
    public static func readOrCreate(_ path: String, what: String, randomBytes: Int = 32) throws -> String {
        if let created = try create(path, what: what, randomBytes: randomBytes) { return created }
        return try read(path, what: what)
    }

    /// Creates `path` with random hex text; nil when the file exists already.
    public static func create(_ path: String, what: String, randomBytes: Int = 32) throws -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        if fd < 0 && errno == EEXIST { return nil }
        guard fd >= 0 else { throw Failure(message: "cannot create \(what) \(path): \(errorText())") }
        var generator = SystemRandomNumberGenerator()
        let hex = (0..<randomBytes).map { _ in hexByte(generator.next()) }.joined()
        let written = writeAll(fd, hex + "\n") && fsync(fd) == 0
        let failure = errorText()
        close(fd)
        guard written else {
            unlink(path)
            throw Failure(message: "cannot write \(what) \(path): \(failure)")
        }
        return hex
    }

    /// The text of `path` trimmed of white space, once its mode is checked.
    public static func read(_ path: String, what: String) throws -> String {
        try checkMode(of: path, what: what)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(message: "\(what) \(path) cannot be read")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Throws unless `path` is a regular file whose permissions are within 0600.
    public static func checkMode(of path: String, what: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { throw Failure(message: "\(what) \(path) cannot be read: \(errorText())") }
        guard status.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG) else {
            throw Failure(message: "\(what) \(path) is not a regular file")
        }
        let permissions = status.st_mode & 0o7777
        guard permissions & ~mode == 0 else {
            throw Failure(
                message: "\(what) \(path) has mode \(octal(permissions)): it must be readable by its owner "
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
