import CLuaShim

/// A Swift function callable from Lua. It reads its arguments and pushes its results through the
/// context and returns how many results it pushed (`return try ctx.returning(...)` does both).
/// A thrown error becomes a Lua error, raised by C after the closure has returned: see
/// `LuaCallContext`.
///
/// Closures are kept alive by the state (in a userdata owned by the Lua function) and released
/// when Lua collects the function or the state closes. Do not capture the `LuaState` strongly:
/// use `ctx.state`, or the state and the closure keep each other alive.
public typealias LuaFunction = (LuaCallContext) throws -> Int

final class LuaFunctionBox {
    let body: LuaFunction
    init(_ body: @escaping LuaFunction) { self.body = body }
}

/// One sandboxed Lua 5.4 state.
///
/// Not thread-safe and not `Sendable`: use it from one thread (or one actor) at a time. Only
/// `cancelHandle` may be used from elsewhere. Every entry into Lua is a protected call under the
/// limits (see `LuaLimits`), so script errors, memory exhaustion, time and instruction limits
/// and cancellation all come back as a thrown `LuaError` and leave the state usable.
///
/// The globals are Lua's base library (without `dofile`, `loadfile`, `require`; with guarded
/// `load`, `setmetatable` and `collectgarbage`, and a `print` that writes to `outputHandler`),
/// and `table`, `string` (without `dump`, with guarded pattern functions), `math`, `utf8`,
/// `coroutine` and `os` with `time`, `clock` and `date` only. See docs/LUA-SANDBOX.md.
public final class LuaState {
    let control: LuaControl
    private var mainThread: OpaquePointer?
    /// The thread Swift works on: the main thread, or during a Swift callback the coroutine
    /// that called it.
    var current: OpaquePointer?
    /// Protected calls in progress; 0 means no script is running.
    var depth = 0
    var userdataTypes: [ObjectIdentifier: String] = [:]
    var userdataNames: Set<String> = []
    var userdataMembers: [String: LuaTypeMembers] = [:]
    /// The last value `errorValue` made and the Swift error it stands for: when that value ends a
    /// call, the thrown LuaError carries the Swift error again (`underlying`). Cleared when the
    /// outermost call returns.
    private var lastHostError: (value: LuaValue, error: any Error)?
    private var globalsRef: LuaTableRef?

    /// Nesting of host -> Lua -> host calls allowed before the host refuses (each level costs
    /// C and Swift stack; Lua itself stops at 200 C levels).
    public static let maxCallDepth = 64

    /// Receives each `print` call's text (arguments joined by tabs, no newline), truncated at
    /// `limits.output`. Nil discards the output.
    public var outputHandler: ((String) -> Void)?
    /// Receives each complete `warn` message. Nil discards warnings.
    public var warningHandler: ((String) -> Void)?
    /// Turns a Swift error thrown by a host function (other than a `LuaError`) into the value Lua
    /// raises, given the position of the calling Lua code (`"chunk:line: "`). Nil, or a nil
    /// result, raises the string `position + String(describing: error)`. A host uses this to give
    /// scripts structured errors (`e.code`, `e.message`).
    public var errorValue: ((_ error: any Error, _ position: String) -> LuaValue?)?

    /// The limits for the next outermost call. The memory cap applies at once.
    public var limits: LuaLimits {
        didSet { applyLimits() }
    }

    /// Creates a state. Throws `.memory` if Lua cannot allocate it.
    public init(limits: LuaLimits = .default) throws {
        guard let control = LuaControl() else { throw LuaError(.memory, "cannot allocate a Lua state") }
        self.control = control
        self.limits = limits
        guard let L = rh_newstate(control.raw) else { throw LuaError(.memory, "cannot create a Lua state") }
        mainThread = L
        current = L
        rh_control_set_callbacks(
            control.raw, luaSandboxDispatch, luaSandboxRelease, luaSandboxOutput, luaSandboxWarning)
        rh_control_set_host(control.raw, Unmanaged.passUnretained(self).toOpaque())
        applyLimits()
        rh_lua_pushglobaltable(L)
        globalsRef = LuaTableRef(control: control, ref: luaL_ref(L, rh_lua_registryindex()))
    }

    deinit { close() }

    /// Closes the Lua state: host objects and Swift closures it holds are released now.
    /// Later calls throw; references become inert. Called by deinit. Does nothing while a script
    /// runs (from inside a Swift callback): Lua cannot be closed under its own feet.
    public func close() {
        guard depth == 0, let L = mainThread else { return }
        rh_control_mark_closed(control.raw)
        mainThread = nil
        current = nil
        globalsRef = nil
        lua_close(L)
    }

