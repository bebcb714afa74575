import Foundation
import XCTest

/// The transcripts of README.md and docs/ are what the commands print today: each fenced block
/// that starts with `$ …` is run, in order, in one workspace per document (a block may rely on what
/// an earlier one made), and its output compared with the block's, ids, sizes and ports masked (`…`
/// in a line of the document stands for any text). A REPL session (lines with a prompt) runs on a
/// pseudo-terminal, typed line by line; so does a WebSocket client's (`python3 -m websockets`:
/// `> ` typed, `< ` received, `# in another terminal: $ …` run meanwhile). A shell transcript runs
/// each `$` line through `/bin/sh` with `realm-host` on the PATH (a `NAME=$(…)` or `export NAME=…`
/// line keeps `NAME` for the next ones). `realm-host serve`, `realm-host sync-server` and a line
/// ending in `&` run in the background until the section ends, their first lines compared with the
/// document's; servers listen on free ports, which replace the document's (8080, 8081, 7800, or the
/// `--listen` given) in the commands after. The PostgreSQL section runs its own throwaway server, in
/// the workspace rather than the document's `/tmp` folder, when PostgreSQL is there (under
/// `.ci/with-postgres`).
final class DocTranscriptTests: XCTestCase {
    /// The processes the current section started in the background.
    private var background: [SyncServerProcess] = []
    private var backgroundSection: String?
    /// The document's ports, and the ones the servers bound instead.
    private var ports: [Int: Int] = [:]
    private var variables: [String: String] = [:]
    /// The folder of the PostgreSQL the document started, stopped at the end.
    private var postgresFolder: String?

    /// The document being checked, for messages.
    private var document = ""

    func testTheReadmesTranscriptsAreWhatTheCommandsPrint() throws {
        let workspace = try Workspace()
        defer { stopEverything(in: workspace) }
        // The files the transcripts name.
        try workspace.write("script.lua", "print('run')\n")
        try FileManager.default.createSymbolicLink(
            at: workspace.root.appendingPathComponent(".ci"),
            withDestinationURL: CLI.repository.appendingPathComponent(".ci"))
        // The REPL session, the migration, serve with its calls, watch and console, sync, the cluster.
        XCTAssertGreaterThanOrEqual(try runTranscripts(of: "README.md", in: workspace), 10)
    }

    /// docs/: each page's transcripts in a workspace of its own, with the files they name.
    func testTheDocsTranscriptsAreWhatTheCommandsPrint() throws {
        let files: [String: [String: String]] = [
            "PLUGINS.md": [
                "p/pets/plugin.lua": """
                return { name = 'pets', schemaVersion = 1, schema = {
                  { name = 'Pet', primaryKey = 'name', properties = { name = 'string' } },
                } }

                """,
                "add.lua": "realm:objects('Pet'):append{ name = 'Rex' }\n",
            ]
        ]
        let pages = try FileManager.default.contentsOfDirectory(
            atPath: CLI.repository.appendingPathComponent("docs").path)
        var ran = 0
        for page in pages.sorted() where page.hasSuffix(".md") {
            let workspace = try Workspace()
            defer { stopEverything(in: workspace) }
            for (name, text) in files[page] ?? [:] { try workspace.write(name, text) }
            ran += try runTranscripts(of: "docs/" + page, in: workspace)
        }
        XCTAssertGreaterThanOrEqual(ran, 1)
    }

    /// Runs a document's transcripts in order; how many ran.
    private func runTranscripts(of name: String, in workspace: Workspace) throws -> Int {
        document = name
        let text = try String(contentsOf: CLI.repository.appendingPathComponent(name), encoding: .utf8)
        let environment = ProcessInfo.processInfo.environment
        let postgres = environment["REALMHOST_TEST_POSTGRES_URL"] != nil || environment["CI"] == "true"
        var ran = 0
        var skippedSection: String?
        for block in DocTranscript.blocks(in: text) {
            if let started = backgroundSection, started != block.section { stopBackground() }
            if block.needsPostgres && !postgres {
                print("DocTranscriptTests: no PostgreSQL, the section \(block.section) is not run")
                skippedSection = block.section
            }
            guard block.section != skippedSection else { continue }
            switch block.kind {
            case .webSocket(let command):
                try checkWebSocket(block, command: command, in: workspace)
            case .repl(let arguments):
                try checkREPL(block, arguments: arguments, in: workspace)
            case .shell:
                try checkShell(block, in: workspace)
            }
            ran += 1
        }
        return ran
    }

