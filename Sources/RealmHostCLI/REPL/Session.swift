import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmLua

/// Where a REPL session's lines go.
struct ReplOutput: Sendable {
    let line: @Sendable (String) -> Void
    let errorLine: @Sendable (String) -> Void

    static let standard = ReplOutput(line: { StandardStreams.line($0) }, errorLine: { StandardStreams.errorLine($0) })
}

/// The REPL: reads chunks of Lua (and dot commands), runs them in the current user's tenant, and
/// prints what they return.
///
/// - A chunk is complete when it compiles; an unfinished one (`for i = 1, 3 do`) continues on the
///   next line, as in the `lua` program. `return <chunk>` is tried first, so an expression prints
///   its value.
/// - Each chunk runs in one protected call: the realm bindings make each write an implicit
///   transaction, or join the `realm:write` around it; any error rolls back the writes left open
///   (`RealmLuaRuntime.call`), prints, and the REPL goes on.
/// - Ctrl-C at the prompt drops the line; while a chunk runs it cancels it (`Interrupts`).
/// - On a pipe there is no prompt or colour; errors go to standard error as `stdin:LINE: message`
///   and the exit status is 1 if any chunk failed.
final class ReplSession {
    /// The path to the tenant: compiling, running, hooks, Ctrl-C, rollback, error kinds.
    let tenantSession: TenantSession
    var host: TenantHost { tenantSession.host }
    var user: String { tenantSession.user }
    var mode: OutputMode
    var timer = false
    /// Standard input is a terminal: prompts, banner, line editing.
    let interactive: Bool
    /// Colours for standard output and standard error.
    let style: Style
    let errorStyle: Style
    var input: LineSource!
    /// Where the session writes: the process's standard streams, or an attached console's socket.
    let output: ReplOutput
    /// The width tables may take (nil: unbounded).
    let maxWidth: Int?

    /// Lines of the unfinished chunk.
    private var pending: [String] = []
    var pendingIsEmpty: Bool { pending.isEmpty }
    /// The input line number of the chunk's first line (for `stdin:LINE:` messages).
    private var pendingStartLine = 1
    private var inputLine = 0
    /// Chunks (and commands) that failed.
    private(set) var failures = 0
    var quitRequested = false
    var exitStatus: Int32?
    /// The last error, for `.trace`.
    var lastError: Error?

    /// `output` nil: the process's standard streams, Ctrl-C through `Interrupts`, tables as wide as
    /// the terminal. An attached console gives its own output, width and interrupt scope.
    init(
        host: TenantHost, user: String, mode: OutputMode, interactive: Bool, colour: Bool, errorColour: Bool,
        output: ReplOutput? = nil, maxWidth: Int?? = nil,
        interruptScope: ((LuaCancelHandle, () throws -> [LuaValue]) throws -> [LuaValue])? = nil
    ) {
        self.mode = mode
        self.interactive = interactive
        style = Style(enabled: colour)
        let errorStyle = Style(enabled: errorColour)
        self.errorStyle = errorStyle
        let output = output ?? .standard
        self.output = output
        self.maxWidth = maxWidth ?? (Terminal.outputIsTerminal ? Terminal.width : nil)
        tenantSession = TenantSession(
            host: host, user: user,
            output: { output.line($0) },
            warning: { output.errorLine(errorStyle.yellow("warning: \($0)")) }
        )
        tenantSession.interruptScope =
            interruptScope ?? { handle, body in try Interrupts.shared.whileRunning(handle, body) }
    }

    // MARK: The loop

