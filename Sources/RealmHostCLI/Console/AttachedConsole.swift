import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmServe

/// A console attached to `serve` (`repl --connect`, `run --connect`): the same `ReplSession` as the
/// local REPL, in the host's own tenants, its input the client's lines, its output the client's
/// socket, Ctrl-C the client's interrupt message. A write left open at the prompt is rolled back
/// after `writeTimeout` without a line, so that it cannot hold the user's API calls.
enum AttachedConsole {
    static func serve(_ connection: ConsoleConnection, host: TenantHost, writeTimeout: Duration) {
        guard case .message(let first) = connection.receive(timeout: .seconds(10)) else { return }
        let output = ReplOutput(
            line: { connection.send(ConsoleMessage.field("out", .string($0))) },
            errorLine: { connection.send(ConsoleMessage.field("err", .string($0))) })
        let interrupts = RemoteInterrupts()
        let inbox = ConsoleInbox(connection: connection, interrupts: interrupts)
        if let migrate = first[field: "migrate"] {
            connection.send(ConsoleMessage.field("exit", .int(Int64(migration(migrate, host: host, output: output)))))
            return
        }
        if let run = first[field: "run"] {
            let status = runScript(run, host: host, output: output, interrupts: interrupts, inbox: inbox)
            connection.send(ConsoleMessage.field("exit", .int(Int64(status))))
            return
        }
        guard let open = first[field: "open"] else {
            output.errorLine("realm-host: the console's first message must be open or run")
            connection.send(ConsoleMessage.field("exit", .int(2)))
            return
        }
        let user = ConsoleMessage.string(open, "user") ?? "default"
        do {
            try UserName.validate(user)
        } catch {
            output.errorLine("realm-host: \(error)")
            connection.send(ConsoleMessage.field("exit", .int(1)))
            return
        }
        let interactive = ConsoleMessage.bool(open, "interactive") ?? true
        let colour = ConsoleMessage.bool(open, "colour") ?? false
        let session = ReplSession(
            host: host, user: user,
            mode: ConsoleMessage.string(open, "mode").flatMap(OutputMode.init(rawValue:)) ?? .table,
            interactive: interactive, colour: colour, errorColour: colour, output: output,
            maxWidth: .some(ConsoleMessage.int(open, "width")),
            interruptScope: { handle, body in try interrupts.whileRunning(handle, body) })
        session.input = ConsoleLines(
            inbox: inbox, connection: connection, session: session, writeTimeout: writeTimeout,
            completer: Completer(session: session))
        let status = session.run()
        connection.send(ConsoleMessage.field("exit", .int(Int64(status))))
    }

    /// `migrate --connect`: the same run and report as `realm-host migrate`, in the serving host.
    private static func migration(_ request: JSONValue, host: TenantHost, output: ReplOutput) -> Int32 {
        var users = [String]()
        if case .array(let items)? = request[field: "users"] {
            users = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
        }
        do {
            for name in users { try UserName.validate(name) }
            return try MigrationRun.perform(
                host: host, allUsers: ConsoleMessage.bool(request, "allUsers") ?? false, users: users,
                dryRun: ConsoleMessage.bool(request, "dryRun") ?? false,
                jobs: ConsoleMessage.int(request, "jobs").map { max(1, $0) }, output: output, progressBar: false,
                colour: false)
        } catch CLIError.failed(let message) {
            output.errorLine("realm-host: \(message)")
        } catch {
            output.errorLine("realm-host: \(error)")
        }
        return 1
    }

    /// `run --connect SCRIPT ARGS…`: the script (the client's absolute path) as `realm-host run`
    /// runs it, in the host's tenants.
    private static func runScript(
        _ run: JSONValue, host: TenantHost, output: ReplOutput, interrupts: RemoteInterrupts, inbox: ConsoleInbox
    ) -> Int32 {
        guard let path = ConsoleMessage.string(run, "path") else {
            output.errorLine("realm-host: run needs the script's path")
            return 2
        }
        let user = ConsoleMessage.string(run, "user") ?? "default"
        var arguments = [String]()
        if case .array(let items)? = run[field: "args"] {
            arguments = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
        }
        inbox.start()
        do {
            try UserName.validate(user)
            let session = TenantSession(
                host: host, user: user, output: output.line, warning: { output.errorLine("warning: \($0)") })
            session.interruptScope = { handle, body in try interrupts.whileRunning(handle, body) }
            do {
                try session.runFile(path, arguments: arguments)
            } catch let failure as ChunkError {
                output.errorLine(ScriptErrors.describe(failure.underlying, script: path))
                return failure.kind == .interrupted ? 130 : 1
            }
            if try session.rollbackOpenWrites() {
                output.errorLine(
                    "\(path): warning: the script ended inside a write transaction; it was rolled back (call commitWrite)"
                )
            }
            return 0
        } catch {
            output.errorLine("realm-host: \(error)")
            return 1
        }
    }
}

