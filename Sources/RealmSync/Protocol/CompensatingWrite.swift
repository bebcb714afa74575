/// A write the server refused by the permissions (docs/SYNC.md "Rules in the plugin"): it kept the
/// object as it had it, and tells the writer which object and why (realm-core's
/// `CompensatingWriteErrorInfo`, error 231). The writer reports it once it has integrated
/// `serverVersion`, where the server's state of the object reaches it.
public struct CompensatingWrite: Hashable, Sendable {
    public var object: ObjectRef
    /// Why, in words the user can act on: the class, the key and the rule that refused it.
    public var reason: String
    /// The server version of the changeset the refused write came in.
    public var serverVersion: UInt64

    public init(object: ObjectRef, reason: String, serverVersion: UInt64) {
        self.object = object
        self.reason = reason
        self.serverVersion = serverVersion
    }
}