    public var isClosed: Bool { mainThread == nil }
    /// True while a script runs (inside a Swift callback, for example).
    public var isRunning: Bool { depth > 0 }

    private func applyLimits() {
        // C takes 0 as "unlimited"; a requested cap of 0 means "nothing more", i.e. 1 byte.
        let cap = limits.memory.map { max(1, $0) } ?? 0
        rh_control_set_memory_limit(control.raw, cap)
        rh_control_set_output_limit(control.raw, max(0, limits.output))
    }

    /// Runs `body` with other limits, then restores the previous ones. Time and instruction
    /// limits take effect for outermost calls made inside `body`.
    public func withLimits<R>(_ limits: LuaLimits, _ body: () throws -> R) rethrows -> R {
        let saved = self.limits
        self.limits = limits
        defer { self.limits = saved }
        return try body()
    }

    /// Bytes currently allocated by the state (the figure the memory cap applies to).
    public var memoryInUse: Int { Int(rh_control_memory_used(control.raw)) }

    /// A handle that can cancel the running call from any thread.
    public var cancelHandle: LuaCancelHandle { LuaCancelHandle(control: control) }

    /// Stops the running call (same as `cancelHandle.cancel()`).
    public func cancel() { rh_control_cancel(control.raw) }

    /// A full garbage collection. Host objects no longer referenced by Lua are released.
    public func collectGarbage() {
        guard let L = current else { return }
        rh_control_drain_unrefs(control.raw, L)
        rh_gc_collect(L)
    }

    func thread() throws -> OpaquePointer {
        guard let L = current else { throw LuaError(.runtime, "the Lua state is closed") }
        return L
    }

    // MARK: - Running code

    /// Compiles `code` (text only) into a function. `chunkName` names it in messages: use
    /// `@path/to/file.lua` for files and `=repl:N` for REPL lines. The chunk's `_ENV` is
    /// `environment` when given, else the globals.
    public func load(_ code: String, chunkName: String, environment: LuaTableRef? = nil) throws -> LuaFunctionRef {
        try load(bytes: Array(code.utf8), chunkName: chunkName, environment: environment)
    }

