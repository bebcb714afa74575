import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built `realm-host` binary: as a plain process with pipes, or on a pseudo-terminal.
enum CLI {
    /// The repository (for plugins/ and examples/).
    static let repository: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `realm-host` in the build products folder: the folder of the test bundle on Linux
    /// (`.build/debug/RealmHostPackageTests.xctest`), its parent on macOS.
    static let binary: URL = {
        var candidates = [URL]()
        for bundle in Bundle.allBundles + [Bundle.main] {
            let url = bundle.bundleURL
            candidates.append(url.appendingPathComponent("realm-host"))
            candidates.append(url.deletingLastPathComponent().appendingPathComponent("realm-host"))
            candidates.append(
                url.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("realm-host"))
        }
        candidates.append(repository.appendingPathComponent(".build/debug/realm-host"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates.last!
    }()

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs `realm-host arguments…` in `directory`, with `input` on standard input.
    @discardableResult
    static func run(
        _ arguments: [String], in directory: URL, input: String? = nil, environment: [String: String] = [:],
        timeout: TimeInterval = 60
    ) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env["REALM_HOST_DATA"] = nil
        env["NO_COLOR"] = "1"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let outPipe = Pipe()
        let errPipe = Pipe()
        let inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        try process.run()
        let group = DispatchGroup()
        let out = Collected()
        let err = Collected()
        for (pipe, sink) in [(outPipe, out), (errPipe, err)] {
            group.enter()
            DispatchQueue.global().async {
                sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
                group.leave()
            }
        }
        if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try? inPipe.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning {
            process.terminate()
            XCTFail("realm-host \(arguments.joined(separator: " ")) did not finish in \(timeout) s")
        }
        process.waitUntilExit()
        group.wait()
        return Result(status: process.terminationStatus, stdout: out.text, stderr: err.text)
    }

    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func set(_ d: Data) {
            lock.lock()
            data = d
            lock.unlock()
        }
        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: data, as: UTF8.self)
        }
    }
}

/// A scratch folder with `plugins` (the repository's) and `data`, removed afterwards.
final class Workspace {
    let root: URL
    var data: URL { root.appendingPathComponent("data") }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("realm-host-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("plugins"),
            withDestinationURL: CLI.repository.appendingPathComponent("plugins"))
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("examples"),
            withDestinationURL: CLI.repository.appendingPathComponent("examples"))
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    @discardableResult
    func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> CLI.Result {
        try CLI.run(arguments, in: root, input: input, environment: environment)
    }

    /// Writes a file in the workspace and returns its path relative to the workspace.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let url = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return name
    }

    /// A REPL (or any command) on a pseudo-terminal.
    func terminal(_ arguments: [String] = ["repl"], environment: [String: String] = [:]) throws -> PseudoTerminal {
        try PseudoTerminal(arguments: arguments, directory: root, environment: environment)
    }
}

/// `realm-host` on a pseudo-terminal that is its controlling terminal (so Ctrl-C is a SIGINT), read
/// and typed into like a person would.
final class PseudoTerminal {
    let pid: pid_t
    private let master: Int32
    /// Everything the program wrote, escape sequences removed.
    private(set) var transcript = ""
    private var consumed: String.Index
    let started = Date()

