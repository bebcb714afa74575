import CSQLite
import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync

/// A statement shared by the two stores is written once in PostgreSQL's `$n` numbering; SQLite gets
/// the same parameters as `?n` (its `$1` would be a named parameter numbered by first appearance).
final class StoreStatementsTests: XCTestCase {
    func testSQLiteNumbersTheSameParametersByTheirDigitsAndLeavesLiteralsAlone() {
        let statement = StoreStatement("UPDATE t SET a = $2, b = $10 WHERE id = $1 AND note = 'costs $5'")
        XCTAssertEqual(statement.postgres, "UPDATE t SET a = $2, b = $10 WHERE id = $1 AND note = 'costs $5'")
        XCTAssertEqual(statement.sqlite, "UPDATE t SET a = ?2, b = ?10 WHERE id = ?1 AND note = 'costs $5'")
    }

    /// A page of a class's live objects is one index range on SQLite, in order: no scan of the
    /// class and no sort (which `live` alone, not `live = TRUE`, would cost).
    func testAPageOfLiveObjectsIsAnIndexRangeOnSQLite() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("statements-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("sync.sqlite").path
        _ = try SQLiteSyncStore(path: path, historySalt: 1, schema: nil)
        let db = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY)
        for statement in [StoreStatements.liveObjects, StoreStatements.liveObjectsWithCreators] {
            let plan = try db.rows("EXPLAIN QUERY PLAN " + statement.sqlite, [.text("Dog"), .integer(0), .integer(9)])
                .compactMap { $0.last.flatMap { if case .text(let detail) = $0 { detail } else { nil } } }
            XCTAssertEqual(plan.count, 1, "\(plan)")
            XCTAssertTrue(plan.first?.contains("objects_by_class (class=? AND live=? AND id>?)") == true, "\(plan)")
        }
    }
}