    /// Runs until `.quit`, Ctrl-D or the end of input. Returns the exit status.
    func run() -> Int32 {
        do {
            try withTenant { _ in }
        } catch {
            output.errorLine("realm-host: \(error)")
            return 1
        }
        if interactive { output.line(banner()) }
        while !quitRequested {
            let prompt = pending.isEmpty ? mainPrompt() : continuationPrompt()
            switch input.readLine(prompt: prompt) {
            case .endOfInput:
                if !pending.isEmpty {
                    fail("\(chunkLabel):\(pendingStartLine): unfinished statement at the end of the input")
                    pending = []
                }
                quitRequested = true
            case .interrupted:
                if !interactive {
                    quitRequested = true
                    exitStatus = 130
                }
                pending = []
            case .line(let line):
                handle(line: line)
            }
        }
        finish()
        if let exitStatus { return exitStatus }
        return failures > 0 && !interactive ? 1 : 0
    }

    private func finish() {
        if (try? tenantSession.rollbackOpenWrites()) == true {
            output.errorLine(
                errorStyle.yellow(
                    "The open write transaction was rolled back (it was never committed)."))
        }
    }

    /// One line of input: a dot command, or a line of Lua.
    func handle(line: String) {
        inputLine += 1 + line.filter { $0 == "\n" }.count
        if pending.isEmpty {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return }
            // The prompt is the REPL's run loop: before a statement, other processes' commits
            // become visible and observers fire (their output comes before the statement's).
            do { try tenantSession.refresh() } catch { report(error) }
            if DotCommands.isCommand(trimmed) {
                input.addHistory(trimmed)
                DotCommands.run(trimmed, in: self)
                return
            }
            pendingStartLine = inputLine - line.filter { $0 == "\n" }.count
        }
        pending.append(line)
        let code = pending.joined(separator: "\n")
        do {
            // On a pipe, line numbers count from the start of the input.
            let firstLine = interactive ? 1 : pendingStartLine
            switch try tenantSession.compile(code, chunkName: chunkLabel, firstLine: firstLine) {
            case .incomplete:
                return
            case .ready(let chunk):
                pending = []
                input.addHistory(code)
                run { try tenantSession.run(chunk, present: $0) }
            }
        } catch {
            pending = []
            input.addHistory(code)
            report(error)
        }
    }

    var chunkLabel: String { interactive ? "repl" : "stdin" }

    /// Prints what a run returns (`present`, called while the tenant is held).
    typealias Present = ([LuaValue], LuaValueReader) throws -> Void

    /// Runs a chunk or command through the tenant session with the timer on; prints its values
    /// or its error.
    func run(_ body: (Present) throws -> Void) {
        let start = DispatchTime.now()
        var timed = false
        do {
            try body { values, reader in
                reportTime(since: start)
                timed = true
                if let text = printer(reader).render(values) { output.line(text) }
            }
        } catch {
            if !timed { reportTime(since: start) }
            report(error)
            guard let failure = error as? ChunkError else { return }
            if failure.rolledBackEarlierWrite {
                output.errorLine(errorStyle.yellow("The open write transaction was rolled back."))
            }
            if failure.kind == .interrupted, !interactive {
                quitRequested = true
                exitStatus = 130
            }
        }
    }

    private func reportTime(since start: DispatchTime) {
        guard timer else { return }
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
        output.line(style.dim(String(format: "Time: %.3f ms", ms)))
    }

    func printer(_ reader: LuaValueReader) -> ValuePrinter {
        ValuePrinter(
            reader: reader, mode: mode, style: style, maxWidth: maxWidth)
    }

    // MARK: Errors

    /// Prints an error and counts it.
    func report(_ error: Error) {
        let error = (error as? ChunkError)?.underlying ?? error
        lastError = error
        var message: String
        if let lua = error as? LuaError {
            message = lua.message
            switch lua.kind {
            case .interrupted:
                message += " (Ctrl-C)"
                if interactive { message = "\n" + message }  // after the terminal's "^C"
            case .timeLimit, .instructionLimit, .memory: message += " [\(lua.kind.rawValue)]"
            default: break
            }
        } else {
            message = "\(error)"
        }
        fail(message)
    }

    func fail(_ message: String) {
        failures += 1
        output.errorLine(errorStyle.red(message))
    }

    // MARK: Tenants

    /// Runs `body` with the current user's tenant, its `print` going to standard output.
    func withTenant<T: Sendable>(_ body: (Tenant) throws -> T) throws -> T {
        try tenantSession.withTenant(body)
    }

    /// Makes `name` the current user (its realm is created if new).
    func switchUser(to name: String) throws -> Bool {
        try UserName.validate(name)
        let isNew = !FileManager.default.fileExists(atPath: try host.fileURL(for: name).path)
        try tenantSession.switchUser(to: name)
        return isNew
    }

    // MARK: Prompts

    func mainPrompt() -> String {
        guard interactive else { return "" }
        // The session's cached state: the prompt costs no tenant lookup. `alice(offline)*> `: the
        // user's synced realms cannot reach the server (connection down or sessions paused).
        let offline = tenantSession.isOffline ? "(offline)" : ""
        return promptText(user + offline + (tenantSession.hasOpenWrite ? "*" : "") + "> ")
    }

    func continuationPrompt() -> String {
        guard interactive else { return "" }
        let width = user.count + (tenantSession.isOffline ? "(offline)".count : 0) + 2
        return promptText(String(repeating: " ", count: max(0, width - 4)) + "...> ")
    }

    /// Colour codes in a prompt are wrapped in \1…\2 so that libedit does not count them.
    private func promptText(_ text: String) -> String {
        guard style.enabled else { return text }
        // libedit drops an ignored sequence at the very end of a prompt: end with the space.
        var body = text
        let tail = body.last == " " ? String(body.removeLast()) : ""
        return "\u{01}\u{1B}[1;36m\u{02}" + body + "\u{01}\u{1B}[0m\u{02}" + tail
    }

    /// Where the user's synced realm syncs and how to open it; or why it cannot sign in.
    private func syncBannerLine(_ transport: any SyncSessionTransport) -> String {
        guard transport.canSign else {
            return errorStyle.yellow(
                "Sync: \(transport.url), but no secret to sign tokens with (REALMHOST_SYNC_SECRET or "
                    + "--sync-secret-file): synced realms stay offline.")
        }
        return "Sync: \(transport.url) · r = Realm.asyncOpen(user:flexibleSyncConfiguration{}) opens "
            + "the synced realm; .sync shows it"
    }

    func banner() -> String {
        let path = (try? host.fileURL(for: user)).map(displayPath) ?? "?"
        var lines = [
            "RealmHost \(realmHostVersion) · Lua 5.4 · user '\(user)' (\(path))"
        ]
        let plugins = host.registry.plugins
        if plugins.isEmpty {
            let folders = host.options.pluginFolders.map(displayPath).joined(separator: ", ")
            lines.append(
                errorStyle.yellow(
                    "No plugins in \(folders.isEmpty ? "(none)" : folders): "
                        + "the realm has no classes (use --plugins DIR)."
                ))
        } else {
            let names = plugins.map { "\($0.name) \($0.version)" }.joined(separator: ", ")
            let commands = plugins.flatMap(\.commandNames).map { "." + $0 }.joined(separator: " ")
            lines.append(
                "Plugins: \(names)" + (commands.isEmpty ? "" : " (\(commands))")
                    + ", schema version \(host.registry.schemaVersion)")
        }
        if host.options.openAsStored {
            let version = (try? withTenant { $0.realm.schemaVersion }).map { " at schema version \($0)" } ?? ""
            lines.append(
                errorStyle.yellow(
                    "--no-migrate: the realm as stored\(version), read-only (the plugins' schema and "
                        + "migrations are not applied)."))
        }
        if let transport = host.syncTransport { lines.append(syncBannerLine(transport)) }
        lines.append(style.dim("`realm` is your realm. Type Lua; .help for help, Tab to complete, Ctrl-D to quit."))
        return lines.joined(separator: "\n")
    }
}
