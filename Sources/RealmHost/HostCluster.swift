/// The hosts that share the users between them, and which of them this one is.
///
/// A user is served by exactly one host, chosen by rendezvous (highest-random-weight) hashing: each
/// host gets a weight for the user from `ClusterHash` and the highest wins (equal weights: the host
/// whose name sorts first by its UTF-8 bytes). Every machine with the same host list computes the
/// same answer whatever the list's order, and adding a host moves only the users the new host
/// wins, about 1/N of them; removing one moves only its own users.
public struct HostCluster: Sendable, Equatable {
    /// The hosts' names, as configured.
    public let hosts: [String]
    /// This host's name; nil when the cluster only describes the hosts (`which-host`), and then this
    /// process serves no user.
    public let selfName: String?

    /// The longest host name, in UTF-8 bytes.
    public static let maximumNameLength = 255

    /// Checks the names: at least one host, each named once, no name empty, too long, or holding a
    /// comma (the flag's separator), whitespace or a control character; `selfName` among them.
    public init(hosts: [String], selfName: String?) throws {
        guard !hosts.isEmpty else { throw HostError.configuration("the cluster lists no hosts") }
        for name in hosts { try HostCluster.validate(name) }
        var seen = Set<String>()
        for name in hosts where !seen.insert(name).inserted {
            throw HostError.configuration("the cluster lists host '\(name)' twice")
        }
        if let selfName, !seen.contains(selfName) {
            throw HostError.configuration(
                "this host '\(selfName)' is not one of the cluster's hosts (\(hosts.joined(separator: ", ")))")
        }
        self.hosts = hosts
        self.selfName = selfName
    }

    /// The cluster of `options`: nil when no hosts are listed (then every user is served here).
    init?(options: HostClusterOptions) throws {
        guard let hosts = options.hosts else {
            if let selfName = options.selfName {
                throw HostError.configuration(
                    "this host is named '\(selfName)' (cluster.self or --cluster-self) but no cluster hosts are "
                        + "listed (cluster.hosts or --cluster-hosts)")
            }
            return nil
        }
        try self.init(hosts: hosts, selfName: options.selfName)
    }

    /// The host that serves `user`.
    public func host(for user: String) -> String {
        var best = hosts[hosts.startIndex]
        var bestWeight = ClusterHash.weight(host: best, user: user)
        for host in hosts.dropFirst() {
            let weight = ClusterHash.weight(host: host, user: user)
            if weight > bestWeight || (weight == bestWeight && host.utf8.lexicographicallyPrecedes(best.utf8)) {
                best = host
                bestWeight = weight
            }
        }
        return best
    }

    /// Whether this host serves `user`.
    public func servesHere(_ user: String) -> Bool { selfName != nil && host(for: user) == selfName }

    /// Throws `HostError.servedElsewhere` unless this host serves `user`.
    public func checkServesHere(_ user: String) throws {
        let owner = host(for: user)
        guard owner == selfName else {
            throw HostError.servedElsewhere(user: user, host: owner, thisHost: selfName)
        }
    }

    static func validate(_ name: String) throws {
        func bad(_ why: String) -> HostError {
            HostError.configuration(
                "invalid cluster host name '\(name.debugDescription.dropFirst().dropLast())': \(why)")
        }
        guard !name.isEmpty else { throw bad("it is empty") }
        guard name.utf8.count <= maximumNameLength else { throw bad("it is longer than \(maximumNameLength) bytes") }
        for scalar in name.unicodeScalars {
            if scalar == "," { throw bad("it contains a comma") }
            if scalar.properties.isWhitespace { throw bad("it contains whitespace") }
            if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
                throw bad("it contains a control or invisible character")
            }
        }
    }
}

/// The cluster as configured: `--cluster-hosts`/`--cluster-self`, or `cluster = { hosts =, self = }`
/// in `host.lua` (each flag wins over its field). Checked when the host starts (`HostCluster`).
public struct HostClusterOptions: Sendable, Equatable {
    /// Every host's name; nil: no cluster, this host serves every user.
    public var hosts: [String]?
    /// This host's name among them.
    public var selfName: String?

    public init(hosts: [String]? = nil, selfName: String? = nil) {
        self.hosts = hosts
        self.selfName = selfName
    }

    /// The checked cluster, nil without hosts.
    public func resolved() throws -> HostCluster? { try HostCluster(options: self) }
}
