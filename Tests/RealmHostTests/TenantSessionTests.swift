import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import XCTest

/// The one path from a front end to a tenant: output, values, error kinds, rollback, Ctrl-C.
final class TenantSessionTests: XCTestCase {
    static let plugin = """
        return { name = "dogs", schemaVersion = 1,
          schema = { { name = "Dog", properties = { name = "string" } } },
          commands = { count = function(realm, extra) return #realm:objects("Dog"), extra end } }
        """

    var folder: PluginFolder!
    var printed: [String] = []
    var warned: [String] = []

    override func setUpWithError() throws {
        folder = try PluginFolder(plugin: TenantSessionTests.plugin)
        printed = []
        warned = []
    }

    func makeSession(limits: LuaLimits = .default) throws -> TenantSession {
        TenantSession(
            host: try folder.host(limits: limits), user: "alice",
            output: { [unowned self] in printed.append($0) },
            warning: { [unowned self] in warned.append($0) })
    }

    /// Compiles and runs REPL input, returning its values.
    func run(_ code: String, in session: TenantSession) throws -> [LuaValue] {
        guard case .ready(let chunk) = try session.compile(code, chunkName: "test") else {
            XCTFail("'\(code)' is incomplete")
            return []
        }
        return try session.run(chunk) { values, _ in values }
    }

    func failure(of code: String, in session: TenantSession) -> ChunkError? {
        do {
            _ = try run(code, in: session)
        } catch let error as ChunkError {
            return error
        } catch {
            XCTFail("not a ChunkError: \(error)")
        }
        return nil
    }

    func dogCount(_ session: TenantSession) throws -> Int {
        try session.withTenant { try $0.realm.objects("Dog").countObjects() }
    }

    func testOutputAndWarningsGoToTheSessionsHooks() throws {
        let session = try makeSession()
        XCTAssertEqual(try run("print('hi', 2); warn('@on'); warn('careful')", in: session), [])
        XCTAssertEqual(printed, ["hi\t2"])
        XCTAssertEqual(warned, ["careful"])
    }

    func testAnExpressionReturnsItsValueAndAnUnfinishedChunkAsksForMore() throws {
        let session = try makeSession()
        XCTAssertEqual(try run("1 + 1", in: session), [.integer(2)])
        XCTAssertEqual(try run("local x = 3; return x * 2", in: session), [.integer(6)])
        guard case .incomplete = try session.compile("for i = 1, 3 do", chunkName: "test") else {
            return XCTFail("an unfinished loop compiled")
        }
    }

    func testErrorsAreClassifiedAndKeepTheSwiftError() throws {
        let session = try makeSession(limits: LuaLimits(instructions: 100_000))
        let syntax = failure(of: "x = = 1", in: session)
        XCTAssertEqual(syntax?.kind, .syntax)
        XCTAssertEqual((syntax?.underlying as? LuaError)?.kind, .syntax)
        let runtime = failure(of: "error('boom')", in: session)
        XCTAssertEqual(runtime?.kind, .runtime)
        XCTAssertTrue("\(runtime?.underlying as? LuaError as Any)".contains("boom"), "\(String(describing: runtime))")
        let database = failure(of: "realm:write(function() realm:create('Nope', {}) end)", in: session)
        XCTAssertEqual(database?.kind, .runtime)
        XCTAssertEqual(database?.realmError?.code, .invalidClass, "\(String(describing: database))")
        XCTAssertNil(runtime?.realmError)
        let limit = failure(of: "while true do end", in: session)
        XCTAssertEqual(limit?.kind, .limit)
        XCTAssertEqual((limit?.underlying as? LuaError)?.kind, .instructionLimit)
    }

    func testAWriteLeftOpenByAnEarlierChunkIsRolledBackWhenAChunkFails() throws {
        let session = try makeSession()
        _ = try run("realm:beginWrite(); realm:create('Dog', { name = 'Rex' })", in: session)
        XCTAssertTrue(session.hasOpenWrite)
        let failed = failure(of: "error('later')", in: session)
        XCTAssertEqual(failed?.rolledBackEarlierWrite, true)
        XCTAssertFalse(session.hasOpenWrite)
        XCTAssertEqual(try dogCount(session), 0)
        // A chunk that opens a write and fails keeps nothing either, and reports no earlier write.
        let own = failure(of: "realm:beginWrite(); realm:create('Dog', { name = 'Max' }); error('x')", in: session)
        XCTAssertEqual(own?.rolledBackEarlierWrite, false)
        XCTAssertFalse(try session.rollbackOpenWrites())
        XCTAssertEqual(try dogCount(session), 0)
    }