    private func stopBackground() {
        for process in background { _ = process.stop() }
        background = []
        backgroundSection = nil
        ports = [:]
    }

    private func stopEverything(in workspace: Workspace) {
        stopBackground()
        if postgresFolder != nil { _ = try? shell("bash .ci/postgres stop", in: workspace) }
        postgresFolder = nil
        variables = [:]
    }

    /// The document's ports replaced by the running servers'.
    private func withPorts(_ command: String) -> String {
        ports.reduce(command) { command, port in
            command.replacingOccurrences(
                of: ":\(port.key)(?![0-9])", with: ":\(port.value)", options: .regularExpression)
        }
    }

    private func checkREPL(_ block: DocTranscript.Block, arguments: [String], in workspace: Workspace) throws {
        let repl = try workspace.terminal(arguments.map(withPorts), environment: variables)
        let prompts = block.output.enumerated().compactMap { index, line in
            DocTranscript.prompt(of: line).map { (index, $0) }
        }
        guard let first = prompts.first else { return XCTFail("no prompt in the block at line \(block.line)") }
        repl.expect(first.1.prompt)
        var transcript: String?
        for (n, (_, line)) in prompts.enumerated() {
            repl.type(line.input + "\r")
            if n + 1 < prompts.count {
                repl.expect(prompts[n + 1].1.prompt, timeout: 60)
            } else if [".quit", ".exit"].contains(line.input) {
                _ = repl.waitForExit()
            } else {
                // The document stops after the last answer: the prompt after it is not shown.
                repl.expect(line.prompt, timeout: 60)
                transcript = String(repl.transcript.dropLast(line.prompt.count))
                repl.ctrlD()
                _ = repl.waitForExit()
            }
        }
        compare(transcript ?? repl.transcript, with: block)
    }

    /// A WebSocket client's session on a pseudo-terminal (`python3 -m websockets URL`): `> ` lines
    /// are typed, `< ` lines awaited, and a `# in another terminal: $ COMMAND` line runs COMMAND.
    private func checkWebSocket(_ block: DocTranscript.Block, command: String, in workspace: Workspace) throws {
        let client = try PseudoTerminal(
            arguments: ["-c", withPorts(command)], directory: workspace.root, program: "/bin/sh",
            environment: shellEnvironment)
        client.expect("Connected to ")
        // The other terminal's lines, each after the number of messages received before it.
        var actions: [(afterReceived: Int, line: String)] = []
        var received = 0
        for line in block.output.dropFirst() {
            if line.hasPrefix("> ") {
                // Typed once the client's prompt shows (earlier, the terminal would echo it first).
                client.expect("> ")
                client.type(String(line.dropFirst(2)) + "\r")
                client.expect(String(line.dropFirst(2)))
            } else if line.hasPrefix("< ") {
                client.expect("\n< ", timeout: 30)
                client.expect("\n")
                received += 1
            } else if let command = DocTranscript.otherTerminalCommand(line) {
                _ = try shell(withPorts(command), in: workspace)
                actions.append((received, line))
            }
        }
        client.ctrlD()
        _ = client.waitForExit()
        // What the client printed, its prompt's redrawing left out, and the other terminal's lines.
        var printed = block.output[0] + "\n"
        received = 0
        for line in client.transcript.components(separatedBy: "\n") {
            if line.hasPrefix("Connected to ") || line.hasPrefix("> {") || line.hasPrefix("< ") {
                printed += line + "\n"
            }
            if line.hasPrefix("< ") {
                received += 1
                for action in actions where action.afterReceived == received { printed += action.line + "\n" }
            }
        }
        compare(printed, with: block)
    }

    private func checkShell(_ block: DocTranscript.Block, in workspace: Workspace) throws {
        var printed = ""
        for (index, line) in block.output.enumerated() {
            guard line.hasPrefix("$ ") else { continue }
            let command = withPorts(String(line.dropFirst(2)))
            printed += line + "\n"
            if let name = DocTranscript.assignedName(command) {
                variables[name] = try shell(command + "; printf '%s' \"$\(name)\"", in: workspace)
                // The document's PostgreSQL folder is /tmp/…: this run's own is in the workspace.
                if name == "REALMHOST_POSTGRES_DIR" {
                    variables[name] = workspace.root.appendingPathComponent("postgres").path
                    postgresFolder = variables[name]
                }
                continue
            }
            if DocTranscript.runsInBackground(command) {
                // As many lines as the document shows before its next command.
                let shown = block.output[(index + 1)...].prefix { !$0.hasPrefix("$ ") }.filter { !$0.isEmpty }.count
                printed += try startBackground(command, showing: shown, in: workspace, section: block.section)
                continue
            }
            let output = try shell(command, in: workspace)
            // curl's answers end without a newline; the document shows the next command below.
            printed += output.isEmpty || output.hasSuffix("\n") ? output : output + "\n"
        }
        compare(printed, with: block)
    }

