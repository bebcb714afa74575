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

/// The users table (also the REPL's `.users`). When the host is part of a cluster, a `host` column
/// says which host serves each user, marking those this host does not serve.
enum UsersTable {
    static func render(_ host: TenantHost, current: String? = nil, style: Style) throws -> String {
        let users = try host.users()
        guard !users.isEmpty else { return "No users in \(displayPath(host.dataFolder))." }
        let clustered = host.cluster != nil
        var table = TextTable(
            headers: ["user", "version", "objects", "size", "sync"] + (clustered ? ["host"] : []) + ["classes"],
            rightAligned: [1, 2, 3])
        table.maxCellWidth = 80
        for u in users {
            let name = u.name == current ? u.name + " *" : u.name
            let served = clustered ? [servedColumn(u, in: host)] : []
            if let error = u.error {
                table.rows.append(
                    [name, "?", "?", formatBytes(u.fileSize), u.syncState] + served + ["unreadable: " + error])
                continue
            }
            let total = u.objectCounts.values.reduce(0, +)
            let classes = u.objectCounts.sorted { $0.key < $1.key }.filter { $0.value > 0 }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            table.rows.append(
                [name, "\(u.schemaVersion)", "\(total)", formatBytes(u.fileSize), u.syncState] + served + [classes])
        }
        return table.render(style: style)
    }

    /// The host serving the user, marked when it is not this one.
    private static func servedColumn(_ user: UserInfo, in host: TenantHost) -> String {
        guard let servedBy = user.servedBy else { return "" }
        return host.servesHere(user.name) ? servedBy : servedBy + " (not this host)"
    }
}
