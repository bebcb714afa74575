import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One data folder, one serving host: `realm-host serve` holds an exclusive `flock` on
/// `DATA/.serve.lock` (with its pid in the file) for as long as it runs, and every other command
/// that would open the folder's tenants asks `holder(of:)` first and is refused while it is held.
/// The kernel drops the lock when the process ends, however it ends (SIGKILL included), so a
/// stale file never blocks anyone.
public final class ServeLock: Sendable {
    public static let fileName = ".serve.lock"
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// Takes the folder's lock for this process; throws naming the pid of the host that holds it.
    public static func acquire(dataFolder: URL) throws -> ServeLock {
        let path = dataFolder.appendingPathComponent(fileName).path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw HostError.io("Cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let pid = readPID(fd)
            close(fd)
            throw HostError.configuration(
                "The data folder \(dataFolder.path) is already served by realm-host serve"
                    + (pid.map { " (pid \($0))" } ?? "") + ".")
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return ServeLock(fd: fd)
    }

    /// The pid of the `serve` holding the folder, or nil when none does (0 when it cannot be read).
    public static func holder(of dataFolder: URL) -> Int32? {
        let path = dataFolder.appendingPathComponent(fileName).path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        return readPID(fd) ?? 0
    }

    /// Throws, naming `--connect`, when a `serve` holds the folder: its tenants and sync sessions
    /// are that process's, and a second set on the same files is never opened.
    public static func refuseIfServed(_ dataFolder: URL) throws {
        guard let pid = holder(of: dataFolder) else { return }
        throw HostError.configuration(
            "The data folder \(dataFolder.path) is served by realm-host serve"
                + (pid > 0 ? " (pid \(pid))" : "")
                + ": a second host must not open its users' realms beside it. Attach to it with "
                + "`realm-host repl --connect \(dataFolder.path)` (or `run --connect --data \(dataFolder.path) SCRIPT`), "
                + "or stop it first.")
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
