import Foundation
import XCTest

/// The REPL driven through a pseudo-terminal, as a person types into it.
final class REPLTerminalTests: XCTestCase {
    var workspace: Workspace!

    override func setUpWithError() throws {
        workspace = try Workspace()
    }

    override func tearDown() {
        workspace = nil
    }

    func testStartTypeExpressionsAndQuit() throws {
        let repl = try workspace.terminal()
        let banner = repl.expect("default> ")
        let ready = Date().timeIntervalSince(repl.started)
        print("REPL ready after \(Int(ready * 1000)) ms (debug build)")
        XCTAssertTrue(banner.contains("user 'default'"), banner)
        XCTAssertTrue(banner.contains("doggo 3.0.0"), banner)
        XCTAssertTrue(repl.enter("1 + 1").contains("\n2\n"))
        repl.enter("dogs = realm:objects(\"Dog\")")
        let added = repl.enter("dogs:append{ name = \"Bandido\", breed = \"Mutt\", weight = 23 }")
        XCTAssertTrue(added.contains("name"), added)
        XCTAssertTrue(added.contains("Bandido"), added)
        let table = repl.enter("dogs")
        XCTAssertTrue(table.contains("#  _id"), table)
        XCTAssertTrue(table.contains("─"), table)
        XCTAssertTrue(
            table.range(of: #"1  [0-9A-F-]{36}  Bandido  Mutt\s+23"#, options: .regularExpression) != nil, table)
        XCTAssertTrue(repl.enter("#dogs").contains("\n1\n"))
        XCTAssertTrue(repl.enter("print('hello', 42)").contains("hello\t42"))
        repl.type(".quit\r")
        XCTAssertEqual(repl.waitForExit(), 0)
        // The implicit write committed.
        let count = try workspace.run(["repl"], input: "#realm:objects('Dog')\n")
        XCTAssertEqual(count.stdout, "1\n")
    }

    func testTabCompletion() throws {
        let repl = try workspace.terminal()
        repl.expect("default> ")
        // A class name inside objects(": one match, completed in place.
        XCTAssertTrue(repl.enter("#realm:objects(\"Do\t\")").contains("\n0\n"))
        // Methods of the value left of the cursor: several matches, listed on a second Tab.
        repl.type("realm:ob\t\t")
        let listed = repl.expect("observe")
        XCTAssertTrue(listed.contains("object") && listed.contains("objects"), listed)
        repl.type("\u{15}")  // Ctrl-U: clear the line
        repl.settle()
        repl.enter("dogs = realm:objects(\"Dog\")")
        repl.enter("dogs:append{ name = \"Maui\" }")
        // dogs:so<Tab> → dogs:sorted ; property names inside sorted("…")
        XCTAssertTrue(repl.enter("dogs:so\t(\"na\t\")[1].name").contains("Maui"))
        // Fields and properties after a dot.
        repl.enter("d = dogs[1]")
        XCTAssertTrue(repl.enter("d.favoriteTr\t == ''").contains("true"))
        // Globals.
        XCTAssertTrue(repl.enter("tostr\t(12)").contains("12"))
        // Dot commands and their arguments.
        XCTAssertTrue(repl.enter(".sche\t Do\t").contains("favoriteTreat"))
        repl.enter(".mode js\t")
        XCTAssertTrue(repl.enter("d").contains("\"name\": \"Maui\""))
        repl.ctrlD()
        XCTAssertEqual(repl.waitForExit(), 0)
    }

    func testMultiLineInput() throws {
        let repl = try workspace.terminal()
        repl.expect("default> ")
        repl.type("for i = 1, 3 do\r")
        repl.expect("...> ")
        repl.type("  print(i * 10)\r")
        repl.expect("...> ")
        let out = repl.enter("end")
        XCTAssertTrue(out.contains("10\n20\n30\n"), out)
        repl.type("function double(x)\r")
        repl.expect("...> ")
        repl.enter("return x * 2 end")
        XCTAssertTrue(repl.enter("double(21)").contains("\n42\n"))
        // An expression split over lines prints its value.
        repl.type("realm:objects(\r")
        repl.expect("...> ")
        XCTAssertTrue(repl.enter("\"Dog\"):count()").contains("\n0\n"))
        // A long string.
        repl.type("s = [[one\r")
        repl.expect("...> ")
        repl.enter("two]]")
        XCTAssertTrue(repl.enter("#s").contains("\n7\n"))
        // Ctrl-C drops an unfinished statement.
        repl.type("if true then\r")
        repl.expect("...> ")
        repl.type("\u{03}")
        repl.expect("default> ")
        XCTAssertTrue(repl.enter("1").contains("\n1\n"))
        repl.type(".quit\r")
        XCTAssertEqual(repl.waitForExit(), 0)
    }

    /// A write waiting for another REPL's open write says what it waits for and how long at most,
    /// Ctrl-C ends the wait, and another process's write gives up at the limit saying why.
    func testAWriteWaitingForAnotherPromptsWriteSaysSoAndCtrlCEndsIt() throws {
        try workspace.write("data/host.lua", "return { lockWaitSeconds = 30 }")
        let holder = try workspace.terminal()
        holder.expect("default> ")
        holder.enter("realm:beginWrite()", prompt: "default*> ")
        holder.enter(#"realm:create("Dog", { name = "Held" })"#, prompt: "default*> ")

        let waiter = try workspace.terminal()
        waiter.expect("default> ")
        waiter.type(#"realm:objects("Dog"):append{ name = "Waiting" }"# + "\r")
        waiter.expect("Ctrl-C stops waiting.")
        XCTAssertTrue(
            waiter.transcript.contains("/data/default.realm: another connection holds its lock (a write left open"),
            waiter.transcript)
        XCTAssertTrue(waiter.transcript.contains("up to 30 s in all"), waiter.transcript)
        waiter.type("\u{03}")
        let stopped = waiter.expect("default> ")
        XCTAssertTrue(stopped.contains("stopped waiting (Ctrl-C)"), stopped)

        // With a short limit, a script gives up on its own and says why.
        try workspace.write("data/host.lua", "return { lockWaitSeconds = 1.5 }")
        try workspace.write("w.lua", #"realm:objects("Dog"):append{ name = "Late" }"#)
        let late = try workspace.run(["run", "w.lua"])
        XCTAssertEqual(late.status, 1)
        XCTAssertTrue(late.stderr.contains("waited 1."), late.stderr)
        XCTAssertTrue(late.stderr.contains("the limit of a lock wait"), late.stderr)

        holder.enter("realm:commitWrite()")
        XCTAssertTrue(waiter.enter(#"realm:objects("Dog"):count()"#).contains("\n1\n"), "only the held write landed")
        holder.type(".quit\r")
        waiter.type(".quit\r")
    }

    func testCtrlCClearsTheLineOrStopsARunningScript() throws {
        let repl = try workspace.terminal()
        repl.expect("default> ")
        repl.type("this is half typed\u{03}")
        repl.expect("default> ")
        XCTAssertTrue(repl.enter("2 + 2").contains("\n4\n"), "the half-typed line was dropped")
        // A script stuck in a loop inside a write: Ctrl-C stops it and the write rolls back.
        repl.type("realm:write(function() realm:objects('Dog'):append{ name = 'Ghost' } while true do end end)\r")
        Thread.sleep(forTimeInterval: 0.3)
        repl.type("\u{03}")
        let stopped = repl.expect("default> ")
        XCTAssertTrue(stopped.contains("interrupted"), stopped)
        XCTAssertTrue(repl.enter("#realm:objects('Dog')").contains("\n0\n"), "the interrupted write was rolled back")
        XCTAssertTrue(repl.enter("'still here'").contains("still here"))
        repl.ctrlD()
        XCTAssertEqual(repl.waitForExit(), 0)
    }

    func testTenantSwitching() throws {
        let repl = try workspace.terminal()
        repl.expect("default> ")
        XCTAssertTrue(repl.enter(".user alice", prompt: "alice> ").contains("Now user 'alice' (data/alice.realm, new)"))
        repl.enter("realm:objects('Dog'):append{ name = 'Maui' }", prompt: "alice> ")
        repl.enter("x = 'alice variable'", prompt: "alice> ")
        XCTAssertTrue(repl.enter(".user bob", prompt: "bob> ").contains("Now user 'bob'"))
        XCTAssertTrue(repl.enter("#realm:objects('Dog')", prompt: "bob> ").contains("\n0\n"), "bob sees his own realm")
        XCTAssertTrue(repl.enter("x", prompt: "bob> ").contains("\nnil\n"), "each user has his own Lua globals")
        XCTAssertTrue(repl.enter("user.name", prompt: "bob> ").contains("\nbob\n"))
        let users = repl.enter(".users", prompt: "bob> ")
        XCTAssertTrue(users.contains("alice") && users.contains("bob *") && users.contains("default"), users)
        // A bad name is refused and nothing changes.
        let bad = repl.enter(".user ../etc", prompt: "bob> ")
        XCTAssertTrue(bad.contains("Invalid user name"), bad)
        XCTAssertTrue(repl.enter(".user alice", prompt: "alice> ").contains("Now user 'alice' (data/alice.realm)."))
        XCTAssertTrue(repl.enter("#realm:objects('Dog'), x", prompt: "alice> ").contains("1\talice variable"))
        // A user with an open write transaction cannot leave it.
        repl.enter("realm:beginWrite()", prompt: "alice*> ")
        XCTAssertTrue(repl.enter(".user bob", prompt: "alice*> ").contains("open write transaction"))
        repl.enter("realm:commitWrite()", prompt: "alice> ")
        repl.type(".quit\r")
        XCTAssertEqual(repl.waitForExit(), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: workspace.data.appendingPathComponent("bob.realm").path))
    }

    func testErrorsPrintRollBackAndTheREPLGoesOn() throws {
        let repl = try workspace.terminal()
        repl.expect("default> ")
        let e1 = repl.enter("nosuch.field")
        XCTAssertTrue(e1.contains("repl:1: attempt to index a nil value (global 'nosuch')"), e1)
        let e2 = repl.enter("x = = 1")
        XCTAssertTrue(e2.contains("repl:1:") && e2.contains("unexpected symbol"), e2)
        repl.enter("dogs = realm:objects('Dog')")
        let e3 = repl.enter("realm:write(function() dogs:append{ name = 'A' } error('boom') end)")
        XCTAssertTrue(e3.contains("boom"), e3)
        XCTAssertTrue(repl.enter("#dogs").contains("\n0\n"), "the failed write was rolled back")
        // An explicit transaction across lines: the prompt shows it; an error rolls it back.
        repl.enter("realm:beginWrite()", prompt: "default*> ")
        repl.enter("dogs:append{ name = 'B' }", prompt: "default*> ")
        XCTAssertTrue(repl.enter("#dogs", prompt: "default*> ").contains("\n1\n"))
        let e4 = repl.enter("error('oops')")
        XCTAssertTrue(e4.contains("oops") && e4.contains("rolled back"), e4)
        XCTAssertTrue(repl.enter("#dogs").contains("\n0\n"))
        // Realm's own errors read as Realm's.
        let e5 = repl.enter("realm:objects('Cat')")
        XCTAssertTrue(e5.contains("Cat"), e5)
        XCTAssertTrue(repl.enter(".trace").contains("Cat"))
        let e6 = repl.enter(".nosuchcommand")
        XCTAssertTrue(e6.contains("Unknown command '.nosuchcommand'"), e6)
        XCTAssertTrue(repl.enter("'fine'").contains("fine"))
        repl.type(".quit\r")
        XCTAssertEqual(repl.waitForExit(), 0, "an interactive session ends with 0 even after errors")
    }

    /// The prompt is the REPL's run loop: another process's commit is seen by the next statement,
    /// and an observer fires there, with no `realm:refresh()`.
    func testAnotherProcessesCommitReachesAnObserverAtTheNextStatement() throws {
        let repl = try workspace.terminal()
        repl.expect("default> ")
        repl.enter(
            #"tok = realm:objects("Dog"):observe(function(c) if c.kind == "update" then "#
                + #"print("observed " .. #c.insertions .. " insertion") end end)"#)
        try workspace.write("add.lua", #"realm:objects("Dog"):append{ name = "Elsewhere", weight = 3 }"#)
        let added = try workspace.run(["run", "add.lua"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let next = repl.enter(#"realm:objects("Dog"):where("name == 'Elsewhere'"):count()"#)
        XCTAssertTrue(next.contains("observed 1 insertion"), next)
        XCTAssertTrue(next.contains("\n1"), next)
        repl.type(".quit\r")
    }

    func testDotCommandsAndPluginCommands() throws {
        let repl = try workspace.terminal()
        repl.expect("default> ")
        let help = repl.enter(".help")
        for word in [
            ".user", ".users", ".schema", ".subs", ".mode", ".timer", ".read", ".quit", ".adopt", ".dogs", ".stats",
        ] {
            XCTAssertTrue(help.contains(word), "\(word) in .help:\n\(help)")
        }
        // A command's usage and help, as its plugin declares them.
        XCTAssertTrue(help.contains(".adopt FIRSTNAME DOGNAME"), help)
        XCTAssertTrue(help.contains("a person adopts a dog"), help)
        XCTAssertTrue(help.contains(".stats") && help.contains("from plugin doggo"), help)
        let adopt = repl.enter(".adopt Dale Maui")
        XCTAssertTrue(adopt.contains("firstName") && adopt.contains("Dale") && adopt.contains("1 Dog"), adopt)
        repl.enter(".adopt \"Gordon Cole\" Bandido")
        let dogs = repl.enter(".dogs")
        XCTAssertTrue(dogs.contains("Bandido") && dogs.contains("Maui"), dogs)
        XCTAssertTrue(repl.enter(".stats").contains("2 dogs"))
        let schema = repl.enter(".schema Dog")
        XCTAssertTrue(
            schema.contains("favoriteToy") && schema.contains("DogToy?") && schema.contains("primary key"), schema)
        XCTAssertTrue(repl.enter(".schema Cat").contains("No class 'Cat'"))
        let subs = repl.enter(".subs")
        XCTAssertTrue(subs.contains("people") && subs.contains("Person") && subs.contains("complete"), subs)
        repl.enter(".mode json")
        let json = repl.enter("realm:objects('Person'):sorted('firstName')")
        XCTAssertTrue(json.contains("\"firstName\": \"Dale\""), json)
        repl.enter(".mode lua")
        XCTAssertTrue(repl.enter("realm:objects('Person'):sorted('firstName')[1]").contains("Object(\"Person\""))
        XCTAssertTrue(repl.enter("{ 1, 'two', x = true }").contains("{ 1, \"two\", x = true }"))
        repl.enter(".mode table")
        XCTAssertTrue(repl.enter(".timer on").contains("Timer on"))
        XCTAssertTrue(repl.enter("1").contains("Time: "))
        repl.enter(".timer off")
        try workspace.write("script.lua", "print('from a file') return realm:objects('Dog'):count()")
        let read = repl.enter(".read script.lua")
        XCTAssertTrue(read.contains("from a file") && read.contains("\n2\n"), read)
        repl.type(".quit\r")
        XCTAssertEqual(repl.waitForExit(), 0)
    }

    func testLongResultsEndWithMore() throws {
        let repl = try workspace.terminal()
        repl.expect("default> ")
        repl.enter("for i = 1, 25 do realm:objects('Dog'):append{ name = string.format('dog%02d', i), weight = i } end")
        let out = repl.enter("realm:objects('Dog'):sorted('name')")
        XCTAssertTrue(out.contains("dog20"), out)
        XCTAssertFalse(out.contains("dog21"), out)
        XCTAssertTrue(out.contains("… 5 more"), out)
        repl.type(".quit\r")
        XCTAssertEqual(repl.waitForExit(), 0)
    }

    func testHistoryKeepsWholeStatements() throws {
        do {
            let repl = try workspace.terminal()
            repl.expect("default> ")
            repl.type("for i = 1, 2 do\r")
            repl.expect("...> ")
            repl.enter("print('line ' .. i) end")
            repl.ctrlD()
            XCTAssertEqual(repl.waitForExit(), 0)
        }
        let history = try String(
            contentsOf: workspace.data.appendingPathComponent(".realm-host-history"), encoding: .utf8)
        XCTAssertTrue(
            history.contains("for\\040i\\040=\\0401,\\0402\\040do\\012print('line\\040'\\040..\\040i)\\040end"), history
        )
        // A new session recalls the whole statement with the up arrow.
        let repl = try workspace.terminal()
        repl.expect("default> ")
        let again = repl.enter("\u{1B}[A")
        XCTAssertTrue(again.contains("line 1\nline 2"), again)
        repl.type(".quit\r")
        XCTAssertEqual(repl.waitForExit(), 0)
    }
}
