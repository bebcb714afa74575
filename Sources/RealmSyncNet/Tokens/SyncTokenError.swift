/// A token the server refused, and why.
public struct SyncTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: String, Hashable, Sendable {
        /// Not a JWT, or a payload that does not decode.
        case malformed
        /// Signed with another secret, or altered.
        case badSignature
        /// Signed with another algorithm than HS256 (or none).
        case wrongAlgorithm
        /// Past its `exp`, or without one.
        case expired
        /// No `sub`, or an empty one: it names nobody.
        case missingSubject
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "token refused (\(reason.rawValue)): \(message)" }
}
