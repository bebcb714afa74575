import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmLua
import XCTest

/// Scripts that try to escape the sandbox, exhaust the host or corrupt data. Each one must end in
/// a clear error (the kind and the words are checked), the host must stay up (the process is
/// still here, and the tenant and its neighbours keep working), and the tenant's realm must be
/// unchanged: same objects, same values, same commit counter, no write left open.
final class HostileScriptTests: ReliabilityTestCase {
    var host: TenantHost!
    /// The time limit of `host`'s scripts, in seconds.
    var timeLimit = 0.25

    override func setUpWithError() throws {
        try super.setUpWithError()
        host = try notesHost(limits: LuaLimits(memory: 32 << 20, instructions: nil, time: .milliseconds(250)))
        for user in ["mallory", "bob"] {
            try host.withTenant(user) { t in
                _ = try t.runtime.execute(
                    """
                    for i = 1, 5 do realm:objects("Note"):append{ owner = user.name, worker = 0, n = i, text = "note " .. i } end
                    """, chunkName: "=setup")
            }
        }
    }

    override func tearDownWithError() throws {
        host = nil
        try super.tearDownWithError()
    }

    /// Memory floods must meet the memory cap, not the time limit, even on a slow, busy machine:
    /// these tests get a host with a longer time limit over the same data.
    func useGenerousTimeLimit() throws {
        host = nil
        timeLimit = 5
        host = try notesHost(limits: LuaLimits(memory: 32 << 20, instructions: nil, time: .seconds(5)))
    }

    /// What the realm holds, to the byte: the JSON dump and the commit counter.
    func snapshot(_ user: String) throws -> (Data, Int64) {
        try host.withTenant(user) { t in (try RealmJSON.export(t.realm), t.realm.version) }
    }

    /// Runs `code` as user `mallory` and returns the error it must end in.
    func hostile(_ code: String, file: StaticString = #filePath, line: UInt = #line) throws -> LuaError? {
        try host.withTenant("mallory") { t -> LuaError? in
            defer {
                XCTAssertFalse(t.runtime.hasOpenWrite, "a write was left open", file: file, line: line)
                XCTAssertFalse(t.realm.isInWriteTransaction, file: file, line: line)
            }
            do {
                let result = try t.runtime.execute(code, chunkName: "=hostile")
                XCTFail("no error; returned \(result)", file: file, line: line)
                return nil
            } catch let error as LuaError {
                return error
            } catch {
                XCTFail("not a LuaError: \(type(of: error)) \(error)", file: file, line: line)
                return nil
            }
        }
    }

    struct Case {
        let name: String
        let code: String
        let kinds: Set<LuaError.Kind>
        let message: String
        init(_ name: String, _ code: String, _ kinds: Set<LuaError.Kind>, _ message: String) {
            self.name = name
            self.code = code
            self.kinds = kinds
            self.message = message
        }
    }

    /// Each case runs three ways: alone; after changes made in an explicit transaction opened with
    /// `beginWrite` (which must be rolled back); and inside `realm:write(function() … end)`.
    func check(_ cases: [Case], wrapped: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try snapshot("mallory")
        let countBefore = try host.withTenant("mallory") { try $0.realm.objects("Note").countObjects() }
        let neighbour = try snapshot("bob")
        for c in cases {
            var variants = [("alone", c.code)]
            if wrapped {
                variants.append(
                    (
                        "after beginWrite",
                        """
                        realm:beginWrite()
                        realm:create("Note", { owner = "mallory", text = "half" })
                        realm:objects("Note")[1].text = "scribbled"
                        do \(c.code)
                        end
                        realm:commitWrite()
                        """
                    ))
                variants.append(
                    (
                        "inside realm:write",
                        """
                        realm:write(function()
                          realm:objects("Note"):append{ owner = "mallory", text = "half" }
                          realm:delete(realm:objects("Note")[2])
                          do \(c.code)
                          end
                        end)
                        """
                    ))
            }
            for (how, code) in variants {
                let started = Date()
                guard let error = try hostile(code, file: file, line: line) else { continue }
                let elapsed = Date().timeIntervalSince(started)
                XCTAssertTrue(
                    c.kinds.contains(error.kind),
                    "\(c.name) (\(how)): kind \(error.kind), expected \(c.kinds): \(error.message)", file: file,
                    line: line)
                // `message` lists the acceptable wordings, separated by "|"; empty: any non-empty message.
                let wordings = c.message.split(separator: "|").map(String.init)
                XCTAssertTrue(
                    wordings.isEmpty ? !error.message.isEmpty : wordings.contains { error.message.contains($0) },
                    "\(c.name) (\(how)): '\(error.message)' does not say '\(c.message)'", file: file, line: line)
                XCTAssertLessThan(
                    elapsed, timeLimit + 3, "\(c.name) (\(how)) took \(elapsed) s to stop", file: file, line: line)
                let after = try snapshot("mallory")
                XCTAssertEqual(after.1, before.1, "\(c.name) (\(how)): something was committed", file: file, line: line)
                XCTAssertTrue(after.0 == before.0, "\(c.name) (\(how)): the realm changed", file: file, line: line)
            }
        }
        // Still serving: the tenant runs ordinary code and its neighbour is untouched.
        let count = try host.withTenant("mallory") {
            try $0.runtime.execute("return #realm:objects('Note')", chunkName: "=after").first?.integerValue
        }
        XCTAssertEqual(count.map(Int.init), countBefore, file: file, line: line)
        let n = try snapshot("bob")
        XCTAssertTrue(n.0 == neighbour.0 && n.1 == neighbour.1, "the neighbour's realm changed", file: file, line: line)
    }

