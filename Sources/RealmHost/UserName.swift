import Foundation

/// Tenant (user) names, checked before any file is touched: a name becomes `<name>.realm` in the
/// data folder, so it must not be able to point anywhere else.
public enum UserName {
    public static let maximumLength = 64

    /// The ASCII characters a name may not contain: the dot, path separators, and what Windows
    /// file systems refuse.
    private static let asciiRefused: Set<UInt8> = Set(#"./\:*?"<>|"#.utf8)

    /// Throws a clear error naming what is wrong with `name`.
    public static func validate(_ name: String) throws {
        func bad(_ why: String) -> HostError {
            HostError.badUserName("Invalid user name '\(name.debugDescription.dropFirst().dropLast())': \(why).")
        }
        guard !name.isEmpty else { throw bad("it is empty") }
        guard name.utf8.count <= maximumLength else { throw bad("it is longer than \(maximumLength) bytes") }
        // The common case: printable ASCII without a space or any character refused below passes
        // every rule (NFC included) without reading Unicode properties, which took a twentieth of
        // a served call.
        if name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !asciiRefused.contains($0) }) { return }
        guard !name.hasPrefix(".") else { throw bad("it starts with a dot") }
        // On Unicode scalars, as the file system sees the name: String.contains compares Characters,
        // and "/" followed by a combining mark is one Character that is not "/" (found by ReliabilityTests).
        guard !name.unicodeScalars.contains(where: { $0 == "/" || $0 == "\\" }) else {
            throw bad("it contains a path separator")
        }
        guard !name.contains("..") else { throw bad("it contains '..'") }
        // `<user>.<name>.realm` is one of user <user>'s extra realms (TenantHost.fileAccessPolicy), so a
        // user "alice.notes" would own a file alice's scripts may open: no dots in user names.
        guard !name.unicodeScalars.contains(".") else { throw bad("it contains a dot") }
        // A leading combining mark joins the "/" before it into one Character, which hides the
        // separator from Foundation's path functions.
        if let first = name.unicodeScalars.first,
            [.nonspacingMark, .spacingMark, .enclosingMark].contains(first.properties.generalCategory)
        {
            throw bad("it starts with a combining mark (U+\(String(first.value, radix: 16, uppercase: true)))")
        }
        for scalar in name.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
                || scalar.properties.generalCategory == .lineSeparator
                || scalar.properties.generalCategory == .paragraphSeparator
            {
                let code = String(scalar.value, radix: 16, uppercase: true)
                throw bad("it contains a control or invisible character (U+\(code))")
            }
            if scalar.properties.isWhitespace && scalar != " " {
                throw bad("it contains whitespace other than a space")
            }
            if ":*?\"<>|".unicodeScalars.contains(scalar) { throw bad("it contains '\(scalar)'") }
        }
        guard name.unicodeScalars.first?.properties.isWhitespace != true,
            name.unicodeScalars.last?.properties.isWhitespace != true
        else {
            throw bad("it starts or ends with a space")
        }
        // Two spellings of one name must not be two tenants: only NFC names are accepted.
        guard name.unicodeScalars.elementsEqual(name.precomposedStringWithCanonicalMapping.unicodeScalars) else {
            throw bad("it is not in Unicode normal form C")
        }
    }
}

/// Errors of the host, with messages that name what and where.
public enum HostError: Error, CustomStringConvertible, Equatable {
    case badUserName(String)
    case plugin(String)
    case configuration(String)
    case io(String)
    /// The host is part of a cluster (`HostCluster`) and another host serves the user; `thisHost` is
    /// nil when the cluster does not say which host this is.
    case servedElsewhere(user: String, host: String, thisHost: String?)

    public var description: String {
        switch self {
        case .badUserName(let m), .plugin(let m), .configuration(let m), .io(let m): return m
        case .servedElsewhere(let user, let host, let thisHost?):
            return "User '\(user)' is served by host '\(host)', not by this host '\(thisHost)'; open it on '\(host)'."
        case .servedElsewhere(let user, let host, nil):
            return "User '\(user)' is served by host '\(host)'; this host is not named in the cluster "
                + "(set cluster.self in host.lua or --cluster-self), so it serves no user."
        }
    }
}
