import Foundation
import RealmDatabase
import RealmHost
import RealmServe

/// `repl --connect` and `run --connect`: a terminal attached to a serving host's console socket.
/// The line editor, its history file and Ctrl-C are here; the session, its tenants and everything
/// it prints are the host's (`AttachedConsole`).
enum ConsoleClient {
    /// The REPL of a serving host; the session's exit status.
    static func repl(dataFolder: URL, user: String, mode: String, history: Bool) throws -> Int32 {
        let connection = try connect(dataFolder)
        let interactive = Terminal.inputIsTerminal
        Interrupts.shared.install()
        var open: [JSONValue.Field] = [
            .init("user", .string(user)), .init("mode", .string(mode)), .init("interactive", .bool(interactive)),
            .init("colour", .bool(interactive && Terminal.colourAllowed(onTerminal: Terminal.outputIsTerminal))),
        ]
        if Terminal.outputIsTerminal { open.append(.init("width", .int(Int64(Terminal.width)))) }
        connection.send(ConsoleMessage.field("open", .object(open)))
        let input: LineSource
        if interactive {
            let file = history ? dataFolder.appendingPathComponent(".realm-host-history") : nil
            input = EditedLines(historyFile: file) { before, word in completions(connection, before: before, word: word)
            }
        } else {
            input = PipedLines()
        }
        return converse(connection) { prompt in
            let typed = input.readLine(prompt: prompt)
            // What the host said while the line was being edited (a write rolled back after the
            // console write timeout) is printed before the line runs.
            printWaiting(connection)
            switch typed {
            case .line(let line): connection.send(ConsoleMessage.field("line", .string(line)))
            case .interrupted: connection.send(ConsoleMessage.field("cancel", .bool(true)))
            case .endOfInput: connection.send(ConsoleMessage.field("eof", .bool(true)))
            }
        } history: {
            input.addHistory($0)
        }
    }

    /// A script run by the serving host; its exit status.
    static func run(dataFolder: URL, user: String, script: String, arguments: [String]) throws -> Int32 {
        let path = URL(fileURLWithPath: script).standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CLIError.failed("\(script): cannot open the script (no such readable file)")
        }
        let connection = try connect(dataFolder)
        Interrupts.shared.install()
        connection.send(
            ConsoleMessage.field(
                "run",
                .object([
                    .init("path", .string(path)), .init("user", .string(user)),
                    .init("args", .array(arguments.map { .string($0) })),
                ])))
        return converse(connection) { _ in
            connection.send(ConsoleMessage.field("eof", .bool(true)))
        } history: { _ in
        }
    }

    /// `migrate --connect`: the serving host migrates its users and sends the report.
    static func migrate(dataFolder: URL, allUsers: Bool, users: [String], dryRun: Bool, jobs: Int?) throws -> Int32 {
        let connection = try connect(dataFolder)
        var fields: [JSONValue.Field] = [
            .init("allUsers", .bool(allUsers)), .init("users", .array(users.map { .string($0) })),
            .init("dryRun", .bool(dryRun)),
        ]
        if let jobs { fields.append(.init("jobs", .int(Int64(jobs)))) }
        connection.send(ConsoleMessage.field("migrate", .object(fields)))
        return converse(connection) { _ in
            connection.send(ConsoleMessage.field("eof", .bool(true)))
        } history: { _ in
        }
    }

    private static func connect(_ dataFolder: URL) throws -> ConsoleConnection {
        do {
            return try ConsoleSocket.connect(dataFolder: dataFolder)
        } catch {
            throw CLIError.failed("\(error)")
        }
    }

    /// Prints what the host sends and answers its prompts until it says the exit status. A Ctrl-C
    /// while the host runs a line is sent to it as an interrupt.
    private static func converse(
        _ connection: ConsoleConnection, prompt: (String) -> Void, history: (String) -> Void
    ) -> Int32 {
        var interruptsSeen = Interrupts.shared.count
        while true {
            switch connection.receive(timeout: .milliseconds(100)) {
            case .timedOut:
                if Interrupts.shared.count != interruptsSeen {
                    interruptsSeen = Interrupts.shared.count
                    connection.send(ConsoleMessage.field("interrupt", .bool(true)))
                }
            case .closed:
                StandardStreams.errorLine("realm-host: the serving host closed the console")
                return 1
            case .message(let message):
                if let text = ConsoleMessage.string(message, "out") { StandardStreams.line(text) }
                if let text = ConsoleMessage.string(message, "err") { StandardStreams.errorLine(text) }
                if let entry = ConsoleMessage.string(message, "history") { history(entry) }
                if let status = ConsoleMessage.int(message, "exit") { return Int32(clamping: status) }
                if let text = ConsoleMessage.string(message, "prompt") {
                    prompt(text)
                    interruptsSeen = Interrupts.shared.count
                }
            }
        }
    }

    /// Prints the messages already waiting, without blocking (a new prompt among them is the one
    /// being answered).
    private static func printWaiting(_ connection: ConsoleConnection) {
        while case .message(let message) = connection.receive(timeout: .zero) {
            if let text = ConsoleMessage.string(message, "out") { StandardStreams.line(text) }
            if let text = ConsoleMessage.string(message, "err") { StandardStreams.errorLine(text) }
        }
    }

    /// Asks the host for the completions of `word`; what else arrives meanwhile is printed.
    private static func completions(_ connection: ConsoleConnection, before: String, word: String) -> [String] {
        connection.send(
            ConsoleMessage.field(
                "complete", .object([.init("before", .string(before)), .init("word", .string(word))])))
        while case .message(let message) = connection.receive(timeout: .seconds(5)) {
            if case .array(let items)? = message[field: "completions"] {
                return items.compactMap { if case .string(let s) = $0 { s } else { nil } }
            }
            if let text = ConsoleMessage.string(message, "out") { StandardStreams.line(text) }
            if let text = ConsoleMessage.string(message, "err") { StandardStreams.errorLine(text) }
        }
        return []
    }
}