    func testTheInterruptScopeCancelsARunningChunk() throws {
        let session = try makeSession()
        session.interruptScope = { handle, body in
            // Cancel until the run ends: a cancel that lands before the call starts is cleared by it.
            let done = ManagedAtomicFlag()
            Thread.detachNewThread {
                while !done.isSet {
                    handle.cancel()
                    Thread.sleep(forTimeInterval: 0.01)
                }
            }
            defer { done.set() }
            return try body()
        }
        let interrupted = failure(
            of: "realm:beginWrite(); realm:create('Dog', { name = 'Rex' }); while true do end",
            in: session)
        XCTAssertEqual(interrupted?.kind, .interrupted)
        XCTAssertFalse(session.hasOpenWrite)
        XCTAssertEqual(try dogCount(session), 0)
    }

    /// A mistyped command name runs nothing, so it leaves a write the user opened as it was (the
    /// rollback after a failure is for code that ran).
    func testAMistypedCommandKeepsTheOpenWrite() throws {
        let session = try makeSession()
        _ = try run("realm:beginWrite(); realm:create('Dog', { name = 'Rex' })", in: session)
        XCTAssertThrowsError(try session.runCommand("nope", arguments: []) { _, _ in }) { error in
            XCTAssertEqual((error as? ChunkError)?.rolledBackEarlierWrite, false)
        }
        XCTAssertTrue(session.hasOpenWrite)
        _ = try run("realm:commitWrite()", in: session)
        XCTAssertEqual(try dogCount(session), 1)
    }

    func testPluginCommandsAndFilesRunThroughTheSession() throws {
        let session = try makeSession()
        _ = try run("realm:write(function() realm:create('Dog', { name = 'Rex' }) end)", in: session)
        let values = try session.runCommand("count", arguments: ["x"]) { values, _ in values }
        XCTAssertEqual(values, [.integer(1), .string("x")])
        XCTAssertThrowsError(try session.runCommand("nope", arguments: []) { _, _ in }) { error in
            XCTAssertEqual((error as? ChunkError)?.kind, .runtime)
            XCTAssertTrue("\(error)".contains("No command '.nope'"), "\(error)")
        }
        let script = folder.root.appendingPathComponent("script.lua")
        try "print(arg[1]); return #realm:objects('Dog')".write(to: script, atomically: true, encoding: .utf8)
        XCTAssertEqual(try session.runFile(script.path, arguments: ["first"]), [.integer(1)])
        XCTAssertEqual(printed, ["first"])
    }

    func testTheReaderShowsTheObjectsBehindReturnedValues() throws {
        let session = try makeSession()
        _ = try run("realm:write(function() realm:create('Dog', { name = 'Rex' }) end)", in: session)
        guard case .ready(let chunk) = try session.compile("realm:objects('Dog')[1], { 1, 2 }", chunkName: "t") else {
            return XCTFail("did not compile")
        }
        let (name, length) = try session.run(chunk) { values, reader -> (String?, Int) in
            guard case .object(let dog)? = try reader.inspect(values[0]), case .table(let table) = values[1] else {
                return (nil, -1)
            }
            return (try dog.value(forKey: "name").stringValue, try reader.length(table))
        }
        XCTAssertEqual(name, "Rex")
        XCTAssertEqual(length, 2)
    }

    func testSwitchingUserIsRefusedWhileAWriteIsOpen() throws {
        let session = try makeSession()
        _ = try run("realm:beginWrite()", in: session)
        XCTAssertThrowsError(try session.switchUser(to: "bob")) {
            XCTAssertTrue("\($0)".contains("open write"), "\($0)")
        }
        XCTAssertEqual(session.user, "alice")
        XCTAssertTrue(try session.rollbackOpenWrites())
        try session.switchUser(to: "bob")
        XCTAssertEqual(session.user, "bob")
    }
}

/// A flag one thread sets and another polls.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