    /// `load` for source bytes that are not necessarily UTF-8. Binary chunks are refused.
    public func load(bytes: [UInt8], chunkName: String, environment: LuaTableRef? = nil) throws -> LuaFunctionRef {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        if bytes.first == 0x1B {
            throw LuaError(.sandbox, "\(displayName(chunkName)): binary chunks are not allowed in the sandbox")
        }
        try ensureStack(L, 2)
        rh_control_drain_unrefs(control.raw, L)
        let saved = rh_control_enforce(control.raw)
        rh_control_set_enforce(control.raw, 1)
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                luaL_loadbufferx(L, chars.baseAddress, chars.count, chunkName, "t")
            }
        }
        rh_control_set_enforce(control.raw, saved)
        if status != LUA_OK {
            rh_unpack_error(L)
            let message = stringLossy(L, -2)
            var error = LuaError(status == LUA_ERRMEM ? .memory : .syntax, message)
            error.fromLua = true
            throw error
        }
        if let environment {
            try push(L, .table(environment))
            guard lua_setupvalue(L, -2, 1) != nil else { throw LuaError(.runtime, "chunk has no _ENV upvalue") }
        }
        return LuaFunctionRef(control: control, ref: luaL_ref(L, rh_lua_registryindex()))
    }

    /// Compiles and runs `code`, returning what the chunk returns.
    @discardableResult
    public func execute(_ code: String, chunkName: String, environment: LuaTableRef? = nil) throws -> [LuaValue] {
        try call(load(code, chunkName: chunkName, environment: environment))
    }

    /// Calls a function with arguments, returning all its results.
    @discardableResult
    public func call(_ function: LuaFunctionRef, _ arguments: [LuaValue] = []) throws -> [LuaValue] {
        try call(value: .function(function), arguments)
    }

    /// Calls any callable value (a function, or a table or userdata with `__call`).
    @discardableResult
    public func call(value function: LuaValue, _ arguments: [LuaValue] = []) throws -> [LuaValue] {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try ensureStack(L, arguments.count + 4)
        try push(L, function)
        for argument in arguments { try push(L, argument) }
        try protectedCall(L, arguments: arguments.count, results: rh_lua_multret())
        let end = lua_gettop(L)
        guard end > top else { return [] }
        return ((top + 1)...end).map { value(L, at: $0) }
    }

    /// Calls a function with two host objects (nil: Lua nil) pushed straight as userdata of
    /// `typeName`, dropping its results: no registry reference and no array per call, for a
    /// callback called once per row (a migration block). Errors as `call`'s.
    public func call(_ function: LuaFunctionRef, userdata a: AnyObject?, _ b: AnyObject?, typeName: String) throws {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try ensureStack(L, 6)
        try pushRef(L, function)
        func push(_ object: AnyObject?) throws {
            guard let object else { return lua_pushnil(L) }
            // rh_push_object checks the type's metatable itself: no lookup of the name in Swift.
            let retained = Unmanaged.passRetained(object).toOpaque()
            guard rh_push_object(L, retained, typeName) != 0 else {
                Unmanaged<AnyObject>.fromOpaque(retained).release()
                throw LuaError(.runtime, "no userdata type named '\(typeName)' is registered")
            }
        }
        try push(a)
        try push(b)
        try protectedCall(L, arguments: 2, results: 0)
    }

    /// Calls the global function `name`.
    @discardableResult
    public func call(global name: String, _ arguments: [LuaValue] = []) throws -> [LuaValue] {
        try call(value: global(name), arguments)
    }

    /// lua_pcall under the limits with the traceback handler. The function and arguments are on
    /// top of `L`; on success the results replace them, on failure everything is popped.
    func protectedCall(_ L: OpaquePointer, arguments: Int, results: Int32) throws {
        rh_control_drain_unrefs(control.raw, L)
        guard depth < Self.maxCallDepth else {
            lua_settop(L, -Int32(arguments) - 2)
            throw LuaError(.runtime, "too many nested calls between Lua and the host")
        }
        let outermost = depth == 0
        if outermost {
            rh_control_arm(control.raw, limits.instructions.map { Int64($0) } ?? -1, limits.seconds)
        }
        depth += 1
        let savedEnforce = rh_control_enforce(control.raw)
        rh_control_set_enforce(control.raw, 1)
        let status = rh_pcall_traced(L, Int32(arguments), results)
        rh_control_set_enforce(control.raw, savedEnforce)
        depth -= 1
        let tripped = rh_control_tripped(control.raw)
        if outermost { rh_control_disarm(control.raw) }
        if status != LUA_OK {
            var error = popError(L, status: status, tripped: tripped)
            error.underlying = hostError(raising: error.value, in: L)
            if outermost { lastHostError = nil }
            throw error
        }
        if outermost { lastHostError = nil }
        if outermost && tripped != RH_TRIP_NONE {
            // The script caught the stop (coroutine.resume, a Swift callback) and returned before
            // running another instruction: the call still failed.
            let (kind, message) = Self.tripDescription(tripped)
            throw LuaError(kind, message)
        }
    }

    static func tripDescription(_ tripped: Int32) -> (LuaError.Kind, String) {
        switch tripped {
        case RH_TRIP_TIME: return (.timeLimit, "script exceeded its time limit")
        case RH_TRIP_INSTRUCTIONS: return (.instructionLimit, "script exceeded its instruction limit")
        default: return (.interrupted, "interrupted")
        }
    }

    /// Turns the error on top of `L` into a LuaError and pops it.
    private func popError(_ L: OpaquePointer, status: Int32, tripped: Int32) -> LuaError {
        rh_unpack_error(L)
        let value = self.value(L, at: -3)
        let message = stringLossy(L, -2)
        let traceback = lua_type(L, -1) == LUA_TSTRING ? stringLossy(L, -1) : nil
        let sandbox = rh_is_sandbox_error(L, -3) != 0
        lua_settop(L, -4)
        let kind: LuaError.Kind
        switch tripped {
        case RH_TRIP_TIME: kind = .timeLimit
        case RH_TRIP_INSTRUCTIONS: kind = .instructionLimit
        case RH_TRIP_INTERRUPTED: kind = .interrupted
        default:
            if status == LUA_ERRMEM || value == .string("not enough memory") {
                kind = .memory
            } else if sandbox {
                kind = .sandbox
            } else {
                kind = .runtime
            }
        }
        var error = LuaError(kind, message, traceback: traceback, value: value)
        error.fromLua = true
        return error
    }

    // MARK: - Globals and tables

    /// The globals table (`_G`).
    public var globals: LuaTableRef {
        get throws {
            guard let globalsRef, !isClosed else { throw LuaError(.runtime, "the Lua state is closed") }
            return globalsRef
        }
    }

    /// A global's value (raw read), `.nil` when absent or when the state is closed.
    public func global(_ name: String) -> LuaValue {
        guard let table = try? globals else { return .nil }
        return (try? get(table, .string(name))) ?? .nil
    }

    /// Sets a global (raw write). `.nil` removes it.
    public func setGlobal(_ name: String, _ value: LuaValue) throws {
        try set(globals, .string(name), value)
    }

    /// A new empty table.
    public func newTable() throws -> LuaTableRef {
        let L = try thread()
        try ensureStack(L, 1)
        lua_createtable(L, 0, 0)
        return LuaTableRef(control: control, ref: luaL_ref(L, rh_lua_registryindex()))
    }

    /// A fresh environment for a chunk: an empty table whose `__index` is `base` (the globals by
    /// default). Top-level assignments of chunks loaded with it stay in it, reads fall through
    /// to the base. Use one per REPL session, one per plugin.
    public func makeEnvironment(inheriting base: LuaTableRef? = nil) throws -> LuaTableRef {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try ensureStack(L, 4)
        lua_createtable(L, 0, 0)
        lua_createtable(L, 0, 1)
        try push(L, .table(base ?? globals))
        lua_setfield(L, -2, "__index")
        lua_setmetatable(L, -2)
        return LuaTableRef(control: control, ref: luaL_ref(L, rh_lua_registryindex()))
    }

    /// `table[key]` without metamethods.
    public func get(_ table: LuaTableRef, _ key: LuaValue) throws -> LuaValue {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try ensureStack(L, 2)
        try push(L, .table(table))
        try push(L, key)
        lua_rawget(L, -2)
        return value(L, at: -1)
    }

    /// `table[key] = value` without metamethods. Keys may not be nil or NaN.
    public func set(_ table: LuaTableRef, _ key: LuaValue, _ value: LuaValue) throws {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try checkKey(key)
        try ensureStack(L, 3)
        try push(L, .table(table))
        try push(L, key)
        try push(L, value)
        lua_rawset(L, -3)
    }

    /// The raw length (`rawlen`) of a table.
    public func length(_ table: LuaTableRef) throws -> Int {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try push(L, .table(table))
        return Int(lua_rawlen(L, -1))
    }

    /// A deep copy of a table (raw contents, metatables ignored). Nested tables become
    /// `.plainTable` values; functions and userdata stay references. Throws for cycles and for
    /// nesting deeper than `maxDepth`.
    public func copy(_ table: LuaTableRef, maxDepth: Int = 32) throws -> LuaTable {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try push(L, .table(table))
        var visiting: Set<UnsafeRawPointer> = []
        return try copyTable(L, at: -1, depth: maxDepth, visiting: &visiting)
    }

    /// Whether two values are the same Lua value (`rawequal`).
    public func rawEqual(_ a: LuaValue, _ b: LuaValue) throws -> Bool {
        let L = try thread()
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        try ensureStack(L, 2)
        try push(L, a)
        try push(L, b)
        return lua_rawequal(L, -1, -2) != 0
    }

    // MARK: - Host functions

    /// Wraps a Swift closure as a Lua function.
    public func makeFunction(_ body: @escaping LuaFunction) throws -> LuaFunctionRef {
        let L = try thread()
        try ensureStack(L, 2)
        pushFunction(L, body)
        return LuaFunctionRef(control: control, ref: luaL_ref(L, rh_lua_registryindex()))
    }

    /// Sets `table[name]` (the globals by default) to a Swift function.
    public func register(_ name: String, in table: LuaTableRef? = nil, _ body: @escaping LuaFunction) throws {
        let function = try makeFunction(body)
        try set(table ?? globals, .string(name), .function(function))
    }

    /// Called by the C trampoline for every Swift function. Swift frames end before any Lua error
    /// is raised: errors are pushed and reported with a RAISE code.
    func dispatch(_ L: OpaquePointer, _ box: LuaFunctionBox) -> Int32 {
        let savedThread = current
        let savedEnforce = rh_control_enforce(control.raw)
        current = L
        rh_control_set_enforce(control.raw, 0)
        defer {
            current = savedThread
            rh_control_set_enforce(control.raw, savedEnforce)
        }
        let base = lua_gettop(L)
        do {
            let n = try box.body(LuaCallContext(state: self, thread: L, argumentCount: Int(base)))
            guard n >= 0, n <= Int(lua_gettop(L)) else {
                throw LuaError(.runtime, "host function returned \(n) results but pushed fewer")
            }
            return Int32(n)
        } catch let error as LuaError {
            pushRaise(L, error)
            return RH_RAISE
        } catch {
            pushRaise(L, hostError(L, error))
            return RH_RAISE
        }
    }

    /// The LuaError a Swift error becomes: the host's error value when `errorValue` gives one.
    private func hostError(_ L: OpaquePointer, _ error: any Error) -> LuaError {
        let message = String(describing: error)
        guard let errorValue, lua_checkstack(L, 2) != 0 else { return LuaError(.runtime, message) }
        let position = callerPosition(L)
        guard let made = errorValue(error, position), (try? push(L, made)) != nil else {
            return LuaError(.runtime, message)
        }
        // A reference, so that the value raised is the very one remembered (a plain table
        // would be pushed anew).
        let value = self.value(L, at: -1)
        lua_settop(L, -2)
        var luaError = LuaError(.runtime, position + message, value: value)
        luaError.underlying = error
        lastHostError = (value, error)
        return luaError
    }

    /// The Swift error behind an error value `errorValue` made, if `value` is that value.
    private func hostError(raising value: LuaValue, in L: OpaquePointer) -> (any Error)? {
        guard let last = lastHostError, !value.isString, lua_checkstack(L, 2) != 0 else { return nil }
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        guard (try? push(L, last.value)) != nil, (try? push(L, value)) != nil else { return nil }
        return lua_rawequal(L, -1, -2) != 0 ? last.error : nil
    }

    /// `"chunk:line: "` of the Lua code that called the running host function. A metamethod
    /// (`dog.name`) is called through the C closure that serves methods first, so when level 1
    /// has no line, the position is level 2's.
    private func callerPosition(_ L: OpaquePointer) -> String {
        for level: Int32 in 1...2 {
            luaL_where(L, level)
            let position = stringLossy(L, -1)
            lua_settop(L, -2)
            if !position.isEmpty { return position }
        }
        return ""
    }

    /// Pushes the value a thrown LuaError raises: its own value when it came from Lua (so
    /// tables and positions survive a rethrow), else its message prefixed with the position.
    private func pushRaise(_ L: OpaquePointer, _ error: LuaError) {
        guard lua_checkstack(L, 3) != 0 else { return }
        if error.fromLua || !error.value.isString {
            if (try? push(L, error.value)) == nil { pushString(L, error.message) }
        } else {
            luaL_where(L, 1)
            pushString(L, error.value.stringValue ?? error.message)
            lua_concat(L, 2)
        }
        if error.kind == .sandbox { rh_mark_sandbox_error(L) }
    }

    func pushFunction(_ L: OpaquePointer, _ body: @escaping LuaFunction) {
        let box = Unmanaged.passRetained(LuaFunctionBox(body)).toOpaque()
        rh_push_swift_function(L, box)
    }
}

extension LuaValue {
    var isString: Bool {
        switch self {
        case .string, .bytes: return true
        default: return false
        }
    }
}

// MARK: - C callbacks (no captures, so they convert to C function pointers)

private let luaSandboxDispatch: rh_dispatch_fn = { L, host, box in
    guard let L, let host, let box else { return 0 }
    let state = Unmanaged<LuaState>.fromOpaque(host).takeUnretainedValue()
    let function = Unmanaged<LuaFunctionBox>.fromOpaque(box).takeUnretainedValue()
    return state.dispatch(L, function)
}

private let luaSandboxRelease: rh_release_fn = { object in
    guard let object else { return }
    Unmanaged<AnyObject>.fromOpaque(object).release()
}

private let luaSandboxOutput: rh_text_fn = { host, text, length in
    guard let host, let text else { return }
    let state = Unmanaged<LuaState>.fromOpaque(host).takeUnretainedValue()
    guard let handler = state.outputHandler else { return }
    handler(String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self))
}

private let luaSandboxWarning: rh_text_fn = { host, text, length in
    guard let host, let text else { return }
    let state = Unmanaged<LuaState>.fromOpaque(host).takeUnretainedValue()
    guard let handler = state.warningHandler else { return }
    handler(String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self))
}
