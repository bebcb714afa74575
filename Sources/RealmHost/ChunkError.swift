import LuaSandbox
import RealmDatabase

/// Why a chunk run through a `TenantSession` failed, with the Swift error kept.
public struct ChunkError: Error, CustomStringConvertible {
    /// The kinds a front end reports differently.
    public enum Kind: String, Sendable {
        /// The chunk does not compile.
        case syntax
        /// The chunk raised an error, or the database refused what it asked (a `RealmError`, …).
        case runtime
        /// The chunk ran out of memory, time or instructions.
        case limit
        /// The chunk was cancelled (Ctrl-C).
        case interrupted
    }

    public let kind: Kind
    /// The error as thrown (`LuaError`, `RealmError`, `HostError`, …).
    public let underlying: Error
    /// A write transaction that was open before the chunk ran (begun by an earlier chunk) was
    /// rolled back because the chunk failed.
    public let rolledBackEarlierWrite: Bool

    public init(_ underlying: Error, rolledBackEarlierWrite: Bool = false) {
        self.underlying = underlying
        self.rolledBackEarlierWrite = rolledBackEarlierWrite
        kind = ChunkError.kind(of: underlying)
    }

    static func kind(of error: Error) -> Kind {
        guard let lua = error as? LuaError else { return .runtime }
        switch lua.kind {
        case .syntax: return .syntax
        case .interrupted: return .interrupted
        case .memory, .timeLimit, .instructionLimit: return .limit
        case .runtime, .sandbox: return .runtime
        }
    }

    /// The database error behind the failure, if the chunk failed because the database refused
    /// something: thrown directly, or raised through Lua (where `LuaError.underlying` keeps it).
    /// Front ends use it to report the error's code precisely instead of matching message text.
    public var realmError: RealmError? {
        if let realm = underlying as? RealmError { return realm }
        return (underlying as? LuaError)?.underlying as? RealmError
    }

    /// The underlying error's message.
    public var description: String { "\(underlying)" }
}