    /// Starts `command` in the background, a server on free ports; its first `count` lines.
    private func startBackground(_ command: String, showing count: Int, in workspace: Workspace, section: String)
        throws -> String
    {
        var command = command.hasSuffix(" &") ? String(command.dropLast(2)) : command
        var documented: [Int] = []
        for (flag, port) in DocTranscript.listenFlags(of: command) {
            let pattern = " \(flag) 127\\.0\\.0\\.1:([0-9]+)"
            if let match = command.range(of: pattern, options: .regularExpression) {
                documented.append(Int(command[match].split(separator: ":").last ?? "") ?? port)
                command.replaceSubrange(match, with: " \(flag) 127.0.0.1:0")
            } else {
                documented.append(port)
                command += " \(flag) 127.0.0.1:0"
            }
        }
        let process = try SyncServerProcess(shell: command, in: workspace.root, environment: shellEnvironment)
        background.append(process)
        backgroundSection = section
        let lines = process.firstLines(max(count, documented.isEmpty ? 0 : 1))
        if !documented.isEmpty {
            let bound = (lines.first ?? "").components(separatedBy: "127.0.0.1:").dropFirst().compactMap {
                Int($0.prefix(while: \.isNumber))
            }
            guard bound.count == documented.count else {
                XCTFail("\(command): first line \(lines.first ?? "none"); standard error:\n\(process.standardError)")
                return ""
            }
            for (port, free) in zip(documented, bound) { ports[port] = free }
        }
        return lines.prefix(count).map { $0 + "\n" }.joined()
    }

    /// The test's environment with the document's variables, `realm-host` first on the PATH.
    private var shellEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["REALM_HOST_DATA"] = nil
        environment["NO_COLOR"] = "1"
        for (name, value) in variables { environment[name] = value }
        environment["PATH"] =
            CLI.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return environment
    }

    /// `command` through `/bin/sh` in the workspace, standard error with standard output.
    private func shell(_ command: String, in workspace: Workspace) throws -> String {
        try ShellCommand.run(command, in: workspace.root, environment: shellEnvironment)
    }

    private func compare(_ actual: String, with block: DocTranscript.Block) {
        let expected = DocTranscript.normalized(block.output.joined(separator: "\n"))
        let got = DocTranscript.normalized(actual)
        let same = expected.count == got.count && zip(expected, got).allSatisfy { DocTranscript.matches($1, $0) }
        guard !same else { return }
        let pairs = zip(expected + [""], got + [""]).enumerated()
        let (index, (want, have)) =
            pairs.first { !DocTranscript.matches($0.element.1, $0.element.0) } ?? (0, ("", ""))
        let errors = background.map(\.standardError).joined(separator: "\n")
        XCTFail(
            "\(document)'s block at line \(block.line) differs from what the commands print, at its line "
                + "\(index + 1):\n  document: \(want)\n  now:      \(have)\n--- printed (normalized):\n"
                + got.joined(separator: "\n") + (errors.isEmpty ? "" : "\n--- servers' standard error:\n" + errors))
    }
}

/// The transcripts of a Markdown document.
enum DocTranscript {
    struct Block {
        enum Kind {
            /// A REPL session started by the block's command with these arguments.
            case repl([String])
            /// `$ command` lines, each followed by what it prints.
            case shell
            /// A WebSocket client's session, started by this shell command.
            case webSocket(String)
        }
        /// The block's first line in the document (1-based).
        let line: Int
        /// The heading of the section the block is in.
        var section = ""
        let kind: Kind
        /// Starts the PostgreSQL of `.ci/postgres`.
        var needsPostgres = false
        /// The block's lines, the REPL's starting command left out.
        let output: [String]
    }

