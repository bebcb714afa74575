import CSQLite
import Foundation
import XCTest

@testable import RealmDatabase

/// Several instances on one file: on two threads, against another SQLite connection, and in two
/// processes. They see each other's commits; writers wait for each other rather than fail.
final class ConcurrencyTests: RealmTestCase {
    private static let childEnvironment = "REALMHOST_TEST_CHILD_REALM"

    /// Runs `body` on a thread of its own; returns a semaphore signalled when it is done, and the
    /// error it threw, if any, is recorded in `errors`.
    private func spawn(_ errors: UncheckedSendable<Box<[String]>>, _ body: @escaping @Sendable () throws -> Void)
        -> DispatchSemaphore
    {
        let done = DispatchSemaphore(value: 0)
        let lock = NSLock()
        let thread = Thread {
            do { try body() } catch {
                lock.lock()
                errors.value.value = (errors.value.value ?? []) + ["\(error)"]
                lock.unlock()
            }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        return done
    }

    private func wait(_ semaphore: DispatchSemaphore, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(semaphore.wait(timeout: .now() + 120), .success, "timed out", file: file, line: line)
    }

    func testTwoThreadsSeeEachOthersCommits() throws {
        let realm = try Realm(configuration: itemConfig())
        let config = UncheckedSendable(itemConfig())
        let errors = UncheckedSendable(Box<[String]>())
        let seen = UncheckedSendable(Box<Int>())
        let mainWrote = DispatchSemaphore(value: 0)
        let threadWrote = DispatchSemaphore(value: 0)
        let done = spawn(errors) {
            let other = try Realm(configuration: config.value)
            try other.write { try other.create("Item", value: ["id": 1, "name": "from the thread"]) }
            threadWrote.signal()
            _ = mainWrote.wait(timeout: .now() + 120)
            seen.value.value = try other.objects("Item").countObjects()
        }
        wait(threadWrote)
        XCTAssertEqual(try realm.object(ofType: "Item", forPrimaryKey: 1)?["name"], "from the thread")
        try realm.write { try realm.create("Item", value: ["id": 2, "name": "from main"]) }
        mainWrote.signal()
        wait(done)
        XCTAssertNil(errors.value.value)
        XCTAssertEqual(seen.value.value, 2)
    }

    func testWritersOnTwoThreadsWaitForEachOther() throws {
        let realm = try Realm(configuration: itemConfig())
        try realm.write { try realm.create("Item", value: ["id": 0, "score": 0]) }
        let config = UncheckedSendable(itemConfig())
        let errors = UncheckedSendable(Box<[String]>())
        let perThread = 30
        let threads = (1...2).map { t in
            spawn(errors) {
                let mine = try Realm(configuration: config.value)
                for i in 0..<perThread {
                    try mine.write {
                        // A read-modify-write: it loses updates unless writers take turns.
                        let counter = try mine.object(ofType: "Item", forPrimaryKey: 0)!
                        try counter.setValue(.int(try counter["score"].intValue! + 1), forKey: "score")
                        try mine.create("Item", value: ["id": .int(Int64(t * 1000 + i))])
                    }
                }
            }
        }
        for done in threads { wait(done) }
        XCTAssertNil(errors.value.value, "no writer failed")
        XCTAssertEqual(try realm.object(ofType: "Item", forPrimaryKey: 0)?["score"], .int(Int64(2 * perThread)))
        XCTAssertEqual(try realm.objects("Item").countObjects(), 2 * perThread + 1)
    }

    func testAWriterWaitsForAnotherConnectionsWriteLock() throws {
        let realm = try Realm(configuration: itemConfig())
        let path = fileURL("items").path
        let errors = UncheckedSendable(Box<[String]>())
        let locked = DispatchSemaphore(value: 0)
        let done = spawn(errors) {
            // Another connection, as another process would hold it: a write transaction left open a while.
            var db: OpaquePointer?
            guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
                throw RealmError(.sqlite, "open")
            }
            defer { sqlite3_close_v2(db) }
            guard
                sqlite3_exec(
                    db,
                    """
                    BEGIN IMMEDIATE;
                    INSERT INTO class_Item (id, name, score, weight) VALUES (1, 'other connection', 0, 0);
                    UPDATE _realm_meta SET value = value + 1 WHERE key = 'version';
                    """, nil, nil, nil) == SQLITE_OK
            else { throw RealmError(.sqlite, "begin") }
            locked.signal()
            Thread.sleep(forTimeInterval: 0.5)
            guard sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK else { throw RealmError(.sqlite, "commit") }
        }
        wait(locked)
        // Reading does not wait for the writer, and does not see its uncommitted row.
        XCTAssertEqual(try realm.objects("Item").countObjects(), 0)
        var sawOtherCommit = false
        try realm.write {
            // This transaction began only once the other one committed.
            sawOtherCommit = try realm.object(ofType: "Item", forPrimaryKey: 1) != nil
            try realm.create("Item", value: ["id": 2, "name": "realm"])
        }
        wait(done)
        XCTAssertNil(errors.value.value)
        XCTAssertTrue(sawOtherCommit, "the writer waited for the lock instead of failing")
        let other = try XCTUnwrap(try realm.object(ofType: "Item", forPrimaryKey: 1))
        let mine = try XCTUnwrap(try realm.object(ofType: "Item", forPrimaryKey: 2))
        XCTAssertLessThan(other.objectKey!, mine.objectKey!)
    }

