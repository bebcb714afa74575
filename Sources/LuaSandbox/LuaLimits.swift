/// The limits a `LuaState` applies to script code.
///
/// The memory cap applies to the whole state at all times while script code runs (host code,
/// including Swift callbacks, is never refused memory so no allocation error can unwind Swift
/// frames). The instruction budget and the time limit apply to one *outermost* call
/// (`execute`, `call`, or `LuaFunctionRef` calls made while no script is running); calls made
/// back into Lua from a Swift callback share the budget and deadline of the call that is
/// already running.
public struct LuaLimits: Sendable, Equatable {
    /// Bytes the state may allocate; `nil` means unlimited. Default 256 MiB.
    public var memory: Int?
    /// Lua VM instructions per outermost call, checked every 1 000 instructions; `nil` means
    /// unlimited (the default: the time limit is what protects the host).
    public var instructions: Int?
    /// Wall-clock time per outermost call (CLOCK_MONOTONIC); `nil` means none. Default 10 s.
    public var time: Duration?
    /// Bytes of one `print` call passed to the output handler before it is truncated with
    /// "…(N bytes more)". Default 64 KiB.
    public var output: Int

    public static let defaultMemory = 256 * 1024 * 1024
    public static let defaultTime: Duration = .seconds(10)
    public static let defaultOutput = 64 * 1024

    public init(
        memory: Int? = LuaLimits.defaultMemory,
        instructions: Int? = nil,
        time: Duration? = LuaLimits.defaultTime,
        output: Int = LuaLimits.defaultOutput
    ) {
        self.memory = memory
        self.instructions = instructions
        self.time = time
        self.output = output
    }

    /// 256 MiB, no instruction budget, 10 s, 64 KiB per print.
    public static let `default` = LuaLimits()

    var seconds: Double {
        guard let time else { return -1 }
        let (s, atto) = time.components
        return max(0, Double(s) + Double(atto) / 1e18)
    }
}
