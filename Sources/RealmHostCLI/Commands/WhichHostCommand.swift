import ArgumentParser
import Foundation
import RealmHost

/// `realm-host which-host USER… [--cluster-hosts a,b,c]`: the host that serves each user.
struct WhichHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "which-host",
        abstract: "Say which host of the cluster serves each user (one line per user: USER → HOST).",
        discussion: """
            Users are assigned to hosts by rendezvous hashing of the user name over the host names \
            (docs/ARCHITECTURE.md, "Spreading users over hosts"): every machine with the same host \
            list gives the same answer. The hosts come from --cluster-hosts, else from the cluster \
            table of host.lua in the data folder. Nothing is opened: the plugins are not loaded.
            """
    )

    // Not `HostFlags`: nothing is opened, so there is no --plugins; --data only locates host.lua.
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The data folder whose host.lua may describe the cluster (default: $REALM_HOST_DATA, else ./data).",
            valueName: "dir"))
    var data: String?

    @OptionGroup var clusterFlags: ClusterFlags

    @Argument(help: ArgumentHelp("The users to look up.", valueName: "user"))
    var users: [String]

    func run() throws {
        try runReportingErrors {
            let names = try users.map(checkedUser)
            let configured: HostCluster?
            do {
                let options = clusterFlags.apply(to: HostOptions(dataFolder: HostOptions.defaultDataFolder(data)))
                configured = try options.applyingConfigurationFile().cluster.resolved()
            } catch {
                throw CLIError.failed("\(error)")
            }
            guard let cluster = configured else {
                throw CLIError.failed(
                    "no cluster is configured: give --cluster-hosts a,b,c or a cluster table in "
                        + "\(displayPath(HostOptions.defaultDataFolder(data)))/host.lua")
            }
            for user in names {
                let served = cluster.host(for: user)
                let mark = served == cluster.selfName ? " (this host)" : ""
                StandardStreams.line("\(user) → \(served)\(mark)")
            }
            return 0
        }
    }
}
