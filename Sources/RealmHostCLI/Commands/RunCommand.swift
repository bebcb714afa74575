import ArgumentParser
import Foundation
import LuaSandbox
import RealmHost

/// `realm-host run SCRIPT.lua [ARGS…]`: runs a script against a user's realm.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a Lua script against a user's realm.",
        discussion: """
            The script runs with `realm` bound to the user's realm and `arg` set to its arguments, as \
            the lua program does. What it prints goes to standard output. An error prints \
            `file:line: message` on standard error and exits with status 1; the script's open write \
            transaction, if any, is rolled back. Ctrl-C stops the script (status 130), rolling back too.
            Options go before the script: what follows it is passed to the script.
            """
    )

    @OptionGroup var host: HostFlags
    @OptionGroup var sync: SyncFlags

    @Option(name: .long, help: ArgumentHelp("The user whose realm the script works on.", valueName: "name"))
    var user = "default"

    @Flag(name: .long, help: "On error, print the Lua traceback too.")
    var traceback = false

    @Flag(name: .long, help: "Run the script in the realm-host serve running on the data folder (its console socket).")
    var connect = false

    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("The script, then its arguments (arg[1], arg[2], …).", valueName: "script.lua args"))
    var scriptAndArguments: [String] = []

    func validate() throws {
        // The arguments capture everything after `run`, --help included.
        if let first = scriptAndArguments.first, ["-h", "--help", "-help"].contains(first) {
            throw CleanExit.helpRequest(self)
        }
        var rest = scriptAndArguments
        if rest.first == "--" { rest.removeFirst() }
        guard !rest.isEmpty else {
            throw ValidationError("Missing the script to run (realm-host run SCRIPT.lua [ARGS…]).")
        }
    }

    func run() throws {
        var rest = scriptAndArguments
        if rest.first == "--" { rest.removeFirst() }
        let script = rest.removeFirst()
        let arguments = rest
        try runReportingErrors {
            let user = try checkedUser(self.user)
            if connect {
                return try ConsoleClient.run(
                    dataFolder: HostOptions.defaultDataFolder(host.data), user: user, script: script,
                    arguments: arguments)
            }
            guard FileManager.default.isReadableFile(atPath: script) else {
                throw CLIError.failed("\(script): cannot open the script (no such readable file)")
            }
            let session = TenantSession(
                host: try self.host.makeHost(sync: sync), user: user,
                output: { StandardStreams.line($0) },
                warning: { StandardStreams.errorLine("warning: \($0)") }
            )
            Interrupts.shared.install()
            session.interruptScope = { handle, body in try Interrupts.shared.whileRunning(handle, body) }
            return try runScript(script, arguments: arguments, in: session)
        }
    }

    /// Runs the script; returns the exit status (1 for an error, 130 for Ctrl-C).
    private func runScript(_ script: String, arguments: [String], in session: TenantSession) throws -> Int32 {
        do {
            try session.runFile(script, arguments: arguments)
        } catch let failure as ChunkError {
            // After the terminal's "^C", on a line of its own.
            if failure.kind == .interrupted && Terminal.errorIsTerminal { StandardStreams.err("\n") }
            StandardStreams.errorLine(ScriptErrors.describe(failure.underlying, script: script, traceback: traceback))
            return failure.kind == .interrupted ? 130 : 1
        }
        if try session.rollbackOpenWrites() {
            StandardStreams.errorLine(
                "\(script): warning: the script ended inside a write transaction; "
                    + "it was rolled back (call commitWrite)")
        }
        return 0
    }
}

/// Error messages of scripts: `file:line: message` (the position Lua gives), else `file: message`.
enum ScriptErrors {
    static func describe(_ error: Error, script: String, traceback: Bool = false) -> String {
        var message: String
        if let lua = error as? LuaError {
            message = lua.message
            if lua.kind == .interrupted && !message.contains("interrupted") { message += " (interrupted)" }
            if traceback, let t = lua.traceback, !t.isEmpty { message += "\n" + t }
        } else {
            message = "\(error)"
        }
        if !message.hasPrefix(script + ":") { message = "\(script): " + message }
        return message
    }
}
