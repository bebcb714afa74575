import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the repository's `.ci/postgres` (start, stop, url: a throwaway PostgreSQL on 127.0.0.1) for
/// the tests and realm-bench, which start a server when none is given. Spawned and waited for with
/// posix_spawn and waitpid: Foundation's Process waited forever once the script had exited. Output
/// goes to files, not pipes: the server the script starts would keep a pipe open.
package enum PostgresScript {
    /// Runs `script COMMAND` with `REALMHOST_POSTGRES_DIR=folder`, waiting at most `timeout` seconds
    /// (the script bounds its own waits too, pg_ctl -t 30); its standard output, trimmed. Throws
    /// the reason, in words, when it cannot run, times out or fails (then with its standard error).
    package static func run(_ script: URL, _ command: String, folder: String, timeout: TimeInterval = 120)
        throws(PostgresScriptFailure) -> String
    {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("postgres-\(UUID().uuidString)")
        let (outPath, errPath) = (base.path + ".out", base.path + ".err")
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var environment = ProcessInfo.processInfo.environment
        environment["REALMHOST_POSTGRES_DIR"] = folder
        let arguments = ["/bin/bash", script.path, command]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw PostgresScriptFailure(reason: "cannot run \(script.path): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard Date() < deadline else {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw PostgresScriptFailure(reason: ".ci/postgres \(command) did not finish in \(Int(timeout)) s")
            }
            usleep(20_000)
        }
        let read = { (path: String) in
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // Exited normally with status 0 (the wait status's low 7 bits are the signal, the next 8 the code).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw PostgresScriptFailure(reason: ".ci/postgres \(command) failed: \(read(errPath))")
        }
        return read(outPath)
    }
}

/// Why `.ci/postgres` did not do what was asked.
package struct PostgresScriptFailure: Error {
    package let reason: String
}
