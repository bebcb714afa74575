import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmLua

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
    let host: TenantHost
    private(set) var user: String
    var mode: OutputMode
    var timer = false
    /// Standard input is a terminal: prompts, banner, line editing.
    let interactive: Bool
    /// Colours for standard output and standard error.
    let style: Style
    let errorStyle: Style
    var input: LineSource!

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

    init(host: TenantHost, user: String, mode: OutputMode, interactive: Bool, colour: Bool, errorColour: Bool) {
        self.host = host
        self.user = user
        self.mode = mode
        self.interactive = interactive
        style = Style(enabled: colour)
        errorStyle = Style(enabled: errorColour)
    }

    // MARK: The loop

    /// Runs until `.quit`, Ctrl-D or the end of input. Returns the exit status.
    func run() -> Int32 {
        do {
            try withTenant { _ in }
        } catch {
            StandardStreams.errorLine("realm-host: \(error)")
            return 1
        }
        if interactive { StandardStreams.line(banner()) }
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
        try? withTenant { tenant in
            if tenant.runtime.hasOpenWrite {
                tenant.runtime.rollbackOpenWrites()
                StandardStreams.errorLine(errorStyle.yellow("The open write transaction was rolled back (it was never committed)."))
            }
        }
    }

    /// One line of input: a dot command, or a line of Lua.
    func handle(line: String) {
        inputLine += 1 + line.filter { $0 == "\n" }.count
        if pending.isEmpty {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return }
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
            try withTenant { tenant in
                switch try compile(code, in: tenant) {
                case .incomplete:
                    return
                case .ready(let function):
                    pending = []
                    input.addHistory(code)
                    execute(function, in: tenant)
                }
            }
        } catch {
            pending = []
            input.addHistory(code)
            report(error)
        }
    }

    enum Compiled {
        case ready(LuaFunctionRef)
        case incomplete
    }

    /// `return <code>` when that compiles (an expression), else `<code>` as statements.
    func compile(_ code: String, in tenant: Tenant) throws -> Compiled {
        let state = tenant.runtime.state
        // On a pipe, line numbers count from the start of the input.
        let lead = interactive ? "" : String(repeating: "\n", count: max(0, pendingStartLine - 1))
        let name = "=" + chunkLabel
        if let f = try? state.load(lead + "return " + code, chunkName: name) { return .ready(f) }
        do {
            return .ready(try state.load(lead + code, chunkName: name))
        } catch let error as LuaError where error.isIncompleteInput {
            return .incomplete
        }
    }

    var chunkLabel: String { interactive ? "repl" : "stdin" }

    /// Runs a compiled chunk and prints what it returns.
    func execute(_ function: LuaFunctionRef, in tenant: Tenant) {
        run(in: tenant) { try tenant.runtime.call(function) }
    }

    /// Runs Lua work in a tenant with Ctrl-C armed and the timer on; prints its values or its error.
    func run(in tenant: Tenant, _ body: () throws -> [LuaValue]) {
        let runtime = tenant.runtime
        let wasInWrite = runtime.hasOpenWrite
        let start = DispatchTime.now()
        do {
            let values = try Interrupts.shared.whileRunning(runtime.state.cancelHandle, body)
            reportTime(since: start)
            if let text = printer(for: runtime).render(values) { StandardStreams.line(text) }
        } catch {
            reportTime(since: start)
            report(error)
            if wasInWrite && !runtime.hasOpenWrite {
                StandardStreams.errorLine(errorStyle.yellow("The open write transaction was rolled back."))
            }
            if let lua = error as? LuaError, lua.kind == .interrupted, !interactive {
                quitRequested = true
                exitStatus = 130
            }
        }
    }

    private func reportTime(since start: DispatchTime) {
        guard timer else { return }
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
        StandardStreams.line(style.dim(String(format: "Time: %.3f ms", ms)))
    }

    func printer(for runtime: RealmLuaRuntime) -> ValuePrinter {
        ValuePrinter(runtime: runtime, mode: mode, style: style, maxWidth: Terminal.outputIsTerminal ? Terminal.width : nil)
    }

    // MARK: Errors

    /// Prints an error and counts it.
    func report(_ error: Error) {
        lastError = error
        var message: String
        if let lua = error as? LuaError {
            message = lua.message
            switch lua.kind {
            case .interrupted:
                message += " (Ctrl-C)"
                if interactive { message = "\n" + message }   // after the terminal's "^C"
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
        StandardStreams.errorLine(errorStyle.red(message))
    }

    // MARK: Tenants

    /// Runs `body` with the current user's tenant, its `print` going to standard output.
    func withTenant<T>(_ body: (Tenant) throws -> T) throws -> T {
        try host.withTenant(user) { tenant in
            tenant.runtime.output = { StandardStreams.line($0) }
            tenant.runtime.state.warningHandler = { [errorStyle] in StandardStreams.errorLine(errorStyle.yellow("warning: \($0)")) }
            return try body(tenant)
        }
    }

    /// Makes `name` the current user (its realm is created if new).
    func switchUser(to name: String) throws -> Bool {
        try UserName.validate(name)
        let isNew = !FileManager.default.fileExists(atPath: try host.fileURL(for: name).path)
        if name != user {
            let busy = try withTenant { $0.runtime.hasOpenWrite }
            if busy {
                throw HostError.configuration("User '\(user)' has an open write transaction: commit it (realm:commitWrite()) or cancel it (realm:cancelWrite()) first.")
            }
        }
        try host.withTenant(name) { _ in }
        user = name
        return isNew
    }

    // MARK: Prompts

    func mainPrompt() -> String {
        guard interactive else { return "" }
        let open = (try? withTenant { $0.runtime.hasOpenWrite }) ?? false
        return promptText(user + (open ? "*" : "") + "> ")
    }

    func continuationPrompt() -> String {
        guard interactive else { return "" }
        let width = user.count + 2
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

    func banner() -> String {
        var lines = ["RealmHost \(realmHostVersion) · Lua 5.4 · user '\(user)' (\((try? host.fileURL(for: user)).map(displayPath) ?? "?"))"]
        let plugins = host.registry.plugins
        if plugins.isEmpty {
            let folders = host.options.pluginFolders.map(displayPath).joined(separator: ", ")
            lines.append(errorStyle.yellow("No plugins in \(folders.isEmpty ? "(none)" : folders): the realm has no classes (use --plugins DIR)."))
        } else {
            let names = plugins.map { "\($0.name) \($0.version)" }.joined(separator: ", ")
            let commands = plugins.flatMap(\.commandNames).map { "." + $0 }.joined(separator: " ")
            lines.append("Plugins: \(names)" + (commands.isEmpty ? "" : " (\(commands))") + ", schema version \(host.registry.schemaVersion)")
        }
        lines.append(style.dim("`realm` is your realm. Type Lua; .help for help, Tab to complete, Ctrl-D to quit."))
        return lines.joined(separator: "\n")
    }
}