    /// `program` (realm-host when nil) with `arguments`; `environment` added to the test's.
    init(
        arguments: [String], directory: URL, columns: UInt16 = 120, program: String? = nil,
        environment: [String: String] = [:]
    ) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: 40, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        var name = [CChar](repeating: 0, count: 128)
        guard openpty(&master, &slave, &name, nil, &size) == 0 else { throw POSIXError(.EIO) }
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        close(slave)
        self.master = master
        let slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)

        // posix_spawn, not fork: the test process has threads. The child starts a session and
        // opens the terminal, which makes it its controlling terminal.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        sigaddset(&defaultSignals, SIGINT)
        sigaddset(&defaultSignals, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        let POSIX_SPAWN_SETSID: Int16 = 0x80
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) | POSIX_SPAWN_SETSID)

        // The working directory: the child is started through /bin/sh -c 'cd DIR && exec …'.
        let command =
            "cd '\(directory.path)' && exec '\(program ?? CLI.binary.path)' "
            + arguments.map { "'\($0)'" }.joined(separator: " ")
        let argv = ["/bin/sh", "-c", command]
        var env = ProcessInfo.processInfo.environment
        env["REALM_HOST_DATA"] = nil
        env["TERM"] = "xterm"
        env["NO_COLOR"] = "1"
        env["HOME"] = directory.path
        for (key, value) in environment { env[key] = value }
        let envp = env.map { "\($0.key)=\($0.value)" }
        var cArgv: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnvp: [UnsafeMutablePointer<CChar>?] = envp.map { strdup($0) } + [nil]
        defer {
            for p in cArgv { free(p) }
            for p in cEnvp { free(p) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, "/bin/sh", &actions, &attributes, &cArgv, &cEnvp)
        guard rc == 0 else {
            close(master)
            throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO)
        }
        pid = child
        consumed = transcript.startIndex
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(master)
    }

    /// Types text (`\r` is Enter, `\t` Tab, `\u{03}` Ctrl-C, `\u{04}` Ctrl-D).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(master, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { break }
            offset += n
        }
    }

    /// Reads what is available within `timeout`: the number of bytes read, 0 when nothing came,
    /// -1 at the end of output.
    @discardableResult
    private func read(timeout: TimeInterval) -> Int {
        var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&fds, 1, Int32(max(1, timeout * 1000))) > 0 else { return 0 }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = Glibc.read(master, &buffer, buffer.count)
        guard n > 0 else { return -1 }
        pending += buffer[0..<n]
        // Keep an incomplete UTF-8 sequence for the next read.
        var cut = pending.count
        var i = pending.count - 1
        while i >= 0, pending.count - i <= 4, pending[i] & 0xC0 == 0x80 { i -= 1 }
        if i >= 0, pending[i] >= 0xC0 {
            let need = pending[i] >= 0xF0 ? 4 : pending[i] >= 0xE0 ? 3 : 2
            if pending.count - i < need { cut = i }
        }
        transcript += PseudoTerminal.stripEscapes(String(decoding: pending[0..<cut], as: UTF8.self))
        pending.removeFirst(cut)
        return n
    }

    private var pending = [UInt8]()

    private func pump(timeout: TimeInterval) -> Bool { read(timeout: timeout) >= 0 }

    /// Waits until `text` appears after what earlier expectations consumed; returns the output
    /// up to and including it.
    @discardableResult
    func expect(_ text: String, timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line)
        -> String
    {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let range = transcript[consumed...].range(of: text) {
                let out = String(transcript[consumed..<range.upperBound])
                consumed = range.upperBound
                // libedit shows the prompt a moment before it puts the terminal in raw mode;
                // a person never types within that moment, a test might.
                if text.hasSuffix("> ") { usleep(30_000) }
                return out
            }
            if Date() >= deadline || !pump(timeout: min(0.2, deadline.timeIntervalSinceNow)) {
                if Date() < deadline, let range = transcript[consumed...].range(of: text) {
                    let out = String(transcript[consumed..<range.upperBound])
                    consumed = range.upperBound
                    return out
                }
                XCTFail(
                    "expected \(String(reflecting: text)) in the output; got after the last match:\n"
                        + "\(transcript[consumed...])\n--- whole transcript:\n\(transcript.suffix(3000))",
                    file: file, line: line)
                return ""
            }
        }
    }

    /// Types a line and waits for the next prompt `prompt`; returns what was printed in between.
    /// A line with Tab or escape keys is typed first and its redrawing (which repeats the
    /// prompt) skipped before Enter is pressed.
    @discardableResult
    func enter(_ line: String, prompt: String = "default> ", file: StaticString = #filePath, lineNumber: UInt = #line)
        -> String
    {
        if line.contains("\t") || line.contains("\u{1B}") {
            type(line)
            settle()
            type("\r")
        } else {
            type(line + "\r")
        }
        return expect(prompt, file: file, line: lineNumber)
    }

    /// Ctrl-D on an empty line (once libedit is surely reading: typed in the moment before, the
    /// terminal would take it as its own end-of-file character).
    func ctrlD() {
        settle()
        type("\u{04}")
    }

    /// Reads until the program has been quiet for a moment, and skips all of it.
    func settle(quiet: TimeInterval = 0.15, limit: TimeInterval = 3) {
        let end = Date().addingTimeInterval(limit)
        while Date() < end, read(timeout: quiet) > 0 {}
        consumed = transcript.endIndex
    }

    private(set) var exitStatus: Int32?

    /// Waits for the program to end and returns its exit status.
    func waitForExit(timeout: TimeInterval = 20) -> Int32? {
        if let exitStatus { return exitStatus }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let open = pump(timeout: 0.05)
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                while read(timeout: 0.05) > 0 {}
                exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                return exitStatus
            }
            if !open { usleep(10_000) }
        }
        print("realm-host did not exit; the end of its output:\n\(transcript.suffix(1500))")
        return nil
    }

    /// Removes ANSI escape sequences and carriage returns.
    static func stripEscapes(_ text: String) -> String {
        var out = ""
        var it = text.unicodeScalars.makeIterator()
        while let c = it.next() {
            if c == "\u{1B}" {
                guard let next = it.next() else { break }
                if next == "[" {
                    while let d = it.next(), !(d.value >= 0x40 && d.value <= 0x7E) {}
                }
                continue
            }
            if c == "\r" || c == "\u{07}" || c == "\u{01}" || c == "\u{02}" { continue }
            out.unicodeScalars.append(c)
        }
        return out
    }
}

/// A `/bin/sh` command line run to its end, its standard output and error together, with posix_spawn
/// and waitpid: Foundation's Process can miss the end of a shell whose command started a daemon
/// as another user (`bash .ci/postgres start` as root runs `runuser … pg_ctl start`) and wait forever.
enum ShellCommand {
    static func run(_ command: String, in directory: URL, environment: [String: String]) throws -> String {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw POSIXError(.EIO) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        let argv = ["/bin/sh", "-c", "cd '\(directory.path)' && " + command]
        var cArgv: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnvp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in cArgv { free(p) }
            for p in cEnvp { free(p) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, "/bin/sh", &actions, nil, &cArgv, &cEnvp)
        close(fds[1])
        defer { close(fds[0]) }
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n > 0 {
                output += buffer[0..<n]
            } else if n == 0 || errno != EINTR {
                break
            }
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1 && errno == EINTR {}
        return String(decoding: output, as: UTF8.self)
    }
}
