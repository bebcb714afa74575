import Foundation
import LuaSandbox
import RealmDatabase
import RealmHost
import RealmLua
import XCTest

/// No script, command or REPL input of one user reaches another user's realm or any file outside
/// that user's place (`<data>/<user>.realm` and `<data>/<user>.<name>.realm`). Each test attacks
/// from alice's side and then checks that bob's realm and the rest of the disk are as they were.
final class TenantIsolationTests: ReliabilityTestCase {
    var host: TenantHost!
    var data: URL { folder.appendingPathComponent("data", isDirectory: true) }
    var outside: URL { folder.appendingPathComponent("outside", isDirectory: true) }

    override func setUpWithError() throws {
        try super.setUpWithError()
        host = try notesHost()
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        for user in ["alice", "bob"] {
            try host.withTenant(user) { t in
                _ = try t.runtime.execute(
                    "for i = 1, 3 do realm:objects('Note'):append{ owner = user.name, n = i, text = user.name .. i "
                        + "} end",
                    chunkName: "=setup")
            }
        }
    }

    override func tearDownWithError() throws {
        host = nil
        try super.tearDownWithError()
    }

    /// Every file under the test folder (data, outside, plugins) with its size and modification date.
    func filesOnDisk() throws -> [String: String] {
        var out = [String: String]()
        let root = folder.standardizedFileURL.path
        guard let e = FileManager.default.enumerator(atPath: root) else { return out }
        for case let relative as String in e {
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + relative)
            // SQLite's shared-memory index changes when a realm is only read: its presence is enough.
            // Folders change when links are made in them: their presence is enough too.
            out[relative] =
                relative.hasSuffix("-shm")
                ? "shm"
                : attributes[.type] as? FileAttributeType == .typeDirectory
                    ? "folder"
                    : "\(attributes[.type] ?? "") \(attributes[.size] ?? 0) "
                        + "\((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }
        return out
    }

    func bobsNotes() throws -> [String] {
        try host.withTenant("bob") { t in
            try t.realm.objects("Note").map { try $0.value(forKey: "text").stringValue ?? "" }
        }
    }

