/// An error from Lua code, from the sandbox, or raised by the host for Lua.
///
/// `message` is what a user should read: for runtime errors it starts with the position
/// (`chunk:line: `), as Lua formats it. The traceback is kept apart so a REPL can show it on
/// demand. `value` is the original error value (a table raised with `error({code = 1})`
/// stays a `.table` reference), so a host can read structured fields and a Swift callback that
/// rethrows a `LuaError` raises the very same value again.
public struct LuaError: Error, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// An error raised by Lua code or a Swift callback.
        case runtime
        /// The code did not compile.
        case syntax
        /// The state's memory cap was reached ("not enough memory").
        case memory
        /// The call ran past `LuaLimits.time`.
        case timeLimit
        /// The call ran past `LuaLimits.instructions`.
        case instructionLimit
        /// `LuaState.cancel()` (or a `LuaCancelHandle`) stopped the call.
        case interrupted
        /// The script tried something the sandbox refuses (a `__gc` metatable, a binary chunk,
        /// a pattern too expensive, a module outside the require root, ...).
        case sandbox
    }

    public var kind: Kind
    /// The message, with `chunk:line: ` in front when Lua knows the position.
    public var message: String
    /// `stack traceback:\n\t...` for errors raised while Lua code ran; nil otherwise.
    public var traceback: String?
    /// The error value as raised. `.string(message)` for errors made by the host.
    public var value: LuaValue
    /// The Swift error a host function threw, when this error began as one: kept so that a host
    /// can report it precisely (its type and code) instead of parsing `message`.
    public var underlying: (any Error)?
    /// Made from a Lua error value (position already in the message): a Swift callback
    /// rethrowing it raises `value` unchanged.
    var fromLua = false

    public init(_ kind: Kind, _ message: String, traceback: String? = nil, value: LuaValue? = nil) {
        self.kind = kind
        self.message = message
        self.traceback = traceback
        self.value = value ?? .string(message)
    }

    /// A runtime error whose value is `value` (for example a table with `code` and `message`
    /// fields). Thrown from a Swift callback, the value itself is raised in Lua.
    public init(raising value: LuaValue, message: String) {
        self.init(.runtime, message, value: value)
    }

    /// True for a syntax error at the end of the input (`for i = 1, 3 do`): a REPL should read
    /// another line and try again, as `lua.c`'s `incomplete()` does.
    public var isIncompleteInput: Bool {
        kind == .syntax && message.hasSuffix("<eof>")
    }

    /// True for the errors after which the host decided to stop the script (limits, cancel).
    public var isLimit: Bool {
        kind == .memory || kind == .timeLimit || kind == .instructionLimit || kind == .interrupted
    }

    public var description: String { message }

    /// The message followed by the traceback, when there is one.
    public var descriptionWithTraceback: String {
        guard let traceback, !traceback.isEmpty else { return message }
        return message + "\n" + traceback
    }
}
