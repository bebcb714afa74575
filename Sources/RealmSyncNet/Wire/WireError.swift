/// A frame refused: what was wrong and where, in words that can go in a close reason or a log.
public struct WireError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// Over `WireLimits` (frame, head or inflated body).
        case tooLarge
        /// The head line is missing, not ASCII, or a field does not parse.
        case badHead
        /// A protocol version this build does not speak.
        case unsupportedVersion
        /// The body's length is not what the head says.
        case lengthMismatch
        /// The deflated body does not inflate to what the head says.
        case badDeflate
        /// The body does not decode, or disagrees with the head (kind, session).
        case badMessage
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "wire frame refused (\(kind.rawValue)): \(message)" }
}
