import Foundation

/// Which users this host serves when it is part of a cluster (`HostCluster`): every user without one.
extension TenantHost {
    /// Whether this host serves `user` (true without a cluster).
    public func servesHere(_ user: String) -> Bool { cluster?.servesHere(user) ?? true }

    /// Throws `HostError.servedElsewhere`, naming the user and the host that serves it, unless this
    /// host serves `user`. Every path that opens a tenant (`withTenant`, `migrate`) checks it first,
    /// so two hosts of one cluster never hold one user's realm and sessions at once.
    public func checkServesHere(_ user: String) throws { try cluster?.checkServesHere(user) }

    /// The users with a realm in the data folder, split into those this host serves and the others
    /// (`migrate --all-users` migrates the first and counts the second).
    public func userNamesByHost() throws -> (servedHere: [String], servedElsewhere: [String]) {
        let names = try userNames()
        return (names.filter(servesHere), names.filter { !servesHere($0) })
    }
}
