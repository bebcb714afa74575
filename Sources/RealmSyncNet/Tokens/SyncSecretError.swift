/// The shared secret cannot be had: missing, unreadable, too short, or in a file others may read.
/// The message names where it was looked for.
public struct SyncSecretError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