    // MARK: - Reaching outside the sandbox

    func testLibrariesThatReachTheSystemAreAbsent() throws {
        try check([
            Case("io.open", "io.open('/etc/passwd')", [.runtime], "global 'io'"),
            Case("io via _G", "_G.io.write('x')", [.runtime], "field 'io'"),
            Case("os.execute", "os.execute('touch /tmp/realmhost-pwned')", [.runtime], "field 'execute'"),
            Case("os.remove", "os.remove('data/bob.realm')", [.runtime], "field 'remove'"),
            Case("os.getenv", "return os.getenv('HOME')", [.runtime], "field 'getenv'"),
            Case("os.exit", "os.exit(1)", [.runtime], "field 'exit'"),
            Case("debug", "debug.sethook()", [.runtime], "global 'debug'"),
            Case("debug.getregistry", "local r = debug.getregistry()", [.runtime], "global 'debug'"),
            Case("package.loadlib", "package.loadlib('libc.so.6', 'system')", [.runtime], "global 'package'"),
            Case("require", "require('os')", [.runtime], "global 'require'"),
            Case("dofile", "dofile('/etc/passwd')", [.runtime], "global 'dofile'"),
            Case("loadfile", "loadfile('/etc/passwd')", [.runtime], "global 'loadfile'"),
        ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/realmhost-pwned"))
        // What is left of os is harmless.
        XCTAssertEqual(
            try host.withTenant("mallory") { t in
                try t.runtime.execute(
                    "local k = {} for name in pairs(os) do k[#k + 1] = name end table.sort(k) return table.concat(k, ',')",
                    chunkName: "=os")
            }.first?.stringValue, "clock,date,time")
    }

    func testBinaryChunksAndStringDumpAreRefused() throws {
        // A real Lua 5.4 binary chunk header: ESC "Lua" 0x54 …
        let binary = "\"\\27LuaT\\0\\25\\147\\r\\n\\26\\n\\4\\8\\8xV\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0(w@\""
        try check([
            Case("string.dump", "local f = string.dump(function() end)", [.runtime], "field 'dump'"),
            Case("(''):dump", "local f = (''):dump()", [.runtime], "method 'dump'"),
            Case("load binary", "assert(load(\(binary)))", [.runtime], "attempt to load a binary chunk"),
            Case(
                "load binary mode b", "assert(load(\(binary), 'x', 'b'))", [.runtime], "attempt to load a binary chunk"),
            Case(
                "load binary reader",
                "local done = false; assert(load(function() if done then return nil end done = true return \(binary) end))",
                [.runtime], "attempt to load a binary chunk"),
            Case("load huge chunk", "assert(load(string.rep(' ', 2 * 1024 * 1024)))", [.runtime], "chunk too large"),
        ])
        // The host's own entry point refuses bytecode too.
        let error = try host.withTenant("mallory") { t -> LuaError? in
            do {
                _ = try t.runtime.state.load(bytes: [0x1B, 0x4C, 0x75, 0x61, 0x54, 0x00], chunkName: "=bytes")
                return nil
            } catch let e as LuaError { return e }
        }
        XCTAssertEqual(error?.kind, .sandbox)
        XCTAssertTrue(error?.message.contains("binary chunks are not allowed") == true, error?.message ?? "")
    }

    func testMetatablesOfAPIUserdataCannotBeChanged() throws {
        try check([
            Case("setmetatable(realm)", "setmetatable(realm, {})", [.runtime], "table expected, got Realm"),
            Case(
                "getmetatable(realm) is a name", "getmetatable(realm).__index = function() end", [.runtime],
                "attempt to index a string value"),
            Case(
                "getmetatable(results)", "getmetatable(realm:objects('Note')).__len = nil", [.runtime],
                "attempt to index a string value"),
            Case(
                "getmetatable(object)", "getmetatable(realm:objects('Note')[1]).__newindex = rawset", [.runtime],
                "attempt to index a string value"),
            Case("rawset on userdata", "rawset(realm:objects('Note')[1], 'text', 'x')", [.runtime], "table expected"),
            Case("Realm table", "setmetatable(Realm, nil)", [.runtime], "cannot change a protected metatable"),
            Case(
                "Configuration table", "setmetatable(Realm.Configuration, {})", [.runtime],
                "cannot change a protected metatable"),
            Case(
                "__gc through a property", "realm:objects('Note')[1].__gc = function() end", [.runtime],
                "cannot be stored in a realm"),
            Case("__index through a property", "realm:objects('Note')[1].__index = 'x'", [.runtime], "__index"),
            Case(
                "methods with a forged self", "realm.objects(realm:objects('Note')[1], 'Note')", [.runtime],
                "Realm expected"),
            Case(
                "object methods on a realm", "local o = realm:objects('Note')[1]; o.toTable(realm)", [.runtime],
                "Object expected"),
            Case(
                "default configuration replaced by a table", "Realm.Configuration.defaultConfiguration = {}",
                [.runtime], "Configuration expected"),
        ])
    }

    // MARK: - Exhausting the host

    func testMemoryExhaustionEndsInAnOutOfMemoryError() throws {
        try useGenerousTimeLimit()
        try check([
            Case("string.rep", "local s = string.rep('x', 1 << 30)", [.memory], "not enough memory"),
            Case("string doubling", "local s = 'x' while true do s = s .. s end", [.memory], "not enough memory"),
            Case("growing table", "local t = {} for i = 1, math.huge do t[i] = i end", [.memory], "not enough memory"),
            Case(
                "table of tables", "local t = {} while true do t[#t + 1] = { 1, 2, 3, 4 } end", [.memory],
                "not enough memory"),
            Case(
                "table.concat",
                "local t = {} for i = 1, 1e6 do t[i] = 'xxxxxxxxxxxxxxxx' end local s = table.concat(t):rep(64)",
                [.memory], "not enough memory"),
            Case("string too large", "local s = ('x'):rep(1 << 62)", [.runtime, .memory], "too large"),
            Case("huge print", "print(string.rep('x', 1 << 29))", [.memory], "not enough memory"),
            Case(
                "pcall cannot keep it",
                "local keep = {} for i = 1, 200 do pcall(function() keep[#keep + 1] = string.rep('y', 1 << 20) end) end error('kept ' .. #keep .. ' MiB')",
                [.runtime], "kept 3"),
        ])
        // The state is usable afterwards and gave its memory back.
        let used = try host.withTenant("mallory") { t -> Int in
            t.runtime.state.collectGarbage()
            return t.runtime.state.memoryInUse
        }
        XCTAssertLessThan(used, 8 << 20, "memory of the failed scripts was not released")
    }

    func testEndlessLoopsAndRecursionAreStopped() throws {
        try check([
            Case("while true", "while true do end", [.timeLimit], "time limit"),
            Case("repeat", "local i = 0 repeat i = i + 1 until false", [.timeLimit], "time limit"),
            Case("goto", "::top:: goto top", [.timeLimit], "time limit"),
            Case(
                "pcall swallowing the stop", "while true do pcall(function() while true do end end) end", [.timeLimit],
                "time limit"),
            Case(
                "xpcall handler looping", "xpcall(function() error('x') end, function() while true do end end)",
                [.timeLimit, .runtime], ""),
            Case(
                "error object with an endless __tostring",
                "error(setmetatable({}, { __tostring = function() while true do end end }))", [.timeLimit, .runtime], ""
            ),
            Case("endless tail calls", "local function f() return f() end f()", [.timeLimit], "time limit"),
            Case(
                "endless recursion", "local function f() return 1 + f() end f()", [.runtime, .memory],
                "stack overflow|not enough memory"),
            Case(
                "recursion through __index",
                "local t = setmetatable({}, {}); getmetatable(t).__index = function(t, k) return t[k] end; return t.x",
                [.runtime], "stack overflow"),
            Case(
                "recursion through pcall", "local function f() pcall(f) end f() error('done')", [.runtime, .timeLimit],
                ""),
            Case(
                "loop inside the host API", "while true do local r = realm:objects('Note'):where('n > $0', 1) end",
                [.timeLimit], "time limit"),
            Case(
                "sort with an endless comparator",
                "local t = {3, 2, 1} table.sort(t, function(a, b) while true do end end)", [.timeLimit], "time limit"),
            Case(
                "gsub with an endless callback", "string.gsub('abc', '.', function() while true do end end)",
                [.timeLimit], "time limit"),
            Case(
                "expensive pattern", "string.find(string.rep('a', 100000), '.-.-.-b')", [.sandbox],
                "not allowed in the sandbox"),
            Case(
                "long pattern", "string.match('x', string.rep('a?', 200))", [.sandbox], "patterns longer than 256 bytes"
            ),
        ])
    }

    func testCoroutineFloodsEndInAnOutOfMemoryError() throws {
        try useGenerousTimeLimit()
        try check([
            Case(
                "coroutine flood", "local t = {} while true do t[#t + 1] = coroutine.create(function() end) end",
                [.memory], "not enough memory"),
            Case(
                "suspended coroutine flood",
                "local t = {} while true do local co = coroutine.create(function() coroutine.yield() end) coroutine.resume(co) t[#t + 1] = co end",
                [.memory], "not enough memory"),
            Case(
                "memory flood inside a coroutine",
                "coroutine.wrap(function() local t = {} while true do t[#t + 1] = {} end end)()", [.memory],
                "not enough memory"),
        ])
    }

    func testCoroutinesWithoutEndAreStopped() throws {
        try check([
            Case(
                "looping coroutine", "coroutine.resume(coroutine.create(function() while true do end end))",
                [.timeLimit], "time limit"),
            Case("wrap chain", "local function f() return coroutine.wrap(f)() end f()", [.runtime], "C stack overflow"),
            Case(
                "ping-pong forever",
                "local co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do co() end",
                [.timeLimit], "time limit"),
            Case(
                "yield out of a write",
                "local co = coroutine.create(function() realm:write(function() coroutine.yield() end) end) assert(coroutine.resume(co))",
                [.runtime],
                "yield across a C-call boundary|already in a write transaction"),
            Case(
                "closed coroutine resumed",
                "local co = coroutine.create(function() end) coroutine.resume(co) assert(coroutine.resume(co))",
                [.runtime], "dead coroutine"),
        ])
    }

    func testCollectGarbageAndFinalizersCannotBeAbused() throws {
        try check([
            Case("collect", "collectgarbage()", [.sandbox], "not allowed in the sandbox"),
            Case("stop", "collectgarbage('stop')", [.sandbox], "collectgarbage('stop')"),
            Case("step", "collectgarbage('step', 1e9)", [.sandbox], "not allowed"),
            Case("incremental", "collectgarbage('incremental', 1, 1)", [.sandbox], "not allowed"),
            Case("generational", "collectgarbage('generational')", [.sandbox], "not allowed"),
            Case("setpause", "collectgarbage('setpause', 1e9)", [.sandbox], "not allowed"),
            Case("collect in a loop", "while true do pcall(collectgarbage) end", [.timeLimit], "time limit"),
            Case(
                "endless finalizer", "setmetatable({}, { __gc = function() while true do end end })", [.sandbox], "__gc"
            ),
            Case(
                "finalizer added later",
                "local mt = {} setmetatable({}, mt) mt.__gc = function() while true do end end error('after')",
                [.runtime], "after"),
            Case(
                "endless __close",
                "do local x <close> = setmetatable({}, { __close = function() while true do end end }) end", [.sandbox],
                "__close"),
            Case(
                "table walk with a lying __len",
                "table.concat(setmetatable({}, { __len = function() return 1 << 40 end }))",
                [.sandbox, .runtime, .memory], ""),
            Case(
                "sort with a lying __len", "table.sort(setmetatable({}, { __len = function() return 1 << 40 end }))",
                [.sandbox, .runtime, .memory], ""),
        ])
        // A __gc added after setmetatable is not a finalizer (Lua marks objects when the
        // metatable is set): a full collection afterwards must not hang.
        let started = Date()
        try host.withTenant("mallory") { $0.runtime.state.collectGarbage() }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertEqual(
            try host.withTenant("mallory") {
                try $0.runtime.execute("return collectgarbage('count') > 0", chunkName: "=c")
            }.first?.boolValue, true)
    }

    func testAStoppedScriptReleasesTheWriteLock() throws {
        // Holds SQLite's write lock when the time limit fires: the lock must be released.
        let error = try hostile("realm:beginWrite() realm:create('Note', { text = 'x' }) while true do end")
        XCTAssertEqual(error?.kind, .timeLimit)
        let url = try host.fileURL(for: "mallory")
        let other = try Realm(configuration: Realm.Configuration(fileURL: url))
        let started = Date()
        try other.write { _ = try other.create("Note", value: ["owner": "admin", "text": "after"]) }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "the write lock was still held")
        XCTAssertEqual(try other.objects("Note").countObjects(), 6)
    }

    // MARK: - Stale handles

    func testWritesThroughDeletedObjectsFail() throws {
        // A handle kept across calls (REPL lines) to an object another call deletes.
        try host.withTenant("mallory") { t in
            try t.runtime.execute(
                "stale = realm:objects('Note'):where('n == $0', 3)[1]; staleList = realm:objects('Note')",
                chunkName: "=keep")
            try t.runtime.execute(
                "realm:write(function() realm:delete(realm:objects('Note'):where('n == $0', 3)[1]) end)",
                chunkName: "=delete")
        }
        try check([
            Case("set through a deleted object", "stale.text = 'zombie'", [.runtime], "deleted or invalidated"),
            Case("read a deleted object", "local t = stale.text", [.runtime], "deleted or invalidated"),
            Case("its table", "stale:toTable()", [.runtime], "deleted or invalidated"),
        ])
        try check(
            [
                // add, create and delete need a write (issue 13), so they run inside one here.
                Case(
                    "delete it again", "realm:write(function() realm:delete(stale) end)", [.runtime],
                    "deleted or invalidated"),
                Case(
                    "add it back", "realm:write(function() realm:add(stale) end)", [.runtime],
                    "deleted or invalidated"),
                Case(
                    "store it", "realm:write(function() realm:create('Note', { text = stale }) end)", [.runtime],
                    "invalidated"),
                Case(
                    "deleted in the same write",
                    "realm:write(function() local o = realm:create('Note', { text = 'x' }) realm:delete(o) o.text = 'y' end)",
                    [.runtime], "deleted or invalidated"),
                Case(
                    "deleted in the same explicit write",
                    "realm:beginWrite() local o = realm:create('Note', { text = 'x' }) realm:delete(o) o.text = 'y' realm:commitWrite()",
                    [.runtime], "deleted or invalidated"),
                Case(
                    "cancelled creation",
                    "realm:beginWrite() local o = realm:create('Note', { text = 'x' }) realm:cancelWrite() o.text = 'y'",
                    [.runtime], "deleted or invalidated"),
            ], wrapped: false)
        XCTAssertEqual(
            try host.withTenant("mallory") {
                try $0.runtime.execute("return stale.isInvalidated, #staleList", chunkName: "=s")
            }.map(\.description), ["true", "4"])
    }

    func testWritesThroughFrozenObjectsFail() throws {
        try host.withTenant("mallory") { t in
            _ = try t.runtime.execute(
                "frozen = realm:freeze(); frozenNote = frozen:objects('Note')[1]; frozenNotes = frozen:objects('Note')",
                chunkName: "=freeze")
        }
        try check(
            [
                Case("set on a frozen object", "frozenNote.text = 'x'", [.runtime], "frozen"),
                Case(
                    "set on a frozen object inside a live write", "realm:write(function() frozenNote.text = 'x' end)",
                    [.runtime], "frozen"),
                Case("write on a frozen realm", "frozen:write(function() end)", [.runtime], "frozen"),
                Case("beginWrite on a frozen realm", "frozen:beginWrite()", [.runtime], "frozen"),
                Case("create in a frozen realm", "frozen:create('Note', { text = 'x' })", [.runtime], "frozen"),
                Case("append to frozen results", "frozenNotes:append{ text = 'x' }", [.runtime], "frozen"),
                Case(
                    "delete a frozen object", "realm:write(function() realm:delete(frozenNote) end)", [.runtime],
                    "frozen|Can only delete an object from the Realm it belongs to"),
                Case(
                    "delete frozen results", "realm:write(function() realm:delete(frozenNotes) end)", [.runtime],
                    "frozen|Can only delete"),
                Case(
                    "delete results of another file",
                    """
                    local c = Realm.Configuration.defaultConfiguration
                    c.fileURL = "mallory.scratch.realm"
                    local other = Realm(c)
                    if #other:objects("Note") == 0 then other:objects("Note"):append{ text = "elsewhere" } end
                    realm:write(function() realm:delete(other:objects("Note")) end)
                    """, [.runtime], "Can only delete"),
                Case(
                    "delete an object of another file",
                    """
                    local c = Realm.Configuration.defaultConfiguration
                    c.fileURL = "mallory.scratch.realm"
                    local note = Realm(c):objects("Note")[1]
                    realm:write(function() realm:delete(note) end)
                    """, [.runtime], "Can only delete"),
            ], wrapped: false)
    }
}
