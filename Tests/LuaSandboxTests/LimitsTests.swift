import Foundation
import LuaSandbox
import XCTest

/// Memory cap, time limit, instruction budget, stack depth, coroutines, pcall loops, cancel.
final class LimitsTests: XCTestCase {
    func testHugeStringHitsMemoryCapAndStateStaysUsable() throws {
        let state = try LuaState(limits: shortLimits)
        let error = expectLuaError {
            try state.execute("local s = string.rep('x', 100 * 1024 * 1024)", chunkName: "=m")
        }
        XCTAssertEqual(error?.kind, .memory)
        XCTAssertEqual(try state.eval("return 1 + 1"), .integer(2))
    }

    func testGrowingTableHitsMemoryCap() throws {
        let state = try LuaState(limits: LuaLimits(memory: 8 * 1024 * 1024, time: .seconds(30)))
        let error = expectLuaError { try state.execute("t = {} for i = 1, 1e8 do t[i] = i end", chunkName: "=m") }
        XCTAssertEqual(error?.kind, .memory)
        try state.execute("t = nil", chunkName: "=m")
        state.collectGarbage()
        XCTAssertLessThan(state.memoryInUse, 1024 * 1024)
        XCTAssertEqual(try state.eval("local t = {} for i = 1, 1000 do t[i] = i end return #t"), .integer(1000))
    }

    func testScriptCanCatchMemoryError() throws {
        let state = try LuaState(limits: shortLimits)
        let values = try state.execute("return pcall(string.rep, 'x', 1e9)", chunkName: "=m")
        XCTAssertEqual(values, [.boolean(false), "not enough memory"])
    }

    func testMemoryInUseIsReported() throws {
        let state = try LuaState()
        let before = state.memoryInUse
        XCTAssertGreaterThan(before, 0)
        try state.execute("big = string.rep('x', 1000000)", chunkName: "=m")
        XCTAssertGreaterThan(state.memoryInUse, before + 900_000)
    }

    func testLimitErrorsSayWhereTheScriptWas() throws {
        let state = try LuaState(limits: shortLimits)
        let time = expectLuaError {
            try state.execute("local n = 0\nwhile true do\n  n = n + 1\nend", chunkName: "=loop.lua")
        }
        XCTAssertEqual(time?.kind, .timeLimit)
        XCTAssertTrue(time?.message.hasPrefix("loop.lua:") ?? false, time?.message ?? "")
        XCTAssertTrue(time?.message.hasSuffix("script exceeded its time limit") ?? false, time?.message ?? "")
        let budget = try LuaState(limits: LuaLimits(instructions: 10_000, time: nil))
        let instructions = expectLuaError {
            try budget.execute("local function spin()\n  while true do end\nend\nspin()", chunkName: "=spin.lua")
        }
        XCTAssertEqual(instructions?.kind, .instructionLimit)
        XCTAssertEqual(instructions?.message, "spin.lua:2: script exceeded its instruction limit")
    }

    func testInfiniteLoopHitsTimeLimitAndNextCallRunsNormally() throws {
        let state = try LuaState(limits: shortLimits)
        let error = expectLuaError { try state.execute("while true do end", chunkName: "=loop") }
        XCTAssertEqual(error?.kind, .timeLimit)
        XCTAssertTrue(error?.message.contains("script exceeded its time limit") ?? false, error?.message ?? "")
        XCTAssertEqual(try state.eval("local n = 0 for i = 1, 100000 do n = n + 1 end return n"), .integer(100000))
    }

    func testInstructionBudget() throws {
        let state = try LuaState(limits: LuaLimits(instructions: 1_000_000, time: nil))
        let error = expectLuaError { try state.execute("while true do end", chunkName: "=loop") }
        XCTAssertEqual(error?.kind, .instructionLimit)
        XCTAssertTrue(error?.message.contains("instruction limit") ?? false)
        // A small loop fits in the budget, and each outermost call gets a fresh budget.
        for _ in 0..<3 {
            XCTAssertEqual(
                try state.eval("local n = 0 for i = 1, 10000 do n = n + i end return n"), .integer(50_005_000))
        }
    }

    func testWithLimitsIsTemporary() throws {
        let state = try LuaState(limits: LuaLimits(time: nil))
        let error = state.withLimits(LuaLimits(instructions: 10_000, time: nil)) {
            expectLuaError { try state.execute("for i = 1, 1e6 do end", chunkName: "=t") }
        }
        XCTAssertEqual(error?.kind, .instructionLimit)
        XCTAssertNoThrow(try state.execute("for i = 1, 1e6 do end", chunkName: "=t"))
    }

    func testInfiniteRecursionIsAStackOverflowError() throws {
        // Lua's stack holds 1M slots; frames with many locals reach the limit in fewer calls
        // (a frame-per-slot recursion takes seconds on a busy machine). Generous time limit: the
        // point is the error kind, not speed.
        let state = try LuaState(limits: LuaLimits(time: .seconds(120)))
        let recursion =
            "local function f() local a, b, c, d, e, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u = 1 "
            + "return 1 + f() end return f()"
        let error = expectLuaError { try state.execute(recursion, chunkName: "=r") }
        XCTAssertEqual(error?.kind, .runtime)
        XCTAssertTrue(error?.message.contains("stack overflow") ?? false, error?.message ?? "")
        XCTAssertEqual(try state.eval("return 3"), .integer(3))
        // Recursion through metamethods stops at Lua's C-stack limit.
        let cError = expectLuaError {
            try state.execute(
                "local t = setmetatable({}, {__index = function(t, k) return t[k] end}) return t.x", chunkName: "=r")
        }
        XCTAssertTrue(cError?.message.contains("stack overflow") ?? false, cError?.message ?? "")
    }

