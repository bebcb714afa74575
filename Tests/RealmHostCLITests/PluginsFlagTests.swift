import Foundation
import XCTest

/// `--plugins` naming no folder is refused before anything opens: no user's realm is created
/// without the plugins' schema (it would be at version 0 and migrate from there later).
final class PluginsFlagTests: XCTestCase {
    func testAPluginsFolderThatDoesNotExistIsRefusedAndNothingIsCreated() throws {
        let workspace = try Workspace()
        try workspace.write("script.lua", "print(1)")
        for (command, rest) in [("repl", []), ("run", ["script.lua"]), ("migrate", [])] {
            let result = try workspace.run([command, "--data", "d", "--plugins", "plugnis"] + rest, input: "")
            XCTAssertNotEqual(result.status, 0, "\(command)")
            XCTAssertTrue(result.stderr.contains("--plugins plugnis: no such folder"), "\(command): \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.root.appendingPathComponent("d").path))
    }
}
