import Foundation
import XCTest

/// A user whose migration fails cannot be opened with the new plugins; the failure says so and
/// names the way in, `repl --no-migrate`, which opens the realm as stored, read-only.
final class NoMigrateTests: XCTestCase {
    func testAFailingMigrationNamesTheWayInAndNoMigrateReadsTheRealmAsStored() throws {
        let workspace = try Workspace()
        try workspace.write(
            "p/pets/plugin.lua",
            "return { name = 'pets', schemaVersion = 1, schema = { { name = 'Pet', primaryKey = 'name', "
                + "properties = { name = 'string' } } } }")
        try workspace.write("add.lua", "realm:objects('Pet'):append{ name = 'Rex' }")
        XCTAssertEqual(try workspace.run(["run", "--plugins", "p", "--user", "kim", "add.lua"]).status, 0)
        try workspace.write(
            "p/pets/plugin.lua",
            "return { name = 'pets', schemaVersion = 2, schema = { { name = 'Pet', primaryKey = 'name', "
                + "properties = { name = 'string', age = 'int' } } } }")
        try workspace.write(
            "p/pets/migrations/0002_age.lua",
            "return function(m) m:enumerateObjects('Pet', function(old, new) error('bad pet ' .. old.name) end) end")

        let refused = try workspace.run(["repl", "--plugins", "p", "--user", "kim"], input: "1\n")
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("0002_age.lua:1: bad pet Rex"), refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains(
                "the realm stays at schema version 1; `realm-host repl --no-migrate --user kim` opens it as stored"),
            refused.stderr)

        let looked = try workspace.run(
            ["repl", "--plugins", "p", "--user", "kim", "--no-migrate"],
            input: "realm.schemaVersion\nrealm:objects('Pet')[1].name\nrealm:objects('Pet'):append{ name = 'X' }\n")
        XCTAssertEqual(looked.stdout, "1\nRex\n", looked.stderr)
        XCTAssertTrue(looked.stderr.contains("read-only"), looked.stderr)
        XCTAssertEqual(looked.status, 1, "the write was refused")
        // Nothing changed: still version 1 with its one pet.
        let users = try workspace.run(["users", "--plugins", "p"])
        XCTAssertNotNil(users.stdout.range(of: #"kim\s+1\s+1"#, options: .regularExpression), users.stdout)
    }
}