    func testRecursionUnderASmallCapIsAMemoryError() throws {
        let state = try LuaState(limits: LuaLimits(memory: 4 * 1024 * 1024, time: .seconds(60)))
        let error = expectLuaError {
            try state.execute("local function f() return 1 + f() end return f()", chunkName: "=r")
        }
        XCTAssertEqual(error?.kind, .memory)
        XCTAssertEqual(try state.eval("return 3"), .integer(3))
    }

    func testCoroutineLoopIsStopped() throws {
        let state = try LuaState(limits: shortLimits)
        let wrapped = expectLuaError {
            try state.execute("coroutine.wrap(function() while true do end end)()", chunkName: "=c")
        }
        XCTAssertEqual(wrapped?.kind, .timeLimit)
        // resume catches the error, but the trip keeps firing in the caller.
        let resumed = expectLuaError {
            try state.execute(
                "local co = coroutine.create(function() while true do end end) return coroutine.resume(co)",
                chunkName: "=c")
        }
        XCTAssertEqual(resumed?.kind, .timeLimit)
        // Coroutines created in an earlier call are still limited.
        try state.execute("co = coroutine.create(function() while true do end end)", chunkName: "=c")
        XCTAssertEqual(expectLuaError { try state.execute("coroutine.resume(co)", chunkName: "=c") }?.kind, .timeLimit)
        XCTAssertEqual(try state.eval("return coroutine.wrap(function() return 5 end)()"), .integer(5))
    }

    func testPcallCannotSwallowTheLimit() throws {
        let state = try LuaState(limits: shortLimits)
        let error = expectLuaError {
            try state.execute("while true do pcall(function() while true do end end) end", chunkName: "=p")
        }
        XCTAssertEqual(error?.kind, .timeLimit)
        let xpcallError = expectLuaError {
            try state.execute(
                "while true do xpcall(function() while true do end end, function(e) while true do end end) end",
                chunkName: "=p")
        }
        XCTAssertEqual(xpcallError?.kind, .timeLimit)
        // A handler that loops would run with hooks off if the stop reached it; it must not run.
        let handlerError = expectLuaError {
            try state.execute(
                "return xpcall(function() error('x') end, function(e) while true do end end)", chunkName: "=p")
        }
        XCTAssertEqual(handlerError?.kind, .timeLimit)
        // xpcall still behaves like xpcall.
        XCTAssertEqual(
            try state.execute(
                "return xpcall(function() error('x', 0) end, function(e) return 'handled ' .. e end)", chunkName: "=p"),
            [.boolean(false), "handled x"])
        XCTAssertEqual(
            try state.eval(
                "local co = coroutine.wrap(function() return xpcall(coroutine.yield, print, 1) end) "
                    + "co() return select(2, co(9))"
            ),
            .integer(9))
    }

    func testNestedCallsShareTheDeadline() throws {
        let state = try LuaState(limits: shortLimits)
        try state.register("reenter") { ctx in
            let f = try ctx.function(1)
            return try ctx.returning(ctx.state.call(f))
        }
        let error = expectLuaError {
            try state.execute("while true do reenter(function() for i = 1, 1000 do end end) end", chunkName: "=n")
        }
        XCTAssertEqual(error?.kind, .timeLimit)
    }

    func testSwiftCallbackCannotSwallowTheLimit() throws {
        let state = try LuaState(limits: shortLimits)
        try state.register("swallow") { ctx in
            _ = try? ctx.state.call(ctx.function(1))
            return 0
        }
        let error = expectLuaError {
            try state.execute("while true do swallow(function() while true do end end) end", chunkName: "=n")
        }
        XCTAssertEqual(error?.kind, .timeLimit)
    }

    func testCancelFromAnotherThread() throws {
        let state = try LuaState(limits: LuaLimits(time: nil))
        let handle = state.cancelHandle
        let done = Flag()
        let thread = Thread {
            while !done.isSet {
                usleep(20_000)
                handle.cancel()
            }
        }
        thread.start()
        let error = expectLuaError { try state.execute("while true do end", chunkName: "=c") }
        done.set()
        XCTAssertEqual(error?.kind, .interrupted)
        XCTAssertTrue(error?.message.contains("interrupted") ?? false)
        usleep(50_000)  // let the canceller thread notice it is done
        XCTAssertEqual(try state.eval("for i = 1, 100000 do end return 'usable'"), "usable")
    }

    func testCancelWhileIdleDoesNotAffectTheNextCall() throws {
        let state = try LuaState(limits: shortLimits)
        state.cancel()
        XCTAssertEqual(try state.eval("for i = 1, 100000 do end return 1"), .integer(1))
    }
}

/// A thread-safe boolean for the cancel test.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
