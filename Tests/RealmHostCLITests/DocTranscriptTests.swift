import Foundation
import XCTest

/// The README's transcripts are what the commands print today: each fenced block that starts with
/// `$ realm-host …` is run, in order, in one workspace (a block may rely on what an earlier one
/// made), and its output compared with the block's, ids and sizes masked. A REPL session (lines
/// with a prompt) runs on a pseudo-terminal, typed line by line; a shell transcript runs each
/// `$` line through `/bin/sh` with `realm-host` on the PATH.
final class DocTranscriptTests: XCTestCase {
    func testTheReadmesTranscriptsAreWhatTheCommandsPrint() throws {
        let text = try String(contentsOf: CLI.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let workspace = try Workspace()
        // The files the transcripts name.
        try workspace.write("script.lua", "print('run')\n")
        var ran = 0
        for block in DocTranscript.blocks(in: text) {
            switch block.kind {
            case .needsServer:
                continue
            case .repl(let arguments):
                try checkREPL(block, arguments: arguments, in: workspace)
            case .shell:
                try checkShell(block, in: workspace)
            }
            ran += 1
        }
        // The REPL session, the migration and the cluster transcripts at least.
        XCTAssertGreaterThanOrEqual(ran, 3)
    }

    private func checkREPL(_ block: DocTranscript.Block, arguments: [String], in workspace: Workspace) throws {
        let repl = try workspace.terminal(arguments)
        let prompts = block.output.enumerated().compactMap { index, line in
            DocTranscript.prompt(of: line).map { (index, $0) }
        }
        guard let first = prompts.first else { return XCTFail("no prompt in the block at line \(block.line)") }
        repl.expect(first.1.prompt)
        for (n, (_, line)) in prompts.enumerated() {
            repl.type(line.input + "\r")
            if n + 1 < prompts.count {
                repl.expect(prompts[n + 1].1.prompt)
            } else {
                _ = repl.waitForExit()
            }
        }
        compare(repl.transcript, with: block)
    }

    private func checkShell(_ block: DocTranscript.Block, in workspace: Workspace) throws {
        var printed = ""
        for line in block.output {
            guard line.hasPrefix("$ ") else { continue }
            printed += line + "\n" + (try shell(String(line.dropFirst(2)), in: workspace))
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
        guard expected != got else { return }
        let pairs = zip(expected + [""], got + [""]).enumerated()
        let (index, (want, have)) = pairs.first { $0.element.0 != $0.element.1 } ?? (0, ("", ""))
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
            /// Needs a running server (`serve`, a sync server, curl against one): not run here.
            case needsServer
        }
        /// The block's first line in the document (1-based).
        let line: Int
        let kind: Kind
        /// The block's lines, the REPL's starting command left out.
        let output: [String]
    }

    /// The fenced blocks whose first line is a `$ ` command.
    static func blocks(in text: String) -> [Block] {
        var blocks: [Block] = []
        var current: [String]?
        var start = 0
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                if let lines = current {
                    if let block = block(lines, line: start) { blocks.append(block) }
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

    private static let serverWords = ["serve", "sync-server", "--sync-url", "curl ", "websocat", "--connect", "TOKEN="]

    private static func block(_ lines: [String], line: Int) -> Block? {
        guard let first = lines.first, first.hasPrefix("$ ") else { return nil }
        let commands = lines.filter { $0.hasPrefix("$ ") }
        if commands.contains(where: { command in serverWords.contains { command.contains($0) } }) {
            return Block(line: line, kind: .needsServer, output: lines)
        }
        guard lines.dropFirst().contains(where: { prompt(of: $0) != nil }) else {
            return Block(line: line, kind: .shell, output: lines)
        }
        // `$ swift run -c release realm-host ARGS` or `$ realm-host ARGS`: the REPL's arguments.
        var words = first.dropFirst(2).split(separator: " ").map(String.init)
        if let start = words.firstIndex(of: "realm-host") { words = Array(words[(start + 1)...]) }
        return Block(line: line, kind: .repl(words), output: Array(lines.dropFirst()))
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