    /// Runs `code` as alice; it must fail with an error saying `message`.
    func refused(_ code: String, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let result = try host.withTenant("alice") { try $0.runtime.execute(code, chunkName: "=alice") }
            XCTFail("accepted: \(code) → \(result)", file: file, line: line)
        } catch {
            XCTAssertTrue(
                message.isEmpty || "\(error)".contains(message), "\(code): '\(error)' does not say '\(message)'",
                file: file, line: line)
        }
    }

    // MARK: - Paths from scripts, commands and configurations

    static let hostilePaths = [
        "bob.realm", "./bob.realm", "../data/bob.realm", "alice.realm/../bob.realm", "alice.x/../../data/bob.realm",
        "/etc/passwd", "/tmp/evil.realm", "../outside/evil.realm", "../../../../../../tmp/evil.realm", "~/evil.realm",
        "sub/alice.realm", "bob.alice.realm", "xalice.realm", "alice.realm-wal", "alice.realm.lock",
        "alice.realm\0../bob.realm", "alice.\0/../bob.realm", "bob.realm\0alice.x.realm",
        "alice.x/\u{301}/\u{301}y.realm", "alice.\u{301}/\u{301}../bob.realm",
        "..\\bob.realm", "%2e%2e/bob.realm", "alice.realm%00", "file:///etc/passwd", "bob.realm?mode=memory",
        ".realm", "alice", "ALICE.realm",
    ]

    func testScriptsCannotOpenFilesOutsideTheirPlace() throws {
        let before = try filesOnDisk()
        let bob = try bobsNotes()
        for path in Self.hostilePaths {
            let literal =
                "\"" + path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\0", with: "\\0")
                + "\""
            // Through a configuration's fileURL, set field by field or in the constructor, and as the default.
            refused(
                "local c = Realm.Configuration.defaultConfiguration; c.fileURL = \(literal); "
                    + "Realm(c):objects('Note'):append{ text = 'pwned' }",
                "")
            refused("Realm(Realm.Configuration{ fileURL = \(literal) }):deleteAll()", "")
            refused(
                "local c = Realm.Configuration.defaultConfiguration; c.fileURL = \(literal); "
                    + "Realm.Configuration.defaultConfiguration = c; Realm():deleteAll()",
                "")
            // Through a plugin command's string argument (what `.open ../bob.realm` in the REPL sends).
            XCTAssertThrowsError(
                try host.withTenant("alice") { try $0.runCommand("open", arguments: [path]) },
                "command accepted \(path.debugDescription)")
        }
        XCTAssertEqual(try bobsNotes(), bob)
        XCTAssertEqual(try filesOnDisk(), before, "files were created or changed")
        // The default configuration is still alice's own realm.
        XCTAssertEqual(
            try host.withTenant("alice") { try $0.runtime.execute("return #Realm():objects('Note')", chunkName: "=a") }
                .first?.integerValue, 3)
    }

    func testTheRefusalNamesThePolicy() {
        refused(
            "local c = Realm.Configuration.defaultConfiguration; c.fileURL = 'bob.realm'",
            "may only open its own realm files")
        refused(
            "local c = Realm.Configuration.defaultConfiguration; c.fileURL = '/etc/passwd'",
            "may only open its own realm files")
    }

    func testOwnExtraRealmsStayInTheirPlace() throws {
        try host.withTenant("alice") { t in
            _ = try t.runtime.execute(
                "local c = Realm.Configuration.defaultConfiguration; c.fileURL = 'alice.scratch.realm'; "
                    + "Realm(c):objects('Note'):append{ text = 's' }",
                chunkName: "=a")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: data.appendingPathComponent("alice.scratch.realm").path))
        // Not a user: `userNames()` lists alice and bob only.
        XCTAssertEqual(try host.userNames(), ["alice", "bob"])
    }

    func testInMemoryRealmsAreNotShared() throws {
        try host.withTenant("alice") { t in
            _ = try t.runtime.execute(
                "keep = Realm(Realm.Configuration{ inMemoryIdentifier = 'shared' }); keep:objects('Note'):append{ "
                    + "text = 'alice secret' }",
                chunkName: "=a")
        }
        for id in ["shared", "alice/shared", "../alice/shared", "alice%2Fshared"] {
            let seen = try host.withTenant("bob") { t in
                try t.runtime.execute(
                    "return #Realm(Realm.Configuration{ inMemoryIdentifier = '\(id)' }):objects('Note')",
                    chunkName: "=b")
            }
            XCTAssertEqual(seen.first?.integerValue, 0, "bob saw alice's in-memory realm through '\(id)'")
        }
        let own = try host.withTenant("alice") {
            try $0.runtime.execute("return #keep:objects('Note')", chunkName: "=a")
        }
        XCTAssertEqual(own.first?.integerValue, 1)
    }

    func testLuaStatesAreNotShared() throws {
        // Poisoning the string library, the string metatable and the globals stays in alice's state.
        try host.withTenant("alice") { t in
            _ = try t.runtime.execute(
                """
                string.upper = function() return "pwned" end
                getmetatable("").__index = function() return function() return "pwned" end end
                secret = "alice's"
                Realm = nil
                """, chunkName: "=a")
        }
        let r = try host.withTenant("bob") { t in
            try t.runtime.execute(
                "return ('x'):upper(), string.upper('y'), tostring(secret), type(Realm), #realm:objects('Note')",
                chunkName: "=b")
        }
        XCTAssertEqual(r.map(\.description), ["\"X\"", "\"Y\"", "\"nil\"", "\"table\"", "3"])
    }

    // MARK: - User names

    static let badUserNames = [
        "", ".", "..", "../bob", "bob/../alice", "/etc/passwd", "a/b", "a\\b", ".hidden", "bob\0", "bob\0.x",
        "alice.x", "bob.realm", "alice.scratch", "bob.", "tab\tname", "new\nline", " bob", "bob ",
        "bob\u{200B}", "bob\u{202E}", "\u{FEFF}bob", "bo\u{0301}b", "e\u{301}", "bob\u{2028}", "bob\u{85}", "bob\u{7F}",
        "\u{301}", "\u{301}bob", "a/\u{301}b", "alice/\u{301}", "\u{20DD}x", "a\u{2215}b.x",
        "a:b", "a*b", "a?b", "a\"b", "a<b", "a>b", "a|b", String(repeating: "n", count: 65),
        String(repeating: "é", count: 33),
    ]

    func testUserNamesWithSeparatorsOrOddUnicodeAreRefusedEverywhere() throws {
        let before = try filesOnDisk()
        for name in Self.badUserNames {
            let shown = name.debugDescription
            XCTAssertThrowsError(try host.withTenant(name) { _ in }, "withTenant accepted \(shown)") { error in
                XCTAssertTrue("\(error)".hasPrefix("Invalid user name"), "\(shown): \(error)")
            }
            XCTAssertThrowsError(try host.fileURL(for: name), "fileURL accepted \(shown)")
            XCTAssertThrowsError(try host.info(for: name), "info accepted \(shown)")
            XCTAssertThrowsError(try host.exportJSON(user: name), "export accepted \(shown)")
            XCTAssertThrowsError(try host.importJSON(user: name, data: Data("{}".utf8)), "import accepted \(shown)")
            XCTAssertFalse(host.migrate(users: [name]).first?.succeeded ?? true, "migrate accepted \(shown)")
        }
        XCTAssertEqual(try filesOnDisk(), before, "a refused name touched the disk")
    }

    func testAcceptedUserNamesMapToOneFileInTheDataFolder() throws {
        // Random names from a pool of troublesome characters: any name the host accepts must map to
        // exactly `<data>/<name>.realm`, and two accepted names never to the same file.
        var rng = SeededGenerator(seed: seed("user names"))
        let pool: [Unicode.Scalar] = [
            "a", "B", "z", "0", "9", "-", "_", " ", ".", "/", "\\", ":", "~", "$", "%", "\u{0}", "\u{1F}", "\u{7F}",
            "\u{85}", "\u{A0}", "\u{AD}", "\u{200B}", "\u{200D}", "\u{202E}", "\u{2028}", "\u{2044}", "\u{2215}",
            "\u{FF0E}", "\u{FF0F}", "\u{FEFF}", "e", "\u{301}", "\u{E9}", "\u{212B}", "\u{C5}", "\u{1F600}",
            "\u{10FFFF}",
            "\u{D7FF}", "\u{FFFD}", "\u{3000}", "\u{2024}", "\u{FE52}",
        ]
        var files = [String: String]()
        let dataPath = host.dataFolder.standardizedFileURL.path
        var accepted = 0
        for _ in 0..<20_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                scalars.append(pool[Int.random(in: 0..<pool.count, using: &rng)])
            }
            let name = String(scalars)
            guard let url = try? host.fileURL(for: name) else { continue }
            accepted += 1
            let path = url.standardizedFileURL.path
            XCTAssertEqual(
                (path as NSString).deletingLastPathComponent, dataPath,
                "\(name.debugDescription) escapes the data folder")
            XCTAssertEqual((path as NSString).lastPathComponent, name + ".realm", name.debugDescription)
            XCTAssertFalse(name.unicodeScalars.contains { $0 == "/" || $0 == "\0" || $0 == "." }, name.debugDescription)
            if let other = files[path], other != name {
                XCTFail("\(name.debugDescription) and \(other.debugDescription) share \(path)")
            }
            files[path] = name
        }
        XCTAssertGreaterThan(accepted, 100)
    }

    func testAnotherUsersExtraRealmIsNotReachableThroughADottedName() throws {
        // If "alice.notes" were a user, its realm would be `alice.notes.realm`, which is one of
        // alice's own extra realms: user names must not contain dots.
        XCTAssertThrowsError(try host.withTenant("alice.notes") { _ in })
        XCTAssertThrowsError(try host.withTenant("bob.alice") { _ in })
    }

    // MARK: - Symbolic links in the data folder

    func testSymlinkedRealmFilesAreRefused() throws {
        let bobURL = data.appendingPathComponent("bob.realm")
        let secret = outside.appendingPathComponent("secret.realm")
        try FileManager.default.copyItem(at: bobURL, to: secret)
        host.closeAll()
        try host.withTenant("alice") { _ in }
        let before = try filesOnDisk()
        // A user whose realm file is a link to another user's file, to a file outside, or to nothing yet.
        try FileManager.default.createSymbolicLink(
            atPath: data.appendingPathComponent("carol.realm").path, withDestinationPath: bobURL.path)
        try FileManager.default.createSymbolicLink(
            atPath: data.appendingPathComponent("dave.realm").path, withDestinationPath: "../outside/secret.realm")
        try FileManager.default.createSymbolicLink(
            atPath: data.appendingPathComponent("erin.realm").path,
            withDestinationPath: outside.appendingPathComponent("new.realm").path)
        for user in ["carol", "dave", "erin"] {
            XCTAssertThrowsError(try host.withTenant(user) { _ in }, user) { error in
                XCTAssertTrue("\(error)".contains("symbolic link"), "\(user): \(error)")
            }
        }
        // Extra realms of a user that are links.
        try FileManager.default.createSymbolicLink(
            atPath: data.appendingPathComponent("alice.bob.realm").path, withDestinationPath: "bob.realm")
        try FileManager.default.createSymbolicLink(
            atPath: data.appendingPathComponent("alice.new.realm").path,
            withDestinationPath: outside.appendingPathComponent("created.realm").path)
        refused(
            "local c = Realm.Configuration.defaultConfiguration; c.fileURL = 'alice.bob.realm'; Realm(c):deleteAll()",
            "symbolic link")
        refused(
            "local c = Realm.Configuration.defaultConfiguration; c.fileURL = 'alice.new.realm'; "
                + "Realm(c):objects('Note'):append{}",
            "symbolic link")
        // The companion files SQLite opens beside a realm: a link there would send alice's writes
        // (the write-ahead log) into bob's database.
        for suffix in ["-wal", "-shm", "-journal"] {
            try FileManager.default.createSymbolicLink(
                atPath: data.appendingPathComponent("alice.side.realm" + suffix).path,
                withDestinationPath: bobURL.path + suffix)
        }
        refused(
            "local c = Realm.Configuration.defaultConfiguration; c.fileURL = 'alice.side.realm'; "
                + "Realm(c):objects('Note'):append{ text = 'through the log' }",
            "symbolic link")
        var after = try filesOnDisk()
        for link in [
            "carol.realm", "dave.realm", "erin.realm", "alice.bob.realm", "alice.new.realm", "alice.side.realm-wal",
            "alice.side.realm-shm", "alice.side.realm-journal",
        ] {
            XCTAssertNotNil(after.removeValue(forKey: "data/" + link), link)
        }
        XCTAssertEqual(after, before, "a file behind a link was created or changed")
        XCTAssertEqual(try bobsNotes(), ["bob1", "bob2", "bob3"])
    }

    func testASymlinkedDataFolderEntryCannotLeadOutside() throws {
        try FileManager.default.createSymbolicLink(
            atPath: data.appendingPathComponent("sub").path, withDestinationPath: outside.path)
        refused(
            "local c = Realm.Configuration.defaultConfiguration; c.fileURL = 'sub/alice.realm'; Realm(c)",
            "may only open its own realm files")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [])
    }
}