    /// The fenced blocks whose first line is a `$ ` command.
    static func blocks(in text: String) -> [Block] {
        var blocks: [Block] = []
        var current: [String]?
        var start = 0
        var section = ""
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            if current == nil, line.hasPrefix("## ") { section = line }
            if line.hasPrefix("```") {
                if let lines = current {
                    if var block = block(lines, line: start) {
                        block.section = section
                        blocks.append(block)
                    }
                    current = nil
                } else {
                    current = []
                    start = number + 2
                }
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    private static func block(_ lines: [String], line: Int) -> Block? {
        guard let first = lines.first, first.hasPrefix("$ ") else { return nil }
        let commands = lines.filter { $0.hasPrefix("$ ") }
        if first.hasPrefix("$ python3 -m websockets ") {
            return Block(line: line, kind: .webSocket(String(first.dropFirst(2))), output: lines)
        }
        guard lines.dropFirst().contains(where: { prompt(of: $0) != nil }) else {
            var block = Block(line: line, kind: .shell, output: lines)
            block.needsPostgres = commands.contains { $0.contains(".ci/postgres") }
            return block
        }
        // `$ swift run -c release realm-host ARGS` or `$ realm-host ARGS`: the REPL's arguments.
        var words = first.dropFirst(2).split(separator: " ").map(String.init)
        if let start = words.firstIndex(of: "realm-host") { words = Array(words[(start + 1)...]) }
        return Block(line: line, kind: .repl(words), output: Array(lines.dropFirst()))
    }

    /// The name `NAME=…` or `export NAME=…` assigns.
    static func assignedName(_ command: String) -> String? {
        let rest = command.hasPrefix("export ") ? command.dropFirst("export ".count) : Substring(command)
        guard let equals = rest.firstIndex(of: "="), !rest[..<equals].isEmpty,
            rest[..<equals].allSatisfy({ $0.isUppercase || $0 == "_" })
        else { return nil }
        return String(rest[..<equals])
    }

    /// COMMAND in a line `# in another terminal: $ COMMAND` of a session.
    static func otherTerminalCommand(_ line: String) -> String? {
        let marker = "# in another terminal: $ "
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix(marker) ? String(trimmed.dropFirst(marker.count)) : nil
    }

    /// A server (it runs until stopped) or a line ending in `&`.
    static func runsInBackground(_ command: String) -> Bool {
        command.hasSuffix(" &") || command.hasPrefix("realm-host serve ")
            || command.hasPrefix("realm-host sync-server ")
    }

    /// The listen flags of a server command, each with the port it listens on by default.
    static func listenFlags(of command: String) -> [(flag: String, port: Int)] {
        if command.hasPrefix("realm-host serve ") { return [("--listen", 8080), ("--admin-listen", 8081)] }
        if command.hasPrefix("realm-host sync-server ") { return [("--listen", 7800)] }
        return []
    }

    /// Whether a printed line is the document's: equal, or matching where the document wrote `…`.
    static func matches(_ printed: String, _ documented: String) -> Bool {
        guard documented.contains("…") else { return printed == documented }
        let pattern = documented.components(separatedBy: "…").map(NSRegularExpression.escapedPattern(for:))
            .joined(separator: ".*")
        return printed.range(of: "^" + pattern + "$", options: .regularExpression) != nil
    }

    /// The prompt (`default> `, `alice*> `, `bob(offline)> `) and the input of a REPL line.
    static func prompt(of line: String) -> (prompt: String, input: String)? {
        guard let match = line.range(of: #"^[A-Za-z0-9_-]+(\(offline\))?\*?> "#, options: .regularExpression) else {
            return nil
        }
        return (String(line[match]), String(line[match.upperBound...]))
    }

    /// Lines without what changes from run to run (ids, sizes) or with the terminal (padding,
    /// rule lengths, trailing spaces), empty lines dropped.
    static func normalized(_ text: String) -> [String] {
        let masks: [(String, String)] = [
            (#"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"#, "<uuid>"),
            (#"\b[0-9a-f]{24}\b"#, "<objectid>"),
            (#"\d+(\.\d+)? (B|KiB|MiB|GiB)\b"#, "<size>"),
            (#"(127\.0\.0\.1|localhost):\d+"#, "$1:<port>"),
            (#"─+"#, "─"),
            (#" +"#, " "),
        ]
        return text.replacingOccurrences(of: "\r", with: "").components(separatedBy: "\n").map { line in
            var line = line
            for (pattern, mask) in masks {
                line = line.replacingOccurrences(of: pattern, with: mask, options: .regularExpression)
            }
            return line.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }
}
