import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `realm-host sync-server …` (or another long-lived command, `serve`) running in the background: its
/// first line of standard output read as it comes, its standard error collected, stopped by a
/// signal. Killed if a test leaves it running.
/// Unchecked Sendable: its properties are set once in `init`, and the collectors lock their data.
final class SyncServerProcess: @unchecked Sendable {
    let process = Process()
    private let output = StreamCollector()
    private let errors = StreamCollector()

    convenience init(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], command: String = "sync-server"
    ) throws {
        try self.init(executable: CLI.binary, [command] + arguments, in: directory, environment: environment)
    }

    /// A shell command line (`/bin/sh -c 'exec COMMAND'`, so a signal reaches the command itself).
    convenience init(shell command: String, in directory: URL, environment: [String: String]) throws {
        try self.init(
            executable: URL(fileURLWithPath: "/bin/sh"), ["-c", "exec " + command], in: directory,
            environment: environment)
    }

    init(executable: URL, _ arguments: [String], in directory: URL, environment: [String: String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env["REALM_HOST_DATA"] = nil
        env["REALMHOST_SYNC_SECRET"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        output.collect(outPipe.fileHandleForReading)
        errors.collect(errPipe.fileHandleForReading)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The first line of standard output, once it is complete; nil when none came within `timeout`
    /// (or the process ended first).
    func firstLine(timeout: TimeInterval = 60) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = output.text
            if let newline = text.firstIndex(of: "\n") { return String(text[..<newline]) }
            if !process.isRunning && output.isClosed { return nil }
            usleep(10_000)
        }
        return nil
    }

    /// The first `count` lines of standard output, once they are complete; fewer when they did not
    /// come within `timeout` (or the process ended first).
    func firstLines(_ count: Int, timeout: TimeInterval = 60) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let lines = output.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            let done = lines.count >= count || Date() >= deadline || (!process.isRunning && output.isClosed)
            if done { return Array(lines.prefix(count)) }
            usleep(10_000)
        }
    }

    /// The port of the URL `sync server listening on ws://127.0.0.1:PORT/sync` on the first line.
    func listeningPort(timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line) -> Int? {
        guard let first = firstLine(timeout: timeout) else {
            XCTFail("no first line from the sync server; its standard error:\n\(standardError)", file: file, line: line)
            return nil
        }
        let prefix = "sync server listening on ws://127.0.0.1:"
        guard first.hasPrefix(prefix), first.hasSuffix("/sync"),
            let port = Int(first.dropFirst(prefix.count).dropLast("/sync".count)), port > 0
        else {
            XCTFail("unexpected first line: \(first)", file: file, line: line)
            return nil
        }
        return port
    }

    /// Sends `signal` and waits for the process to end: its exit status (128 + n when a signal ended
    /// it), nil when it did not end within `timeout`.
    func stop(with signal: Int32 = SIGTERM, timeout: TimeInterval = 30) -> Int32? {
        kill(process.processIdentifier, signal)
        return waitForExit(timeout: timeout)
    }

    /// Waits for the process to end; its exit status, nil after `timeout`.
    func waitForExit(timeout: TimeInterval = 60) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else { return nil }
        process.waitUntilExit()
        let status = process.terminationStatus
        return process.terminationReason == .uncaughtSignal ? 128 + status : status
    }

    var standardOutput: String { output.text }
    var standardError: String { errors.text }
}

/// Everything read from a pipe so far, read on a background queue until the end of the stream.
final class StreamCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var closed = false

    func collect(_ handle: FileHandle) {
        DispatchQueue.global().async {
            while true {
                let chunk = handle.availableData
                self.lock.lock()
                if chunk.isEmpty { self.closed = true } else { self.data.append(chunk) }
                self.lock.unlock()
                if chunk.isEmpty { return }
            }
        }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }
}
