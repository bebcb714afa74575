import Foundation
import LuaSandbox
import RealmHost
import XCTest

/// The numbers of `host.lua` and of plugin command limits are validated when read: a bad one is
/// an error naming the file and the field, never a trap.
final class HostNumbersTests: XCTestCase {
    var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hostnumbers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("data"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    /// The error of a host over a `host.lua` returning `table`, or nil when it opens.
    func hostError(_ table: String) throws -> String? {
        try "return \(table)".write(
            to: root.appendingPathComponent("data/host.lua"), atomically: true, encoding: .utf8)
        do {
            _ = try TenantHost(options: HostOptions(dataFolder: root.appendingPathComponent("data")))
            return nil
        } catch {
            return "\(error)"
        }
    }

    func testBadHostNumbersNameTheFileAndTheField() throws {
        let bad: [(String, String)] = [
            ("{ limits = { timeSeconds = 1e300 } }", "field 'limits'.timeSeconds"),
            ("{ limits = { timeSeconds = 0/0 } }", "field 'limits'.timeSeconds"),
            ("{ limits = { timeSeconds = 1/0 } }", "field 'limits'.timeSeconds"),
            ("{ limits = { timeSeconds = -1 } }", "field 'limits'.timeSeconds"),
            ("{ limits = { timeSeconds = -9223372036854775807 - 1 } }", "field 'limits'.timeSeconds"),
            ("{ limits = { memoryMiB = 9223372036854775807 } }", "field 'limits'.memoryMiB"),
            ("{ limits = { memoryMiB = 1.5 } }", "field 'limits'.memoryMiB"),
            ("{ limits = { instructions = 0 } }", "field 'limits'.instructions"),
            ("{ limits = { instructions = 1e300 } }", "field 'limits'.instructions"),
            ("{ users = { alice = { limits = { timeSeconds = 1e300 } } } }", "field 'users.alice.limits'.timeSeconds"),
            ("{ cacheSize = 9223372036854775807 }", "field 'cacheSize'"),
            ("{ cacheSize = 0/0 }", "field 'cacheSize'"),
        ]
        for (table, field) in bad {
            let message = try hostError(table)
            XCTAssertNotNil(message, "accepted: \(table)")
            XCTAssertTrue(message?.contains("host.lua") == true, "\(table): \(message ?? "")")
            XCTAssertTrue(message?.contains(field) == true, "\(table): \(message ?? "")")
        }
    }

    func testGoodHostNumbersAreAccepted() throws {
        XCTAssertNil(
            try hostError("{ limits = { timeSeconds = 0.5, memoryMiB = 64.0, instructions = 1e6 }, cacheSize = 8 }"))
        XCTAssertNil(try hostError("{ limits = { timeSeconds = 2592000, memoryMiB = 1048576 } }"))
    }

    func testPluginCommandLimitsAreValidated() throws {
        let folder = root.appendingPathComponent("plugins/p")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        return { name = "p", commands = { go = { run = function() end, limits = { timeSeconds = 1e300 } } } }
        """.write(to: folder.appendingPathComponent("plugin.lua"), atomically: true, encoding: .utf8)
        XCTAssertThrowsError(
            try TenantHost(
                options: HostOptions(
                    dataFolder: root.appendingPathComponent("data"),
                    pluginFolders: [root.appendingPathComponent("plugins")]))
        ) { error in
            let message = "\(error)"
            XCTAssertTrue(
                message.contains("plugin.lua") && message.contains("commands.go.limits'.timeSeconds"), message)
        }
    }
}
