import ArgumentParser
import Foundation
import RealmHost

/// `--cluster-hosts a,b,c` and `--cluster-self a` (every command that opens the host, and
/// `which-host`): the hosts the users are spread over and which one this is. Either may come from
/// `host.lua`'s `cluster` table instead, so one `host.lua` can be copied to every machine and each
/// started with its own `--cluster-self`.
struct ClusterFlags: ParsableArguments {
    @Option(
        name: .customLong("cluster-hosts"),
        help: ArgumentHelp(
            "The hosts users are spread over, comma-separated; each user is served by one of them "
                + "(default: host.lua's cluster.hosts; none: this host serves every user).",
            valueName: "a,b,c"))
    var hosts: String?

    @Option(
        name: .customLong("cluster-self"),
        help: ArgumentHelp(
            "Which of the cluster's hosts this one is: it opens only the users assigned to it "
                + "(default: host.lua's cluster.self).",
            valueName: "name"))
    var selfName: String?

    /// The host names of `--cluster-hosts`, spaces around the commas allowed.
    var hostNames: [String]? {
        hosts.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(trimmed) }
    }

    func validate() throws {
        do {
            if let hostNames { _ = try HostCluster(hosts: hostNames, selfName: nil) }
        } catch {
            throw ValidationError("--cluster-hosts: \(error).")
        }
        if let selfName, let hostNames, !hostNames.contains(selfName) {
            throw ValidationError(
                "--cluster-self '\(selfName)' is not one of --cluster-hosts (\(hostNames.joined(separator: ", "))).")
        }
    }

    /// The host's options with these flags (host.lua fills in what they leave out).
    func apply(to options: HostOptions) -> HostOptions {
        var options = options
        options.cluster = HostClusterOptions(hosts: hostNames, selfName: selfName)
        return options
    }
}

private func trimmed(_ part: Substring) -> String { part.trimmingCharacters(in: .whitespaces) }
