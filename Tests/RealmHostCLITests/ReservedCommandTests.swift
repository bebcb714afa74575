import Foundation
import XCTest

/// The REPL's built-in dot commands (as `.help` lists them) and the names a plugin command may not
/// take are one list: a plugin command named like any built-in is refused when the plugins load,
/// so none is shadowed in silence (the list lives in RealmHost, the REPL in RealmHostCLI).
final class ReservedCommandTests: XCTestCase {
    func testEveryBuiltInThatHelpListsIsANameNoPluginCommandMayTake() throws {
        let workspace = try Workspace()
        let help = try workspace.run(["repl"], input: ".help\n")
        // `  .name ARGS   help` lines before the plugin commands' section; `.quit` names `.exit` too.
        let builtIns =
            help.stdout.components(separatedBy: "Plugin commands").first?.components(separatedBy: "\n").compactMap {
                line -> String? in
                guard line.hasPrefix("  .") else { return nil }
                return line.dropFirst(3).split(separator: " ").first.map(String.init)
            } ?? []
        XCTAssertGreaterThanOrEqual(builtIns.count, 10, help.stdout)
        try workspace.write("x.lua", "print('started')\n")
        for name in builtIns + ["exit"] {
            try workspace.write(
                "p/p/plugin.lua", "return { name = 'p', commands = { [\"\(name)\"] = function() return 1 end } }\n")
            let run = try workspace.run(["run", "--plugins", "p", "x.lua"])
            XCTAssertNotEqual(run.status, 0, ".\(name): \(run.stdout)")
            XCTAssertTrue(run.stderr.contains("'commands.\(name)' takes the name"), ".\(name): \(run.stderr)")
        }
    }
}
