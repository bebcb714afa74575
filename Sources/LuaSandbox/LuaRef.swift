import CLuaShim

/// Owns the C control block (limits, counters, cancel flag) of one state. Shared by the state,
/// its references and its cancel handles so each of them can outlive the state safely.
final class LuaControl: @unchecked Sendable {
    // @unchecked: the pointer is only dereferenced by C functions that are either thread-safe
    // (cancel, defer_unref: atomic or mutex) or called from the state's own thread.
    let raw: OpaquePointer

    init?() {
        guard let raw = rh_control_new() else { return nil }
        self.raw = raw
    }

    deinit { rh_control_free(raw) }
}

/// A reference to a Lua value that lives in a state (a registry slot). The value stays alive
/// while the reference does. Use it with the `LuaState` that created it: operations go through
/// the state (`state.call`, `state.get`, `state.copy`, ...). Dropping a reference on any thread
/// is safe: the slot is queued and released by the state on its next call.
///
/// Equality is identity of the reference object, not of the Lua value: two references to the
/// same table compare unequal (`LuaState.rawEqual` compares the values).
public class LuaRef: @unchecked Sendable, Hashable, CustomStringConvertible {
    // @unchecked: immutable after init; deinit only touches the thread-safe unref queue.
    let control: LuaControl
    let ref: Int32

    init(control: LuaControl, ref: Int32) {
        self.control = control
        self.ref = ref
    }

    deinit {
        if ref > 0 { rh_control_defer_unref(control.raw, ref) }
    }

    public static func == (a: LuaRef, b: LuaRef) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var description: String { "\(Self.self)(\(ref))" }
}

/// A live Lua table.
public final class LuaTableRef: LuaRef, @unchecked Sendable {}
/// A Lua function (Lua or host); call it with `LuaState.call`.
public final class LuaFunctionRef: LuaRef, @unchecked Sendable {}
/// A full userdata (host objects pushed with `pushUserdata` are userdata).
public final class LuaUserdataRef: LuaRef, @unchecked Sendable {}
/// A coroutine or a light userdata: kept, passed back, not inspected.
public final class LuaOpaqueRef: LuaRef, @unchecked Sendable {}

/// Stops the script running in a state from any thread (a Ctrl-C handler, a watchdog).
///
/// `cancel()` sets an atomic flag that the state's hook checks every 1 000 instructions; the
/// running outermost call then fails with `LuaError.Kind.interrupted`. The flag is cleared when
/// the next outermost call starts, so a cancel while no script runs has no effect.
public struct LuaCancelHandle: Sendable {
    let control: LuaControl
    public func cancel() { rh_control_cancel(control.raw) }
}
