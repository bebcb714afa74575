import Foundation
import RealmDatabase
import RealmHost
import XCTest

/// Durability and atomicity under SIGKILL: `RealmCrashWriter` (Sources/RealmCrashWriter) commits
/// numbered transactions, subscription updates or a migration, and these tests kill it at random
/// moments. After every kill the realm must open with the normal API, pass SQLite's
/// `PRAGMA integrity_check`, and hold exactly a prefix of what was written: every operation the
/// writer reported done, at most the one after it, and no part of any other.
///
/// The kill times come from the test's seed (`TestSeed`: pinned under `CI=true`, random locally,
/// printed and named in failures); `RELIABILITY_SEED=<n>` replays a run; `RELIABILITY_KILLS=<n>`
/// changes the number of kills of the commit test (default 100).
final class CrashSafetyTests: ReliabilityTestCase {
    /// What the writer left in `file`, opened with the schema stored in it (the writer's own, so
    /// the test does not repeat it). Nil when the writer was killed before `className` existed:
    /// the file was being created.
    static func openLeftover(_ file: URL, expecting className: String) throws -> Realm? {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: file))
        return realm.schema[className] == nil ? nil : realm
    }

    static func numbers(_ lines: [String], prefix: String) -> [Int64] {
        lines.compactMap { $0.hasPrefix(prefix) ? Int64($0.dropFirst(prefix.count)) : nil }
    }

    // MARK: Numbered transactions

    func testKilledWriterKeepsExactlyAPrefixOfItsTransactions() throws {
        let writer = try BuiltProducts.require("RealmCrashWriter")
        var rng = SeededGenerator(seed: seed("commits"))
        let kills = ProcessInfo.processInfo.environment["RELIABILITY_KILLS"].flatMap { Int($0) } ?? 100
        let rows = 16
        let file = folder.appendingPathComponent("commits.realm")
        var acknowledged: Int64 = 0
        var killedBeforeReady = 0
        var killedAfterCommits = 0
        let start = Date()
        for round in 1...kills {
            let child = try ChildProcess(writer, ["commits", file.path, String(rows)])
            // Start-up takes some tens of milliseconds: some kills land during the open (even the
            // creation of the file), most during the commit loop.
            usleep(UInt32.random(in: 1_000...250_000, using: &rng))
            child.kill()
            let lines = child.lines
            XCTAssertEqual(child.standardError, "", "round \(round): the writer failed on its own")
            if !lines.contains(where: { $0.hasPrefix("ready") }) { killedBeforeReady += 1 }
            let reported = Self.numbers(lines, prefix: "committed ")
            if !reported.isEmpty { killedAfterCommits += 1 }
            // Reported numbers go up by one from where the file was.
            if let first = reported.first {
                XCTAssertEqual(reported, Array(first...(reported.last!)), "round \(round)")
                XCTAssertLessThanOrEqual(first, acknowledged + 2, "round \(round): the writer skipped numbers")
            }
            // What the writer found at open was on disk (and checked last round): it counts as told.
            acknowledged = max(acknowledged, reported.last ?? 0, Self.numbers(lines, prefix: "ready ").last ?? 0)
            try verifyCommits(file, rows: rows, acknowledged: acknowledged, round: round)
            if testRun?.failureCount ?? 0 > 0 { break }
        }
        print(
            "commits: \(kills) kills in \(String(format: "%.1f", Date().timeIntervalSince(start))) s; "
                + "\(acknowledged) transactions acknowledged; \(killedBeforeReady) kills before the realm was open, "
                + "\(killedAfterCommits) after at least one commit"
        )
        XCTAssertGreaterThan(acknowledged, 0, "no transaction was ever acknowledged: the kills all came too early")
    }

    private func verifyCommits(_ file: URL, rows: Int, acknowledged: Int64, round: Int) throws {
        guard FileManager.default.fileExists(atPath: file.path) else {
            XCTAssertEqual(acknowledged, 0, "round \(round): the file is gone")
            return
        }
        guard let realm = try Self.openLeftover(file, expecting: "Entry") else {
            XCTAssertEqual(acknowledged, 0, "round \(round): the realm has no Entry class")
            return
        }
        XCTAssertEqual(SQLiteCheck.integrity(file.path), "ok", "round \(round)")
        let entries = try realm.objects("Entry")
        let last = try entries.max(ofProperty: "txn")?.intValue ?? 0
        // Every acknowledged commit is there; at most one more (committed, killed before it printed).
        XCTAssertGreaterThanOrEqual(last, acknowledged, "round \(round): an acknowledged commit is missing")
        XCTAssertLessThanOrEqual(last, acknowledged + 1, "round \(round): more commits than were made")
        // Whole transactions only, numbered 1...last: the normal API…
        XCTAssertEqual(try entries.countObjects(), rows * Int(last), "round \(round)")
        XCTAssertEqual(try entries.filter("part == 0").countObjects(), Int(last), "round \(round)")
        XCTAssertEqual(try entries.filter("part == \(rows - 1)").countObjects(), Int(last), "round \(round)")
        if last > 0 {
            XCTAssertEqual(try entries.filter("txn == \(last)").countObjects(), rows, "round \(round)")
            XCTAssertEqual(try entries.min(ofProperty: "txn")?.intValue, 1, "round \(round)")
            let head = try realm.object(ofType: "Head", forPrimaryKey: 0)
            XCTAssertEqual(
                try head?.value(forKey: "last").intValue, last,
                "round \(round): the head object and the entries disagree")
        } else {
            XCTAssertNil(try realm.object(ofType: "Head", forPrimaryKey: 0), "round \(round)")
        }
        // …and SQLite, counting every transaction's rows.
        let torn = SQLiteCheck.int(
            file.path,
            "SELECT count(*) FROM (SELECT txn FROM class_Entry GROUP BY txn HAVING count(*) != \(rows) OR "
                + "count(DISTINCT part) != \(rows))"
        )
        XCTAssertEqual(torn, 0, "round \(round): a transaction is there in part")
        XCTAssertEqual(
            SQLiteCheck.int(file.path, "SELECT count(DISTINCT txn) FROM class_Entry"), Int(last),
            "round \(round): the numbers have a gap")
    }

    // MARK: Subscription updates

    func testKilledSubscriptionUpdatesAreAllOrNothing() throws {
        let writer = try BuiltProducts.require("RealmCrashWriter")
        var rng = SeededGenerator(seed: seed("subscriptions"))
        let file = folder.appendingPathComponent("subscriptions.realm")
        var acknowledged: Int64 = 0
        let start = Date()
        let kills = 40
        for round in 1...kills {
            let child = try ChildProcess(writer, ["subscriptions", file.path])
            usleep(UInt32.random(in: 1_000...250_000, using: &rng))
            child.kill()
            XCTAssertEqual(child.standardError, "", "round \(round): the writer failed on its own")
            acknowledged = max(
                acknowledged, Self.numbers(child.lines, prefix: "updated ").last ?? 0,
                Self.numbers(child.lines, prefix: "ready ").last ?? 0)
            try verifySubscriptions(file, acknowledged: acknowledged, round: round)
            if testRun?.failureCount ?? 0 > 0 { break }
        }
        print(
            "subscriptions: \(kills) kills in \(String(format: "%.1f", Date().timeIntervalSince(start))) s; "
                + "\(acknowledged) updates acknowledged"
        )
        XCTAssertGreaterThan(acknowledged, 0)
    }

    private func verifySubscriptions(_ file: URL, acknowledged: Int64, round: Int) throws {
        guard FileManager.default.fileExists(atPath: file.path) else {
            XCTAssertEqual(acknowledged, 0, "round \(round): the file is gone")
            return
        }
        guard let realm = try Self.openLeftover(file, expecting: "Generation") else {
            XCTAssertEqual(acknowledged, 0, "round \(round): the realm has no Generation class")
            return
        }
        XCTAssertEqual(SQLiteCheck.integrity(file.path), "ok", "round \(round)")
        let subs = try realm.subscriptions
        let generation = subs.version
        XCTAssertGreaterThanOrEqual(generation, acknowledged, "round \(round): an acknowledged update is missing")
        XCTAssertLessThanOrEqual(generation, acknowledged + 1, "round \(round)")
        if generation == 0 {
            XCTAssertEqual(subs.count, 0, "round \(round)")
        } else {
            // Exactly the set of one update: its 8 subscriptions, nothing of the one before.
            XCTAssertEqual(subs.map { $0.name ?? "" }, (0..<8).map { "g\(generation)-\($0)" }, "round \(round)")
            XCTAssertEqual(
                subs.map(\.queryString), (0..<8).map { "txn > \(generation) AND part != \($0)" }, "round \(round)")
        }
        // The even updates ran inside a write that also created a Generation: both or neither.
        let generations = try realm.objects("Generation").ints("n").sorted()
        XCTAssertEqual(
            generations, Array(stride(from: 2, through: generation, by: 2)),
            "round \(round): data and subscriptions of one write disagree")
    }

    // MARK: Migration

    static let migrationV1 = """
        return { name = "inventory", version = "1.0.0", schemaVersion = 1,
          schema = { { name = "Item", primaryKey = "id",
            properties = { id = "int", value = "int", label = "string" } } } }
        """
    static let migrationV2 = """
        return { name = "inventory", version = "2.0.0", schemaVersion = 2,
          schema = {
            { name = "Item", primaryKey = "id",
              properties = { id = "int", value = "string", label = "string", twice = "int" } },
            { name = "Tag", properties = { name = "string" } },
          } }
        """
    /// Slow on purpose: touches every object, changes a property's type and creates objects.
    static let migrationStep = """
        return function(migration, oldSchemaVersion)
          migration:enumerateObjects("Item", function(old, new)
            new.value = "v" .. old.value
            new.twice = old.value * 2
          end)
          for i = 1, 50 do migration:create("Tag", { name = "t" .. i }) end
        end
        """

    func testKilledMigrationLeavesTheOldVersionOrTheNewOneComplete() throws {
        let writer = try BuiltProducts.require("RealmCrashWriter")
        var rng = SeededGenerator(seed: seed("migration"))
        let items = 1500
        let data = folder.appendingPathComponent("data", isDirectory: true)
        let pluginsV1 = try writePlugin("inventory", Self.migrationV1, in: folder.appendingPathComponent("plugins-v1"))
        let pluginsV2 = try writePlugin(
            "inventory", Self.migrationV2, files: ["migrations/0002_convert.lua": Self.migrationStep],
            in: folder.appendingPathComponent("plugins-v2"))
        let file = data.appendingPathComponent("shop.realm")
        let template = folder.appendingPathComponent("shop-v1.realm")
        do {
            let host = try TenantHost(options: HostOptions(dataFolder: data, pluginFolders: [pluginsV1]))
            try host.withTenant("shop") { t in
                try t.realm.write {
                    for i in 1...items {
                        _ = try t.realm.create(
                            "Item",
                            value: ["id": .int(Int64(i)), "value": .int(Int64(i * 7)), "label": .string("item\(i)")])
                    }
                }
            }
            host.closeAll()
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + "-wal"), "the v1 realm was not closed")
        try FileManager.default.copyItem(at: file, to: template)
        func restore() throws {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
            try FileManager.default.copyItem(at: template, to: file)
        }

        // One run to the end, to know how long a migration takes.
        let started = Date()
        let full = try ChildProcess(writer, ["migrate", data.path, pluginsV2.path, "shop"])
        full.finish()
        let duration = Date().timeIntervalSince(started)
        XCTAssertEqual(full.process.terminationStatus, 0, full.standardError)
        XCTAssertTrue(full.lines.contains("migrated 2"), "\(full.lines) \(full.standardError)")
        try verifyMigration(file, items: items, reportedDone: true, round: 0)

        let kills = 30
        var old = 0
        var new = 0
        var midway = 0
        for round in 1...kills {
            try restore()
            let child = try ChildProcess(writer, ["migrate", data.path, pluginsV2.path, "shop"])
            usleep(UInt32(Double.random(in: 0.02...(duration * 1.1), using: &rng) * 1_000_000))
            child.kill()
            XCTAssertEqual(child.standardError, "", "round \(round)")
            let done = child.lines.contains { $0.hasPrefix("migrated") }
            if child.lines.contains("ready") && !done { midway += 1 }
            if try verifyMigration(file, items: items, reportedDone: done, round: round) == 1 {
                old += 1
            } else {
                new += 1
            }
            if testRun?.failureCount ?? 0 > 0 { break }
        }
        print(
            "migration: one run takes \(String(format: "%.2f", duration)) s; \(kills) kills (\(midway) while the "
                + "migration ran): \(old) left version 1, \(new) found version 2 complete"
        )
    }

    /// Checks the file is either at version 1 with its data untouched, or at version 2 with all of
    /// the migration's changes; returns the version.
    @discardableResult
    private func verifyMigration(_ file: URL, items: Int, reportedDone: Bool, round: Int) throws -> UInt64 {
        let realm = try Realm(configuration: Realm.Configuration(fileURL: file))
        XCTAssertEqual(SQLiteCheck.integrity(file.path), "ok", "round \(round)")
        let version = realm.schemaVersion
        let itemsResults = try realm.objects("Item")
        XCTAssertEqual(try itemsResults.countObjects(), items, "round \(round)")
        switch version {
        case 1:
            XCTAssertFalse(reportedDone, "round \(round): the migration was reported done but the file is at version 1")
            XCTAssertEqual(realm.schema["Item"]?["value"]?.type, .int, "round \(round)")
            XCTAssertNil(realm.schema["Item"]?["twice"], "round \(round)")
            XCTAssertNil(realm.schema["Tag"], "round \(round)")
            XCTAssertEqual(
                SQLiteCheck.int(
                    file.path, "SELECT count(*) FROM class_Item WHERE value = id * 7 AND label = 'item' || id"), items,
                "round \(round): old data changed")
            XCTAssertEqual(
                SQLiteCheck.int(
                    file.path,
                    "SELECT count(*) FROM sqlite_master WHERE name LIKE '%Tag%' OR sql LIKE '%twice%' OR sql LIKE "
                        + "'%__new%'"
                ), 0,
                "round \(round): storage of the new version is left over")
            XCTAssertEqual(
                try itemsResults.filter("id == 10").first?.value(forKey: "value").intValue, 70, "round \(round)")
        case 2:
            XCTAssertEqual(realm.schema["Item"]?["value"]?.type, .string, "round \(round)")
            XCTAssertEqual(
                SQLiteCheck.int(
                    file.path,
                    "SELECT count(*) FROM class_Item WHERE value = 'v' || (id * 7) AND twice = id * 14 AND label = "
                        + "'item' || id"
                ), items,
                "round \(round): the migration is there in part")
            XCTAssertEqual(try realm.objects("Tag").countObjects(), 50, "round \(round)")
            XCTAssertEqual(
                try itemsResults.filter("id == 10").first?.value(forKey: "value").stringValue, "v70", "round \(round)")
        default:
            XCTFail("round \(round): unexpected schema version \(version)")
        }
        return version
    }
}