    func testCommitsOfAnotherConnectionAreNoticedByRefresh() throws {
        let realm = try Realm(configuration: itemConfig())
        let results = try realm.objects("Item")
        var updates = [[Int]]()
        let token = try results.observe { change in
            if case .update(_, _, let insertions, _) = change { updates.append(insertions) }
        }
        defer { token.invalidate() }
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(fileURL("items").path, &db, SQLITE_OPEN_READWRITE, nil), SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        XCTAssertEqual(
            sqlite3_exec(db, "INSERT INTO class_Item (id, name, score, weight) VALUES (1, 'raw', 0, 0)", nil, nil, nil),
            SQLITE_OK)
        // The live results read the new row at once.
        XCTAssertEqual(results.count, 1)
        // Reading first must not hide the commit from refresh: its observers still hear of it.
        XCTAssertTrue(realm.refresh())
        XCTAssertEqual(updates, [[0]])
        XCTAssertFalse(realm.refresh())
    }

    // MARK: Two processes

    func testTwoProcessesSeeEachOthersCommitsAndWriteInTurn() throws {
        let executable = ProcessInfo.processInfo.arguments.first ?? ""
        guard executable.hasSuffix(".xctest"), FileManager.default.isExecutableFile(atPath: executable) else {
            throw XCTSkip("needs the XCTest binary to start a second process")
        }
        let realm = try Realm(configuration: itemConfig())
        try realm.write { try realm.create("Item", value: ["id": 1, "name": "parent"]) }
        try realm.beginWrite()
        let held = try realm.create("Item", value: ["id": 2, "name": "committed while the child waits"])

        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = ["RealmDatabaseTests.ConcurrencyTests/testChildProcessWriter"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childEnvironment] = fileURL("items").path
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        child.standardError = output
        try child.run()
        var log = ""
        // Wait for the child to start its write, give it time to block on the lock, then commit.
        while !log.contains("CHILD WRITING") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            log += String(decoding: chunk, as: UTF8.self)
        }
        Thread.sleep(forTimeInterval: 0.3)
        try realm.commitWrite()
        log += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertTrue(log.contains("CHILD WRITING"), log)
        XCTAssertEqual(child.terminationStatus, 0, log)
        // The child's commit is visible here, after this process's.
        let childItem = try XCTUnwrap(try realm.object(ofType: "Item", forPrimaryKey: 3), log)
        XCTAssertEqual(try childItem["name"], "child")
        XCTAssertGreaterThan(childItem.objectKey!, held.objectKey!)
    }

    /// The second process of `testTwoProcessesSeeEachOthersCommitsAndWriteInTurn` (skipped otherwise).
    func testChildProcessWriter() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childEnvironment] else {
            throw XCTSkip("runs only as the second process of testTwoProcessesSeeEachOthersCommitsAndWriteInTurn")
        }
        var config = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        config.schema = Self.itemSchema()
        let realm = try Realm(configuration: config)
        XCTAssertEqual(try realm.objects("Item").countObjects(), 1, "the parent's first commit is visible")
        FileHandle.standardOutput.write(Data("CHILD WRITING\n".utf8))
        try realm.write {
            XCTAssertEqual(try realm.objects("Item").countObjects(), 2, "the write began after the parent's commit")
            try realm.create("Item", value: ["id": 3, "name": "child"])
        }
    }
}
