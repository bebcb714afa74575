import Foundation
import Synchronization
import XCTest

@testable import RealmDatabase

#if DEBUG
    /// Debug builds refuse a second thread's entry into a realm another thread is inside, with a
    /// clear error, instead of letting both use the `NOMUTEX` connection at once.
    final class EntryGuardTests: RealmTestCase {
        final class Reports: Sendable {
            let list = Mutex<[String]>([])
        }

        func testASecondThreadInsideARealmIsRefusedAndTheRealmCanBeHandedOverAfterwards() throws {
            let realm = try Realm(configuration: itemConfig())
            let shared = UncheckedSendable(realm)
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            Thread {
                defer { done.signal() }
                try? shared.value.write {
                    try shared.value.create("Item", value: ["id": 1])
                    entered.signal()
                    release.wait()
                }
            }.start()
            XCTAssertEqual(entered.wait(timeout: .now() + 60), .success)

            for (name, call) in [
                ("objects", { _ = try realm.objects("Item") }), ("beginWrite", { try realm.beginWrite() }),
                ("create", { try realm.create("Item", value: ["id": 2]) }), ("freeze", { _ = try realm.freeze() }),
            ] as [(String, () throws -> Void)] {
                XCTAssertThrowsError(try call(), name) { error in
                    XCTAssertEqual((error as? RealmError)?.code, .concurrentAccess, name)
                    XCTAssertTrue("\(error)".contains("Realm accessed from two threads at once (\(name))"), "\(error)")
                }
            }
            // Entries that cannot throw report the refusal and do nothing.
            let reports = Reports()
            let previous = RealmDiagnostics.setHandler { report in reports.list.withLock { $0.append("\(report)") } }
            defer { RealmDiagnostics.setHandler(previous) }
            XCTAssertFalse(realm.refresh())
            realm.cancelWrite()
            XCTAssertEqual(reports.list.withLock { $0.count }, 2)
            XCTAssertTrue(reports.list.withLock { $0 }.allSatisfy { $0.contains("two threads at once") })

            release.signal()
            XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
            // The other thread's write was committed whole (the refused cancel did not touch it),
            // and the realm now works on this thread.
            XCTAssertEqual(try realm.objects("Item").countObjects(), 1)
            try realm.write { try realm.create("Item", value: ["id": 2]) }
            XCTAssertEqual(try realm.objects("Item").countObjects(), 2)
        }

        func testTheSameThreadMayEnterAgainFromAnObserver() throws {
            let realm = try Realm(configuration: itemConfig())
            var counts: [Int] = []
            let token = try realm.observe { _, r in counts.append((try? r.objects("Item").countObjects()) ?? -1) }
            try realm.write { try realm.create("Item", value: ["id": 1]) }
            XCTAssertEqual(counts, [1])
            token.invalidate()
        }
    }
#endif
