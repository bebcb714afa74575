import ArgumentParser
import Foundation
import RealmHost

/// `realm-host users`: the tenants with their schema version, object counts, file size and sync state.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract:
            "List the users with a realm in the data folder: schema version, objects, file size, sync state "
            + "(local, synced, N pending)."
    )

    @OptionGroup var host: HostFlags

    func run() throws {
        try runReportingErrors {
            let host = try self.host.makeHost()
            let style = Style(enabled: Terminal.colourAllowed(onTerminal: Terminal.outputIsTerminal))
            StandardStreams.line(try UsersTable.render(host, style: style))
            return 0
        }
    }
}

/// The users table (also the REPL's `.users`).
enum UsersTable {
    static func render(_ host: TenantHost, current: String? = nil, style: Style) throws -> String {
        let users = try host.users()
        guard !users.isEmpty else { return "No users in \(displayPath(host.dataFolder))." }
        var table = TextTable(
            headers: ["user", "version", "objects", "size", "sync", "classes"], rightAligned: [1, 2, 3])
        table.maxCellWidth = 80
        for u in users {
            let name = u.name == current ? u.name + " *" : u.name
            if let error = u.error {
                table.rows.append([name, "?", "?", formatBytes(u.fileSize), u.syncState, "unreadable: " + error])
                continue
            }
            let total = u.objectCounts.values.reduce(0, +)
            let classes = u.objectCounts.sorted { $0.key < $1.key }.filter { $0.value > 0 }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            table.rows.append([name, "\(u.schemaVersion)", "\(total)", formatBytes(u.fileSize), u.syncState, classes])
        }
        return table.render(style: style)
    }
}
