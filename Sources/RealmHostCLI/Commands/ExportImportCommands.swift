import ArgumentParser
import Foundation
import RealmHost

/// `realm-host export --user NAME [--format json]`: a JSON dump of a user's realm.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Dump a user's realm as JSON (every type round-trips through import).",
        discussion: "The dump goes to standard output, or to --output FILE."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case json }

    @OptionGroup var host: HostFlags

    @Option(name: .long, help: ArgumentHelp("The user.", valueName: "name"))
    var user = "default"

    @Option(name: .long, help: "The format of the dump (json).")
    var format: Format = .json

    @Option(
        name: [.short, .long],
        help: ArgumentHelp("Write the dump to this file rather than standard output.", valueName: "file"))
    var output: String?

    func run() throws {
        try runReportingErrors {
            let user = try checkedUser(self.user)
            let host = try self.host.makeHost()
            guard FileManager.default.fileExists(atPath: try host.fileURL(for: user).path) else {
                throw CLIError.failed(
                    "user '\(user)' has no realm in \(displayPath(host.dataFolder)) (no \(user).realm)")
            }
            var data = try host.exportJSON(user: user)
            if data.last != UInt8(ascii: "\n") { data.append(UInt8(ascii: "\n")) }
            if let output {
                do {
                    try data.write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    throw CLIError.failed("\(output): cannot write the dump: \(error.localizedDescription)")
                }
            } else {
                StandardStreams.out(String(decoding: data, as: UTF8.self))
            }
            return 0
        }
    }
}

/// `realm-host import --user NAME FILE`: loads a JSON dump into a user's realm.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Load a JSON dump (from export) into a user's realm.",
        discussion:
            "The load is one transaction: if any part of it fails, nothing is kept. Use - to read standard input."
    )

    @OptionGroup var host: HostFlags

    @Option(name: .long, help: ArgumentHelp("The user.", valueName: "name"))
    var user = "default"

    @Argument(help: ArgumentHelp("The JSON dump.", valueName: "file"))
    var file: String

    func run() throws {
        try runReportingErrors {
            let user = try checkedUser(self.user)
            let data: Data
            do {
                data =
                    file == "-"
                    ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CLIError.failed("\(file): cannot read the dump: \(error.localizedDescription)")
            }
            let host = try self.host.makeHost()
            try host.importJSON(user: user, data: data)
            StandardStreams.line("Imported \(file == "-" ? "standard input" : file) into user '\(user)'.")
            return 0
        }
    }
}
