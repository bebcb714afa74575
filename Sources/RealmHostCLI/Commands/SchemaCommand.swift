import ArgumentParser
import Foundation
import RealmDatabase
import RealmHost

/// `realm-host schema --user NAME`: the schema stored in a user's realm.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the schema stored in a user's realm (opened read-only).",
        discussion:
            "With --plugins-schema, print the schema the plugins declare instead (what migrate brings realms to)."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, lua }

    @OptionGroup var host: HostFlags

    @Option(name: .long, help: ArgumentHelp("The user.", valueName: "name"))
    var user = "default"

    @Option(name: .long, help: "table (default) or lua (the notation of a plugin's schema).")
    var format: Format = .table

    @Flag(name: .long, help: "Print the plugins' schema rather than a user's.")
    var pluginsSchema = false

    @Argument(help: ArgumentHelp("Only this class.", valueName: "class"))
    var className: String?

    func run() throws {
        try runReportingErrors {
            let host = try self.host.makeHost()
            let schema: Schema
            let version: UInt64
            if pluginsSchema {
                schema = host.registry.schema
                version = host.registry.schemaVersion
            } else {
                let user = try checkedUser(self.user)
                // Read-only, but another host's user's file may be mid-write there: ask that host.
                try host.checkServesHere(user)
                let url = try host.fileURL(for: user)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    throw CLIError.failed(
                        "user '\(user)' has no realm in \(displayPath(host.dataFolder)) (no \(user).realm)")
                }
                let realm = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))
                schema = realm.schema
                version = realm.schemaVersion
            }
            if let className, schema[className] == nil {
                throw CLIError.failed(
                    "no class '\(className)' in the schema (classes: \(schema.classNames.joined(separator: ", ")))")
            }
            switch format {
            case .table:
                let style = Style(enabled: Terminal.colourAllowed(onTerminal: Terminal.outputIsTerminal))
                StandardStreams.line(style.dim("schema version \(version)"))
                StandardStreams.line(SchemaText.tables(schema, only: className, style: style))
            case .lua:
                let filtered =
                    className.map { name in Schema(schema.objectSchemas.filter { $0.className == name }) } ?? schema
                StandardStreams.line("schemaVersion = \(version)")
                StandardStreams.line(SchemaText.lua(filtered))
            }
            return 0
        }
    }
}