/// Ctrl-C from a console client: cancels the running chunk, and again every 50 ms while that run
/// goes on (a cancel landing just before the call starts is cleared by the call).
final class RemoteInterrupts: @unchecked Sendable {
    private let lock = NSLock()
    private var running: LuaCancelHandle?
    private var generation = 0
    /// An interrupt that came while nothing ran: it stops the next run before it starts.
    private var pending = false

    func whileRunning<T>(_ handle: LuaCancelHandle, _ body: () throws -> T) throws -> T {
        let interrupted = lock.withLock {
            running = handle
            generation += 1
            defer { pending = false }
            return pending
        }
        defer { lock.withLock { running = nil } }
        if interrupted { throw LuaError(.interrupted, "interrupted before it started") }
        return try body()
    }

    func interrupt() {
        let target = lock.withLock { () -> (LuaCancelHandle, Int)? in
            guard let running else { return nil }
            return (running, generation)
        }
        guard let (handle, run) = target else { return }
        handle.cancel()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { [weak self] in
            guard let self else { return }
            let same = self.lock.withLock { self.running != nil && self.generation == run }
            if same { self.interrupt() }
        }
    }

    /// The client pressed Ctrl-C at a prompt: nothing runs, nothing to keep.
    func clear() { lock.withLock { pending = false } }
}

/// The client's messages, read on a thread of their own so that an interrupt arrives while a line
/// runs; every other message waits in order for the session's thread.
final class ConsoleInbox: @unchecked Sendable {
    private let connection: ConsoleConnection
    private let interrupts: RemoteInterrupts
    private let condition = NSCondition()
    private var queue = [JSONValue]()
    private var ended = false
    private var started = false

    init(connection: ConsoleConnection, interrupts: RemoteInterrupts) {
        self.connection = connection
        self.interrupts = interrupts
    }

    func start() {
        guard !started else { return }
        started = true
        let thread = Thread { [self] in
            while case .message(let message) = connection.receive() {
                if message[field: "interrupt"] != nil {
                    interrupts.interrupt()
                    continue
                }
                condition.withLock {
                    queue.append(message)
                    condition.signal()
                }
            }
            condition.withLock {
                ended = true
                condition.broadcast()
            }
            // The client is gone: whatever runs for it stops.
            interrupts.interrupt()
        }
        thread.name = "realm-host console reader"
        thread.start()
    }

    /// The next message; nil at the end of the connection, `.timedOut` after `timeout`.
    func next(timeout: Duration?) -> ConsoleConnection.Received {
        start()
        let deadline = timeout.map {
            Date().addingTimeInterval(Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18)
        }
        return condition.withLock {
            while queue.isEmpty && !ended {
                if let deadline {
                    if !condition.wait(until: deadline) && queue.isEmpty { return .timedOut }
                } else {
                    condition.wait()
                }
            }
            if queue.isEmpty { return .closed }
            return .message(queue.removeFirst())
        }
    }
}

/// The session's input: a prompt sent, then the client's next line; completions answered on the
/// way; an open write rolled back after `writeTimeout` without a line.
final class ConsoleLines: LineSource {
    let inbox: ConsoleInbox
    let connection: ConsoleConnection
    unowned let session: ReplSession
    let writeTimeout: Duration
    let completer: Completer

    init(
        inbox: ConsoleInbox, connection: ConsoleConnection, session: ReplSession, writeTimeout: Duration,
        completer: Completer
    ) {
        self.inbox = inbox
        self.connection = connection
        self.session = session
        self.writeTimeout = writeTimeout
        self.completer = completer
    }

    func readLine(prompt: String) -> LineInput {
        connection.send(ConsoleMessage.field("prompt", .string(prompt)))
        while true {
            let openWrite = session.tenantSession.hasOpenWrite
            switch inbox.next(timeout: openWrite ? writeTimeout : nil) {
            case .closed:
                return .endOfInput
            case .timedOut:
                if (try? session.tenantSession.rollbackOpenWrites()) == true {
                    session.output.errorLine(
                        session.errorStyle.yellow(
                            "The open write transaction was rolled back after \(writeTimeout) without a line "
                                + "(serve.consoleWriteTimeout): it held the user's API calls."))
                }
                connection.send(
                    ConsoleMessage.field(
                        "prompt", .string(session.pendingIsEmpty ? session.mainPrompt() : session.continuationPrompt()))
                )
            case .message(let message):
                if let line = ConsoleMessage.string(message, "line") { return .line(line) }
                if message[field: "eof"] != nil { return .endOfInput }
                if message[field: "cancel"] != nil { return .interrupted }
                if let request = message[field: "complete"] {
                    let words = completer.complete(
                        before: ConsoleMessage.string(request, "before") ?? "",
                        word: ConsoleMessage.string(request, "word") ?? "")
                    connection.send(ConsoleMessage.field("completions", .array(words.map { .string($0) })))
                }
            }
        }
    }

    func addHistory(_ entry: String) { connection.send(ConsoleMessage.field("history", .string(entry))) }
}
