/// A failure of the sync store: what failed, and where (file, statement or record).
public struct SyncStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
