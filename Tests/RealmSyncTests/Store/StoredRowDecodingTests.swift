import CSQLite
import Foundation
import RealmDatabase
import XCTest

@testable import RealmSync
@testable import SyncStoreConformance

/// The records are decoded from rows once for every store (`StoredRow`): a damaged row is refused
/// with an error naming what is wrong, never read as something else. (The SQLite store used to
/// truncate an element index past 32 bits where the PostgreSQL store refused it.)
final class StoredRowDecodingTests: XCTestCase {
    /// A SQLite store holding item 1 with one element in `tags`, and a raw connection to its file.
    private func damageableStore() throws -> (ServerFixture, SQLiteConnection) {
        let fixture = try ServerFixture()
        try fixture.clients(1)
        let e = element(clock: 100, client: 1)
        try fixture.integrate(
            changeset(
                1, 1, clock: 100,
                [
                    .create(item(1), fields: [SyncField("name", .string("one"))]),
                    .listInsert(item(1), field: "tags", element: e, position: .between(nil, nil), value: .string("a")),
                ]))
        let raw = try SQLiteConnection(
            path: fixture.place.folder.appendingPathComponent("sync.sqlite").path, flags: SQLITE_OPEN_READWRITE)
        return (fixture, raw)
    }

    func testAnElementIndexPast32BitsIsRefusedNotTruncated() throws {
        let (fixture, raw) = try damageableStore()
        let store = fixture.store
        XCTAssertEqual(try store.read { try $0.listElements(item(1), field: "tags") }.count, 1)
        try raw.execute("UPDATE list_elements SET idx = 4294967297")
        XCTAssertThrowsError(try store.read { try $0.listElements(item(1), field: "tags") }) { error in
            XCTAssertTrue("\(error)".contains("index 4294967297, past 32 bits"), "\(error)")
            XCTAssertTrue("\(error)".contains("Item[1].tags"), "names the list: \(error)")
        }
    }

    func testAColumnOfAnotherTypeIsRefusedNamingIt() throws {
        let (fixture, raw) = try damageableStore()
        let store = fixture.store
        try raw.execute("UPDATE objects SET creator = x'05'")
        XCTAssertThrowsError(try store.read { try $0.object(item(1)) }) { error in
            XCTAssertTrue("\(error)".contains("not a text"), "\(error)")
        }
        try raw.execute("UPDATE objects SET creator = 'u'")
        try raw.execute("UPDATE fields SET clock = 'noon'")
        XCTAssertThrowsError(try store.read { try $0.field(item(1), path: ["name"]) }) { error in
            XCTAssertTrue("\(error)".contains("not an integer"), "\(error)")
        }
    }
}
