import ArgumentParser
import Foundation
import RealmHost

/// `realm-host plugin …`: plugin tools.
struct PluginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: "Plugin tools.",
        subcommands: [PluginTestCommand.self]
    )
}

/// `realm-host plugin test DIR`: runs a plugin's tests/*.lua.
struct PluginTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run a plugin's tests (its tests/*.lua), each against a fresh realm.",
        discussion: "Exits with status 1 when a test fails."
    )

    @Argument(help: ArgumentHelp("The plugin's folder (with plugin.lua).", valueName: "dir"))
    var folder: String

    func run() throws {
        try runReportingErrors {
            let url = URL(fileURLWithPath: folder, isDirectory: true).standardizedFileURL
            guard FileManager.default.fileExists(atPath: url.appendingPathComponent("plugin.lua").path) else {
                throw CLIError.failed("\(folder): not a plugin folder (no plugin.lua)")
            }
            // The runner prints each test and the "N passed, M failed" summary.
            let report = try PluginTestRunner.run(pluginFolder: url, output: { StandardStreams.line($0) })
            return report.failed > 0 ? 1 : 0
        }
    }
}
