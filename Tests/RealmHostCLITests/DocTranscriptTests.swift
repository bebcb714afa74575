import Foundation
import XCTest

/// The README's transcripts are what the commands print today: each fenced block that starts with
/// `$ realm-host …` is run, in order, in one workspace (a block may rely on what an earlier one
/// made), and its output compared with the block's, ids, sizes and ports masked (`…` in a line of
/// the document stands for any text). A REPL session (lines with a prompt) runs on a
/// pseudo-terminal, typed line by line; a shell transcript runs each `$` line through `/bin/sh`
/// with `realm-host` on the PATH (a `NAME=$(…)` line keeps `NAME` for the next ones); `realm-host
/// serve` starts in the background on free ports (the document's 8080 and 8081 are replaced by
/// them) and runs until the document's end.
final class DocTranscriptTests: XCTestCase {
    private var serve: SyncServerProcess?
    private var ports: (app: Int, admin: Int)?
    private var variables: [String: String] = [:]
    /// The section (its heading) whose transcript started `serve`.
    private var serveSection: String?

    override func tearDown() {
        _ = serve?.stop()
        serve = nil
    }

    func testTheReadmesTranscriptsAreWhatTheCommandsPrint() throws {
        let text = try String(contentsOf: CLI.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let workspace = try Workspace()
        // The files the transcripts name.
        try workspace.write("script.lua", "print('run')\n")
        var ran = 0
        for block in DocTranscript.blocks(in: text) {
            // A host started by a section's transcript serves that section only.
            if let started = serveSection, started != block.section {
                _ = serve?.stop()
                serve = nil
                ports = nil
                serveSection = nil
            }
            switch block.kind {
            case .needsServer:
                continue
            case .serve(let arguments):
                try startServe(block, arguments: arguments, in: workspace)
                serveSection = block.section
            case .repl(let arguments):
                try checkREPL(block, arguments: arguments, in: workspace)
            case .shell:
                try checkShell(block, in: workspace)
            }
            ran += 1
        }
        // The REPL session, the migration, serve with its calls and console, the cluster at least.
        XCTAssertGreaterThanOrEqual(ran, 6)
    }

    /// `realm-host serve …` in the background on free ports; its first line compared.
    private func startServe(_ block: DocTranscript.Block, arguments: [String], in workspace: Workspace) throws {
        let process = try SyncServerProcess(
            arguments + ["--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"], in: workspace.root,
            command: "serve")
        serve = process
        let first = try XCTUnwrap(process.firstLine(), "serve printed nothing: \(process.standardError)")
        let found = first.components(separatedBy: "127.0.0.1:").dropFirst().compactMap {
            Int($0.prefix(while: \.isNumber))
        }
        guard found.count == 2 else { return XCTFail("serve's first line: \(first)") }
        ports = (found[0], found[1])
        compare(block.output[0] + "\n" + first, with: block, includingCommands: true)
    }

    /// The document's ports replaced by the running host's.
    private func withPorts(_ command: String) -> String {
        guard let ports else { return command }
        return command.replacingOccurrences(of: ":8080", with: ":\(ports.app)")
            .replacingOccurrences(of: ":8081", with: ":\(ports.admin)")
    }

    private func checkREPL(_ block: DocTranscript.Block, arguments: [String], in workspace: Workspace) throws {
        let repl = try workspace.terminal(arguments)
        let prompts = block.output.enumerated().compactMap { index, line in
            DocTranscript.prompt(of: line).map { (index, $0) }
        }
        guard let first = prompts.first else { return XCTFail("no prompt in the block at line \(block.line)") }
        repl.expect(first.1.prompt)
        var transcript: String?
        for (n, (_, line)) in prompts.enumerated() {
            repl.type(line.input + "\r")
            if n + 1 < prompts.count {
                repl.expect(prompts[n + 1].1.prompt)
            } else if [".quit", ".exit"].contains(line.input) {
                _ = repl.waitForExit()
            } else {
                // The document stops after the last answer: the prompt after it is not shown.
                repl.expect(line.prompt)
                transcript = String(repl.transcript.dropLast(line.prompt.count))
                repl.ctrlD()
                _ = repl.waitForExit()
            }
        }
        compare(transcript ?? repl.transcript, with: block)
    }

    private func checkShell(_ block: DocTranscript.Block, in workspace: Workspace) throws {
        var printed = ""
        for line in block.output {
            guard line.hasPrefix("$ ") else { continue }
            let command = withPorts(String(line.dropFirst(2)))
            printed += line + "\n"
            // `NAME=$(…)`: prints nothing; NAME is kept for the next commands.
            if let equals = command.firstIndex(of: "="),
                command[..<equals].allSatisfy({ $0.isUppercase || $0 == "_" }), !command[..<equals].isEmpty
            {
                let name = String(command[..<equals])
                variables[name] = try shell(command + "; printf '%s' \"$\(name)\"", in: workspace)
                continue
            }
            let output = try shell(command, in: workspace)
            // curl's answers end without a newline; the document shows the next command below.
            printed += output.isEmpty || output.hasSuffix("\n") ? output : output + "\n"
        }
        compare(printed, with: block, includingCommands: true)
    }

    /// `command` through `/bin/sh` in the workspace, standard error with standard output.
    private func shell(_ command: String, in workspace: Workspace) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command + " 2>&1"]
        process.currentDirectoryURL = workspace.root
        var environment = ProcessInfo.processInfo.environment
        environment["REALM_HOST_DATA"] = nil
        environment["NO_COLOR"] = "1"
        for (name, value) in variables { environment[name] = value }
        environment["PATH"] =
            CLI.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    private func compare(_ actual: String, with block: DocTranscript.Block, includingCommands: Bool = false) {
        let expected = DocTranscript.normalized(block.output.joined(separator: "\n"))
        let got = DocTranscript.normalized(actual)
        let same = expected.count == got.count && zip(expected, got).allSatisfy { DocTranscript.matches($1, $0) }
        guard !same else { return }
        let pairs = zip(expected + [""], got + [""]).enumerated()
        let (index, (want, have)) =
            pairs.first { !DocTranscript.matches($0.element.1, $0.element.0) } ?? (0, ("", ""))
        XCTFail(
            "README.md's block at line \(block.line) differs from what the commands print, at its line "
                + "\(index + 1):\n  README: \(want)\n  now:    \(have)\n--- printed (normalized):\n"
                + got.joined(separator: "\n"))
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
            /// Starts `realm-host serve` with these arguments (it runs until the document's end).
            case serve([String])
            /// Needs what the test does not start (a sync server, PostgreSQL, websocat): not run here.
            case needsServer
        }
        /// The block's first line in the document (1-based).
        let line: Int
        /// The heading of the section the block is in.
        var section = ""
        let kind: Kind
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

    private static let serverWords = ["sync-server", "--sync-url", "websocat", "psql", ".ci/postgres"]

    private static func block(_ lines: [String], line: Int) -> Block? {
        guard let first = lines.first, first.hasPrefix("$ ") else { return nil }
        let commands = lines.filter { $0.hasPrefix("$ ") }
        if commands.contains(where: { command in serverWords.contains { command.contains($0) } }) {
            return Block(line: line, kind: .needsServer, output: lines)
        }
        if first.hasPrefix("$ realm-host serve ") {
            let arguments = first.dropFirst("$ realm-host serve ".count).split(separator: " ").map(String.init)
            return Block(line: line, kind: .serve(arguments), output: lines)
        }
        guard lines.dropFirst().contains(where: { prompt(of: $0) != nil }) else {
            return Block(line: line, kind: .shell, output: lines)
        }
        // `$ swift run -c release realm-host ARGS` or `$ realm-host ARGS`: the REPL's arguments.
        var words = first.dropFirst(2).split(separator: " ").map(String.init)
        if let start = words.firstIndex(of: "realm-host") { words = Array(words[(start + 1)...]) }
        return Block(line: line, kind: .repl(words), output: Array(lines.dropFirst()))
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
