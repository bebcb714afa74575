/// A write the server refused by the permission rules: it kept its own state of `object` and sends
/// the writer that state (or the object's removal) with this, code 231 (Atlas's compensating write).
public struct CompensatingWrite: Hashable, Sendable {
    public var object: ObjectRef
    /// Why, in words a user can act on: which rule or view refused which write.
    public var reason: String
    /// The server version of the changeset the refused write came in.
    public var serverVersion: UInt64

    public init(object: ObjectRef, reason: String, serverVersion: UInt64) {
        self.object = object
        self.reason = reason
        self.serverVersion = serverVersion
    }
}
