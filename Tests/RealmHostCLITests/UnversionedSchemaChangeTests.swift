import Foundation
import XCTest

/// A plugin's schema changed without a raised `schemaVersion`: `migrate`, its dry run and an open
/// stop and name the change, the plugin and the version to raise, instead of "up to date" followed
/// by every open failing with "Migration is required".
final class UnversionedSchemaChangeTests: XCTestCase {
    private func plugin(_ properties: String) -> String {
        """
        return { name = 'pets', schemaVersion = 1, schema = {
          { name = 'Pet', primaryKey = 'name', properties = { \(properties) } },
        } }
        """
    }

    func testMigrateItsDryRunAndAnOpenNameThePluginThePropertyAndTheVersion() throws {
        let workspace = try Workspace()
        try workspace.write("p/pets/plugin.lua", plugin("name = 'string'"))
        try workspace.write("add.lua", "realm:objects('Pet'):append{ name = 'Rex' }")
        let made = try workspace.run(["run", "--plugins", "p", "--user", "kim", "add.lua"])
        XCTAssertEqual(made.status, 0, made.stderr)
        try workspace.write("p/pets/plugin.lua", plugin("name = 'string', age = 'int'"))

        for flags in [["migrate", "--user", "kim"], ["migrate", "--user", "kim", "--dry-run"]] {
            let result = try workspace.run(flags + ["--plugins", "p"])
            XCTAssertNotEqual(result.status, 0, "\(flags): \(result.stdout)")
            let said = result.stdout + result.stderr
            XCTAssertTrue(said.contains("0 up to date, 1 failed"), "\(flags): \(said)")
            XCTAssertTrue(said.contains("Property 'Pet.age' has been added (plugin pets, p/pets/plugin.lua)"), said)
            XCTAssertTrue(said.contains("Raise plugin pets's schemaVersion to 2"), said)
        }
        let opened = try workspace.run(["run", "--plugins", "p", "--user", "kim", "add.lua"])
        XCTAssertNotEqual(opened.status, 0)
        XCTAssertTrue(opened.stderr.contains("Raise plugin pets's schemaVersion to 2"), opened.stderr)
    }
}
